#!/usr/bin/env bash
# Multi-node jobs across real, distinct addresses (issue 4): every node is a network namespace
# of its own, plugged into a bridge that lives in a fifth, "switch" namespace, so the root
# namespace's links and routes are never touched. The loopback version of these scenarios is
# cluster_test.cpp; here a launcher only sees its own address, connects to the coordinator over
# a real (virtual) link, and the coordinator sees each peer's true source address.
#
#   netns_test.sh BUILD_DIR     (BUILD_DIR holds compiler/pai-compile and launcher/pai-launch)
#
#   1. a 3-node job, 2 processes per node, with the network check on: every launcher exits 0,
#      ranks 0..5 each run once, in the namespace of their own node (the address they see),
#      with WORLD_SIZE=6, MASTER_ADDR=10.231.0.1 and the NODE_RANK of that node; node-3 is
#      started without --node and finds itself by its interface address; before it, a launcher
#      in node-4's namespace that claims to be node-3 is refused (wrong source address);
#   2. the same cluster plus a spare node-4: node-2's launcher is killed with SIGKILL while its
#      ranks run; the others notice, node-4 takes over worker-1 and the job succeeds, with
#      node rank 1 now running at 10.231.0.4.
#   3. a plan of 8,192 nodes (4 workers, the rest spares that never come), whose coordinator
#      beats every 8 intervals: (a) node-1's link cut: node-2 and node-3 give up after 5
#      intervals without acknowledgements ("the coordinator acknowledged nothing for 5.0s"),
#      not 11 without a beat; (b) node-1 stopped with SIGSTOP: they wait the 11 intervals.
#   After each scenario no process is left in any node's namespace.
# Exit status: 0 passed, 1 failed (with every launcher's output), 2 usage, 77 skipped (not root,
# or network namespaces unavailable).
set -euo pipefail

(($# == 1)) || { echo "usage: netns_test.sh BUILD_DIR" >&2; exit 2; }
build=$(realpath "$1")
compiler=$build/compiler/pai-compile
launcher=$build/launcher/pai-launch
# Bounds every wait of the test; the whole test normally takes a few seconds.
readonly TIMEOUT=${PAI_NETNS_TIMEOUT:-30}
readonly SUBNET=10.231.0

TEST=netns_test
source "$(dirname "$0")/netns_lib.sh"

[[ -x $compiler && -x $launcher ]] || fail "no pai-compile or pai-launch under $build"
command -v hostname >/dev/null || skip "hostname is not installed (the ranks report their address with hostname -I)"

netns_init
netns_network 4

# Fails unless file $1 holds exactly the line $2.
expect_line() {
  [[ -f $1 ]] || fail "${1#"$work"/} was not written"
  local got
  got=$(<"$1")
  [[ $got == "$2" ]] || fail "${1#"$work"/} holds \"$got\", expected \"$2\""
}

# Fails unless the files in folder $1 are exactly the other arguments.
expect_files() {
  local dir=$1 got
  shift
  got=$(find "$dir" -mindepth 1 -printf '%f\n' | sort | tr '\n' ' ')
  local want
  want=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
  [[ $got == "$want" ]] || fail "${dir#"$work"/} holds: $got
expected: $want"
}

# Writes the spec $work/$1.yaml (job pai-netns-$1-PID) for hosts node-1..3 and spares $2 (a
# YAML flow list) whose ranks run command $3, then compiles it to $work/$1/plan.
compile() {
  local scenario=$1 spares=$2
  local command="      ${3//$'\n'/$'\n'      }" # indented into the YAML block scalar
  mkdir -p "$work/$scenario/ranks"
  cat >"$work/$scenario.yaml" <<EOF
apiVersion: pai/v1
kind: Job
name: pai-netns-$scenario-$$
hosts:
  - {name: node-1, address: $SUBNET.1}
  - {name: node-2, address: $SUBNET.2}
  - {name: node-3, address: $SUBNET.3}
spares: $spares
fabric: {type: ethernet, interface: eth0}
roles:
  worker:
    instances: 3
    nprocPerNode: 2
    env: {RANKS: $work/$scenario/ranks}
    command: |
$command
faultTolerance:
  restart: {enabled: true, maxRestarts: 2, backoff: 0s}
  gracePeriod: 1s
sanityCheck: {checks: [network]}
EOF
  "$compiler" "$work/$scenario.yaml" -o "$work/$scenario/plan" >"$work/$scenario.compile" 2>&1 ||
    fail "pai-compile $scenario.yaml failed: $(cat "$work/$scenario.compile")"
}

# --- 1. Ranks get their place in the job and run on their own node.
# Each rank writes "RANK WORLD_SIZE MASTER_ADDR NODE_RANK <addresses it sees>".
# shellcheck disable=SC2016  # the ranks' shell expands these
compile ranks "[]" \
  'echo $RANK $WORLD_SIZE $MASTER_ADDR $NODE_RANK $(hostname -I) > "$RANKS/rank-$RANK"'
start_launcher ranks/node-1 1 --node node-1
start_launcher ranks/node-2 2 --node node-2
# A launcher on 10.231.0.4 that claims to be node-3 (at 10.231.0.3) is refused by the
# coordinator, which sees the connection's true source address.
start_launcher ranks/impostor 4 --node node-3
wait_launcher ranks/impostor $((SECONDS + TIMEOUT))
((exited == 2)) || fail "the launcher claiming node-3 from $SUBNET.4 exited with $exited, expected 2"
grep -q "refused by the coordinator: claims node node-3" "$work/ranks/impostor.err" ||
  fail "the refused launcher does not say why"
expect_said ranks/node-1 \
  "rejected launcher node-3 from $SUBNET.4: claims node node-3 (address $SUBNET.3) but connects from $SUBNET.4"
# node-3's only address (besides lo) is its own, so it can find itself in the plan.
start_launcher ranks/node-3 3
expect_success ranks/node-{1,2,3}
expect_files "$work/ranks/ranks" rank-{0..5}
for rank in 0 1 2 3 4 5; do
  node_rank=$((rank / 2))
  expect_line "$work/ranks/ranks/rank-$rank" "$rank 6 $SUBNET.1 $node_rank $SUBNET.$((node_rank + 1))"
done
expect_said ranks/node-3 "node: node-3 runs worker-2 (by address $SUBNET.3)"
# The network check ran in each namespace: eth0 with the node's own address, the coordinator
# reached over the bridge.
for n in 2 3; do
  grep -q "eth0 up ($SUBNET.$n), coordinator $SUBNET.1:[0-9]* reachable" "$work/ranks/node-$n.err" ||
    fail "node-$n's network check did not see eth0 at $SUBNET.$n and the coordinator at $SUBNET.1"
done
expect_no_leftovers ranks
say "1. 3 nodes, 6 ranks, each on its own address; MASTER_ADDR $SUBNET.1; node-3 found by address; an impostor refused"

# --- 2. A launcher lost with SIGKILL: the spare takes its place.
# Attempt 0 waits to be killed; attempt 1 (after the replacement) finishes at once.
# shellcheck disable=SC2016  # the ranks' shell expands these
compile spare "[{name: node-4, address: $SUBNET.4}]" \
  'echo $RANK $NODE_RANK $(hostname -I) > "$RANKS/rank-$RANK.attempt-$PAI_RESTART_COUNT"
[ "$PAI_RESTART_COUNT" = 0 ] && exec sleep 60
exit 0'
for n in 1 2 3 4; do start_launcher "spare/node-$n" "$n" --node "node-$n"; done
deadline=$((SECONDS + TIMEOUT))
for rank in 0 1 2 3 4 5; do
  until [[ -s $work/spare/ranks/rank-$rank.attempt-0 ]]; do
    ((SECONDS < deadline)) || fail "rank $rank did not start within ${TIMEOUT}s"
    sleep 0.05
  done
done
# 2>/dev/null: no "Killed" report from bash; failures still show (fd 3).
{
  kill -KILL "${pids[spare/node-2]}"
  wait_launcher spare/node-2 $((SECONDS + 5))
} 2>/dev/null
((exited == 128 + 9)) || fail "node-2's launcher exited with $exited after SIGKILL, expected 137"
expect_success spare/node-{1,3,4}
expect_files "$work/spare/ranks" rank-{0..5}.attempt-{0,1}
for rank in 0 1 2 3 4 5; do
  node_rank=$((rank / 2))
  host=$((node_rank + 1))
  expect_line "$work/spare/ranks/rank-$rank.attempt-0" "$rank $node_rank $SUBNET.$host"
  if ((host == 2)); then host=4; fi # worker-1 moved to the spare
  expect_line "$work/spare/ranks/rank-$rank.attempt-1" "$rank $node_rank $SUBNET.$host"
done
expect_said spare/node-1 "node-2 replaced by spare node-4 as worker-1"
expect_said spare/node-4 "assigned worker-1"
expect_no_leftovers spare
say "2. node-2's launcher killed: spare node-4 ($SUBNET.4) ran worker-1 and the job succeeded"

# --- 3. The coordinator of a large job unreachable, or stalled.
# A plan of 8,192 nodes: 4 workers (node-4 never comes, so the rendezvous waits) and 8,188
# spares that never join. Its coordinator beats every 8 intervals and its launchers wait 11
# for a beat (launcher/net/heartbeat_rhythm.h); a coordinator whose host stops answering is
# still noticed within 5, as the kernel gives up on heartbeats it does not acknowledge.
# $1: the scenario; the heartbeat interval is PAI_NETNS_HEARTBEAT_MS (start_launcher).
compile_large() {
  mkdir -p "$work/$1"
  {
    echo "apiVersion: pai/v1"
    echo "kind: Job"
    echo "name: pai-netns-$1-$$"
    hosts_yaml 4
    echo "spares:"
    local i
    for ((i = 0; i < 8188; i++)); do
      echo "  - {name: spare-$i, address: 10.232.$((i / 250)).$((i % 250 + 1))}"
    done
    cat <<SPEC
fabric: {type: ethernet, interface: eth0}
roles:
  worker:
    instances: 4
    command: sleep 60
SPEC
  } >"$work/$1.yaml"
  compile_spec "$1"
}

# 3a. node-1's link goes down once node-2 and node-3 joined, before the coordinator's first
# beat (8 intervals after it started): they give up after 5 intervals without
# acknowledgements, not 11 without a beat. 1 s intervals: the beat would be 11 s away.
compile_large unreachable
PAI_NETNS_HEARTBEAT_MS=1000 start_launcher unreachable/node-1 1 --node node-1
for n in 2 3; do PAI_NETNS_HEARTBEAT_MS=1000 start_launcher "unreachable/node-$n" "$n" --node "node-$n"; done
for n in 2 3; do expect_said "unreachable/node-$n" "joined the coordinator at $SUBNET.1"; done
ip netns exec "$(node_ns 1)" ip link set eth0 down
cut_at=$SECONDS
expect_exit 3 unreachable/node-{2,3}
((SECONDS - cut_at <= 8)) || fail "node-2 and node-3 gave up $((SECONDS - cut_at))s after the cut, expected 5-6"
for n in 2 3; do
  expect_said "unreachable/node-$n" "the coordinator acknowledged nothing for 5.0s: its host is down or unreachable"
done
# The coordinator hears only the launcher beside it: it says its own node is cut off, and
# neither blames node-2 and node-3 nor waits out the rendezvous.
expect_exit 1 unreachable/node-1
expect_said unreachable/node-1 "job failed: every other node went silent at once (no heartbeat for 5.0s from node-2 and node-3) while this node's launcher is heard: the coordinator's node node-1 is cut off from them"
ip netns exec "$(node_ns 1)" ip link set eth0 up
expect_no_leftovers unreachable
say "3a. the coordinator's host cut off: its launchers gave up within $((SECONDS - cut_at))s (5 unacknowledged intervals, not 11), and it said it was cut off"

# 3b. node-1 stopped (SIGSTOP): its kernel still acknowledges, so the launchers wait the 11
# intervals for a beat (500 ms intervals: 5.5 s; a small job's would give up after 2.5 s).
compile_large stalled
PAI_NETNS_HEARTBEAT_MS=500 start_launcher stalled/node-1 1 --node node-1
for n in 2 3; do PAI_NETNS_HEARTBEAT_MS=500 start_launcher "stalled/node-$n" "$n" --node "node-$n"; done
for n in 2 3; do expect_said "stalled/node-$n" "joined the coordinator at $SUBNET.1"; done
kill -STOP "${pids[stalled/node-1]}"
expect_exit 3 stalled/node-{2,3}
for n in 2 3; do
  grep -qE "no heartbeat from the coordinator for (5\.[5-9]|6\.[0-9])s" "$work/stalled/node-$n.err" ||
    fail "node-$n did not wait 11 intervals (5.5s) for its stalled coordinator: $(tail -3 "$work/stalled/node-$n.err")"
done
kill -KILL "${pids[stalled/node-1]}" 2>/dev/null
wait_launcher stalled/node-1 $((SECONDS + 5)) 2>/dev/null
expect_no_leftovers stalled
say "3b. the coordinator stopped: its launchers waited 11 intervals for a beat"
