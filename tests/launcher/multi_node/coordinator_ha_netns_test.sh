#!/usr/bin/env bash
# coordinator.ha across a cut link (issue 38, item 8): nodes that are network namespaces on a
# bridge (netns_lib.sh); node-1..3 run the job (node-1 and node-2 its hosts, node-3 a spare),
# node-4..6 each run a member of a real 3-member etcd cluster (Debian's etcd-server).
#
#   kill: node-1's launcher, which coordinates, is killed with SIGKILL mid-run: node-2 and
#   node-3 lose it at once, and the first of them to stand by is elected when node-1's lease
#   lapses; the spare takes node-1's instance and the job finishes (attempt 1).
#   cut: the job runs; one etcd member is killed (a member lost changes nothing), then node-1's
#   link goes down mid-run: its coordinator hears every other node go silent at once and steps
#   down (it cannot resign, etcd being out of its reach too: its lease lapses); node-2 and
#   node-3 lose it, and the first of them to stand by is elected and takes over; the spare takes node-1's instance and the job finishes (attempt 1,
#   counted as a restart). node-1's launcher, cut off from etcd too, stops its ranks and exits
#   3 at its rendezvous timeout.
#   Never two coordinators: node-1's coordinator journal ends (with `coordinator-stepped-down`
#   after the cut) no later than the next one's `coordinator-elected`. No process is left in a
#   node's namespace (node-1..3; node-4..6 hold etcd).
#
#   coordinator_ha_netns_test.sh BUILD_DIR   (BUILD_DIR holds compiler/pai-compile and
#                                            launcher/pai-launch)
#
# Exit status: 0 passed, 1 failed (with every launcher's output), 2 usage, 77 skipped (not root,
# no `ip netns`, no etcd).
set -euo pipefail

(($# == 1)) || { echo "usage: coordinator_ha_netns_test.sh BUILD_DIR" >&2; exit 2; }
build=$(realpath "$1")
compiler=$build/compiler/pai-compile
launcher=$build/launcher/pai-launch
readonly ETCD=/usr/bin/etcd
readonly TIMEOUT=${PAI_NETNS_TIMEOUT:-30}
readonly SUBNET=10.251.0
source_dir=$(CDPATH= cd -- "$(dirname -- "$0")/../../.." && pwd -P)

TEST=coordinator_ha_netns_test
source "$(dirname "$0")/netns_lib.sh"

for tool in "$compiler" "$launcher"; do [[ -x $tool ]] || fail "no $tool"; done
[[ -x $ETCD ]] || skip "$ETCD is missing: install etcd-server (scripts/deps.sh)"
netns_init
netns_network 6

# --- etcd: member m1..m3 in node-4..6's namespaces.
cluster=""
for m in 1 2 3; do cluster+="${cluster:+,}m$m=http://$SUBNET.$((m + 3)):2380"; done
start_etcd() {
  local m=$1 at=$SUBNET.$(($1 + 3))
  outputs+=("$work/etcd-m$m.log")
  ip netns exec "$(node_ns $((m + 3)))" "$ETCD" --name "m$m" --data-dir "$work/etcd-m$m" \
    --listen-client-urls "http://$at:2379" --advertise-client-urls "http://$at:2379" \
    --listen-peer-urls "http://$at:2380" --initial-advertise-peer-urls "http://$at:2380" \
    --initial-cluster "$cluster" --initial-cluster-token "pai-ha-$$" \
    --initial-cluster-state new --heartbeat-interval 50 --election-timeout 500 \
    >"$work/etcd-m$m.log" 2>&1 &
  pids[etcd/m$m]=$!
}
for m in 1 2 3; do start_etcd "$m"; done
# Healthy once a write goes through (a leader is elected), asked from node-1's namespace.
deadline=$((SECONDS + TIMEOUT))
until ip netns exec "$(node_ns 1)" /usr/bin/python3 - "$SUBNET.4" <<'PY' 2>/dev/null
import sys, urllib.request
body = b'{"key": "cGFpLWhlYWx0aA==", "value": "b2s="}'
urllib.request.urlopen("http://%s:2379/v3/kv/put" % sys.argv[1], body, timeout=1).read()
PY
do
  ((SECONDS < deadline)) || fail "etcd never answered"
  sleep 0.2
done
say "etcd: 3 members on $SUBNET.4-6"

# The latest time, in ms since the epoch, of any record of journal $1.
last_record_ms() {
  /usr/bin/python3 - "$1" <<'PY'
import datetime, json, sys
last = 0
for line in open(sys.argv[1]):
    stamp = datetime.datetime.strptime(json.loads(line)["time"], "%Y-%m-%dT%H:%M:%S.%fZ")
    last = max(last, int(stamp.replace(tzinfo=datetime.timezone.utc).timestamp() * 1000 + 0.5))
print(last)
PY
}

# Compiles and starts scenario $1's job (node-1, node-2 and the spare node-3; attempt 0 runs
# until stopped, the attempt after the takeover ends at once) and waits until it runs with its
# spare standing by.
start_job() {
  local scenario=$1 n deadline=$((SECONDS + TIMEOUT))
  mkdir -p "$work/$scenario" "$work/$scenario-ranks"
  cat >"$work/$scenario.yaml" <<SPEC
apiVersion: pai/v1
kind: Job
name: pai-ha-$scenario-$$
hosts:
  - {name: node-1, address: $SUBNET.1}
  - {name: node-2, address: $SUBNET.2}
spares:
  - {name: node-3, address: $SUBNET.3}
coordinator:
  ha:
    etcd: [http://$SUBNET.4:2379, http://$SUBNET.5:2379, http://$SUBNET.6:2379]
    lease: 2s
roles:
  worker:
    instances: 2
    command: |
      touch $work/$scenario-ranks/rank-\$RANK.attempt-\$PAI_RESTART_COUNT
      [ "\$PAI_RESTART_COUNT" = 0 ] && exec sleep 300
      exit 0
faultTolerance:
  restart: {maxRestarts: 2}
  gracePeriod: 1s
sanityCheck: {enabled: false}
SPEC
  compile_spec "$scenario"
  for n in 1 2 3; do start_launcher "$scenario/node-$n" "$n" --node "node-$n"; done
  until [[ -e $work/$scenario-ranks/rank-0.attempt-0 && -e $work/$scenario-ranks/rank-1.attempt-0 ]] &&
    grep -q "standby: node-3" "$work/$scenario/node-3.err"; do
    ((SECONDS < deadline)) || fail "$scenario: the job never started with its spare standing by"
    sleep 0.1
  done
}

# After node-1's coordinator went in scenario $1: node-2 and node-3 finish the job from
# attempt 1, one of them elected after node-1's coordinator journal ended. Sets `next` (the
# new leader) and `elected_ms`.
expect_takeover() {
  local scenario=$1 n last_ms
  expect_success "$scenario/node-2" "$scenario/node-3"
  [[ -e $work/$scenario-ranks/rank-0.attempt-1 && -e $work/$scenario-ranks/rank-1.attempt-1 ]] ||
    fail "$scenario: the job did not run again from attempt 1: $(ls "$work/$scenario-ranks")"
  next=""
  for n in 2 3; do
    if grep -q '"event":"coordinator-elected"' "$work/$scenario/node-$n.logs/coordinator/events.jsonl" 2>/dev/null; then
      next=node-$n
    fi
  done
  [[ -n $next ]] || fail "$scenario: no launcher took over"
  elected_ms=$(coordinator_event_ms "$scenario/$next" coordinator-elected lost=node-1)
  last_ms=$(last_record_ms "$work/$scenario/node-1.logs/coordinator/events.jsonl") ||
    fail "$scenario: node-1's coordinator journal unreadable"
  ((last_ms <= elected_ms)) ||
    fail "$scenario: node-1's coordinator recorded at $last_ms, after $next was elected at $elected_ms"
  grep -q '"event":"job-succeeded"' "$work/$scenario/$next.logs/coordinator/events.jsonl" ||
    fail "$scenario: $next's coordinator did not end the job"
  grep -q "assigned worker-0" "$work/$scenario/node-3.err" ||
    fail "$scenario: the spare did not take node-1's instance"
}

# --- kill: node-1's launcher, which coordinates, killed with SIGKILL mid-run.
start_job kill
kill_ms=$(now_ms)
kill -KILL "${pids[kill/node-1]}"
expect_exit $((128 + 9)) kill/node-1
expect_takeover kill
node_count=3 expect_no_leftovers kill
say "kill: $next elected $((elected_ms - kill_ms)) ms after node-1's launcher was killed; the job finished on the spare"

# --- cut: one etcd member killed (a member lost changes nothing), then node-1's link cut.
start_job cut
kill -KILL "${pids[etcd/m3]}"
wait "${pids[etcd/m3]}" 2>/dev/null || true
unset "pids[etcd/m3]"
cut_ms=$(now_ms)
ip netns exec "$(node_ns 1)" ip link set eth0 down
expect_takeover cut
# node-1 is cut off from etcd too: nobody to join until its rendezvous timeout.
expect_exit 3 cut/node-1
expect_said cut/node-1 "coordinator: stepped down: every other node went silent at once"
expect_said cut/node-1 "coordinator.ha: no coordinator to join"
stepped_ms=$(coordinator_event_ms cut/node-1 coordinator-stepped-down node=node-1)
((stepped_ms <= elected_ms)) || fail "cut: node-1 stepped down at $stepped_ms, after $next was elected at $elected_ms"
node_count=3 expect_no_leftovers cut
say "cut: node-1 stepped down $((stepped_ms - cut_ms)) ms after the cut, $next elected after $((elected_ms - cut_ms)) ms; the job finished on the spare; one etcd member down"
