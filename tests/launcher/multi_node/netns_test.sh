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

# Messages go to fd 3, the test's stderr, so a block can silence the shell's own job reports.
exec 3>&2
say() { printf 'netns_test: %s\n' "$*" >&3; }
skip() {
  say "SKIPPED: $*"
  exit 77
}
fail() {
  say "FAILED: $*"
  exit 1
}

[[ -x $compiler && -x $launcher ]] || fail "no pai-compile or pai-launch under $build"
((EUID == 0)) || skip "needs root to create network namespaces"
command -v ip >/dev/null || skip "ip (iproute2) is not installed"
command -v hostname >/dev/null || skip "hostname is not installed (the ranks report their address with hostname -I)"

work=$(mktemp -d "${TMPDIR:-/tmp}/pai-netns-test-XXXXXX")
namespaces=()     # created by this test, deleted by cleanup
declare -A pids   # "scenario/node" -> pid of a launcher this test started and has not waited for
outputs=()        # launcher output files, shown when the test fails

# Every process still in namespace $1: launchers and ranks this test started (the namespaces
# are this test's own, nothing else runs in them).
namespace_pids() { ip netns pids "$1" 2>/dev/null || true; }

cleanup() {
  local status=$? key ns pid
  trap - EXIT INT TERM
  for key in "${!pids[@]}"; do
    kill -KILL "${pids[$key]}" 2>/dev/null || true
    wait "${pids[$key]}" 2>/dev/null || true
  done
  if ((status != 0 && status != 77)); then
    local out
    for out in "${outputs[@]}"; do
      printf '===== %s\n' "${out#"$work"/}" >&3
      cat "$out" >&3 2>/dev/null || true
    done
  fi
  # A namespace outlives `ip netns del` while a process holds it: empty it first.
  for ns in "${namespaces[@]}"; do
    for _ in 1 2 3; do
      pid=$(namespace_pids "$ns")
      [[ -z $pid ]] && break
      # shellcheck disable=SC2086  # one pid per word
      kill -KILL $pid 2>/dev/null || true
      sleep 0.1
    done
    # Deleting the switch namespace destroys its bridge and veth ends, and with them their
    # peers (eth0) in the node namespaces.
    if [[ -e /run/netns/$ns ]]; then ip netns del "$ns" || say "could not delete namespace $ns"; fi
  done
  rm -rf -- "$work"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- The network: pai-sw-PID holds bridge br0; node N is namespace pai-nsN-PID with eth0 at
# 10.231.0.N/24, a veth whose other end (portN) is a port of br0. The veth pairs are created in
# the switch namespace with their eth0 end straight in the node's, so no link ever appears in
# the root namespace.
switch=pai-sw-$$
node_ns() { echo "pai-ns$1-$$"; }

# Each namespace is listed before it is made, so an interrupt in between still removes it.
namespaces+=("$switch")
ip netns add "$switch" 2>"$work/netns.err" ||
  skip "cannot create a network namespace: $(cat "$work/netns.err")"
ip -n "$switch" link add br0 type bridge # STP off (the default): ports forward at once
ip -n "$switch" link set br0 up
for n in 1 2 3 4; do
  ns=$(node_ns "$n")
  namespaces+=("$ns")
  ip netns add "$ns"
  ip -n "$ns" link set lo up
  ip -n "$switch" link add "port$n" type veth peer name eth0 netns "$ns"
  ip -n "$switch" link set "port$n" master br0 up
  ip -n "$ns" addr add "$SUBNET.$n/24" dev eth0
  ip -n "$ns" link set eth0 up
done
say "network: namespaces ${namespaces[*]}, bridge br0 in $switch, $SUBNET.1-4/24"

# Starts launcher $1 ("SCENARIO/NAME": its output goes to $work/SCENARIO/NAME.err and .out) in
# node namespace $2 with the plan of SCENARIO and pai-launch arguments $3... (--node NAME, or
# none to let it find its node by address).
start_launcher() {
  local key=$1 ns
  ns=$(node_ns "$2")
  shift 2
  local scenario=${key%%/*}
  outputs+=("$work/$key.err" "$work/$key.out")
  ip netns exec "$ns" "$launcher" run --plan "$work/$scenario/plan/plan.json" \
    --token-file "$work/$scenario/plan/job.token" --log-dir "$work/$key.logs" \
    --heartbeat-interval-ms 200 --rendezvous-timeout "${TIMEOUT}s" "$@" \
    >"$work/$key.out" 2>"$work/$key.err" &
  # ip netns exec execs the command itself: $! is the launcher.
  pids[$key]=$!
}

# Waits for the launcher "scenario/node" $1 until second $2 of the test at most (then kills it
# and fails); sets `exited` to its exit code. Not in a subshell: only this shell can wait for it.
wait_launcher() {
  local key=$1 deadline=$2 pid=${pids[$1]} state
  while { read -r _ _ state _ <"/proc/$pid/stat"; } 2>/dev/null && [[ $state != Z ]]; do
    if ((SECONDS >= deadline)); then
      kill -KILL "$pid" 2>/dev/null || true
      fail "launcher $key still runs after ${TIMEOUT}s"
    fi
    sleep 0.05
  done
  exited=0
  wait "$pid" || exited=$?
  unset "pids[$key]"
}

# Fails unless launchers $1... ("SCENARIO/NAME") exit with code 0.
expect_success() {
  local key deadline=$((SECONDS + TIMEOUT))
  for key in "$@"; do
    wait_launcher "$key" "$deadline"
    ((exited == 0)) || fail "launcher $key exited with $exited, expected 0"
  done
}

# Fails unless launcher $1 ("SCENARIO/NAME") printed text $2 to its stderr, within 5 s: one
# that still runs may not have written it yet.
expect_said() {
  local deadline=$((SECONDS + 5))
  until grep -qF -- "$2" "$work/$1.err"; do
    ((SECONDS < deadline)) || fail "launcher $1 never said: $2"
    sleep 0.05
  done
}

# Fails unless file $1 holds exactly the line $2.
expect_line() {
  [[ -f $1 ]] || fail "${1#"$work"/} was not written"
  local got
  got=$(<"$1")
  [[ $got == "$2" ]] || fail "${1#"$work"/} holds \"$got\", expected \"$2\""
}

# Fails if a process is left in a node's namespace once its launcher is gone.
expect_no_leftovers() {
  local n ns left deadline=$((SECONDS + 5))
  for n in 1 2 3 4; do
    ns=$(node_ns "$n")
    # A dying process may take a moment to leave.
    while left=$(namespace_pids "$ns") && [[ -n $left ]] && ((SECONDS < deadline)); do sleep 0.05; done
    [[ -z $left ]] || fail "$1: processes left in $ns: $(ps -o pid=,args= -p "${left//$'\n'/,}" || true)"
  done
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
