#!/usr/bin/env bash
# Diagnosis on real links (issue 14, 7c and 7d): nodes that are network namespaces on a bridge
# (netns_lib.sh), each running one gloo DDP rank of diagnosis_job.py under a real pai-launch.
#
#   a. RankCommSlow: 4 nodes (SCENARIO=network: 64 KiB of gradients all-reduced every step),
#      node-3's egress rate-limited with tc (tbf, 5 Mbit/s; the test machines' kernel has no
#      netem for delay). The diagnosis must name node-3 as RankCommSlow, and neither its ring
#      neighbours, whose connections to it are slow too, nor any rank; the job still succeeds.
#   b. RankCommHang, isolation and resume: 4 nodes and a spare (SCENARIO=resume: rank 0
#      checkpoints every 10 steps). Once training is under way, the switch drops every packet
#      node-3 sends except to the coordinator's port (tc htb and u32), so every rank hangs in the
#      all-reduce. With `diagnosis: {action: isolate, hangAfter: 3s}` the coordinator must
#      name node-3 (RankCommHang) and exclude it; or, when only one link of node-3 stalled (then
#      either end could be at fault and the diagnosis names nobody), restart the job at once
#      so that the fabric check before it (beforeRestarts) finds node-3 bad. Either way the
#      job-wide hang (12 s) is not needed, node-3 alone is excluded, its instance starts on the
#      spare node-5, and the ranks resume from the last checkpoint and finish.
#   Each case says how long the coordinator took to name or exclude node-3 (its journal's time
#   less the time of the first step, a, or of the tc rule, b): bench/diagnosis.sh collects them.
#
#   diagnosis_netns_test.sh BUILD_DIR   (BUILD_DIR holds compiler/pai-compile and
#                                       launcher/pai-launch)
#
# Exit status: 0 passed, 1 failed (with every launcher's output), 2 usage, 77 skipped (not root,
# no `ip netns` or `tc`, no python3-torch).
set -euo pipefail

(($# == 1)) || { echo "usage: diagnosis_netns_test.sh BUILD_DIR" >&2; exit 2; }
build=$(realpath "$1")
compiler=$build/compiler/pai-compile
launcher=$build/launcher/pai-launch
readonly TIMEOUT=${PAI_NETNS_TIMEOUT:-120}
readonly SUBNET=10.247.0
source_dir=$(CDPATH= cd -- "$(dirname -- "$0")/../../.." && pwd -P)

TEST=diagnosis_netns_test
source "$(dirname "$0")/netns_lib.sh"

[[ -x $compiler && -x $launcher ]] || fail "no pai-compile or pai-launch under $build"
command -v tc >/dev/null || skip "tc (iproute2) is not installed"
/usr/bin/python3 -c "import torch.distributed" 2>/dev/null || skip "python3-torch is not installed"
netns_init
netns_network 5
# Writes and compiles scenario $1's job: hosts node-1..4, spares $2 (a YAML flow list), the
# rank's env entries $3 (YAML, after SCENARIO and the paths), faultTolerance entries $4,
# sanity checks $5 (YAML lines; default: the disk check).
compile() {
  local scenario=$1 spares=$2 env=$3 tolerance=$4 checks=${5:-"  checks: [disk]"}
  mkdir -p "$work/$scenario"
  cat >"$work/$scenario.yaml" <<SPEC
apiVersion: pai/v1
kind: Job
name: pai-diagnosis-$scenario-$$
$(hosts_yaml 4)
spares: $spares
roles:
  worker:
    instances: 4
    env: {PYTHONPATH: $source_dir/sdk/python, GLOO_SOCKET_IFNAME: eth0, OMP_NUM_THREADS: "1",
          $env}
    command: exec /usr/bin/python3 $source_dir/tests/launcher/multi_node/diagnosis_job.py
faultTolerance:
  gracePeriod: 1s
$tolerance
sanityCheck:
$checks
SPEC
  compile_spec "$scenario"
}

# The distinct "diagnosis (severity): Class: culprit" verdicts launcher $1 printed.
verdicts() { grep -o "diagnosis ([a-z]*): [A-Za-z]*: [^ ]*" "$work/$1.err" | sort -u || true; }

# --- a. A slow link names its node alone. The limit is in place from the start: applied
# mid-run, the first windows after it once named node-1, whose connection to node-3 slowed
# first, 2 s before node-3 itself (1 run in 7, 200 ms heartbeats, a parallel build running).
tc -n "$(node_ns 3)" qdisc add dev eth0 root tbf rate 5mbit burst 32kbit latency 50ms
compile slow "[]" "SCENARIO: network" "  restart: {enabled: false}
  diagnosis: {action: warn}"
for n in 1 2 3 4; do start_launcher "slow/node-$n" "$n" --node "node-$n"; done
wait_output slow/node-3 "rank 2 step 1$"
began=$(now_ms)
expect_success slow/node-{1,2,3,4}
expect_said slow/node-1 "RankCommSlow: node-3's TCP round-trip time is"
[[ $(verdicts slow/node-1) == "diagnosis (warning): RankCommSlow: node-3's" ]] ||
  fail "slow: expected only node-3 named RankCommSlow, the coordinator said: $(verdicts slow/node-1)"
expect_no_leftovers slow
named=$(coordinator_event_ms slow/node-1 diagnosis class=RankCommSlow)
say "a. node-3 rate-limited: named RankCommSlow, alone, in $((named - began)) ms from the first" \
  "step; $(grep -o "RankCommSlow: node-3's.*" "$work/slow/node-1.err" | head -1)"
tc -n "$(node_ns 3)" qdisc del dev eth0 root

# --- b. A node that drops its packets hangs the job: named, isolated, its instance resumed on
# the spare from the last checkpoint.
compile drop "[{name: node-5, address: $SUBNET.5}]" \
  "SCENARIO: resume, CHECKPOINTS: $work/drop/checkpoints" "  restart: {maxRestarts: 2, backoff: 1s}
  hang: {interval: 12s}
  diagnosis: {action: isolate, hangAfter: 3s}" "  checks: [disk, fabric]
  fabric: {minTcpGbps: 0.2, duration: 1s, timeout: 10s, streams: 2, beforeRestarts: true}"
for n in 1 2 3 4 5; do start_launcher "drop/node-$n" "$n" --node "node-$n"; done
wait_output drop/node-3 "rank 2 step 25$"
port=$(/usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["coordinator"]["port"])' \
  "$work/drop/plan/plan.json")
# The switch drops what node-3 sends, except to the coordinator's port: on the bridge's port
# to every other node, packets from node-3 go to a class whose queue holds none. (The kernel
# here has htb, pfifo and u32 but no prio or ingress qdisc and no drop action.) The loss is
# in the network, as a bad cable or switch port would make it: node-3 retransmits.
for n in 1 2 4 5; do
  tcs() { tc -n "pai-sw-$$" "$@"; }
  tcs qdisc add dev "port$n" root handle 1: htb default 10
  tcs class add dev "port$n" parent 1: classid 1:10 htb rate 1gbit 2>/dev/null
  tcs class add dev "port$n" parent 1: classid 1:20 htb rate 8bit ceil 8bit 2>/dev/null
  tcs qdisc add dev "port$n" parent 1:20 handle 20: pfifo limit 0
  tcs filter add dev "port$n" parent 1: protocol ip prio 1 u32 match ip dport "$port" 0xffff \
    flowid 1:10
  tcs filter add dev "port$n" parent 1: protocol ip prio 2 u32 match ip src "$SUBNET.3/32" \
    flowid 1:20
done
fault=$(now_ms)
expect_success drop/node-{1,2,3,4,5}
expect_said drop/node-1 "diagnosis (critical): RankCommHang: all 4 ranks have been inside"
expect_said drop/node-1 "node-3 replaced by spare node-5 as worker-2: "
if grep -q "coordinator: isolating node node-3" "$work/drop/node-1.err"; then
  how="named by the diagnosis and isolated"
else
  # Only the link between node-3 and one peer stalled: either end could be at fault, so the
  # diagnosis named nobody and restarted the job to test the links; the fabric check found
  # node-3 bad.
  expect_said drop/node-1 "restarting the job to test the links of "
  expect_said drop/node-1 "node-3 excluded: fabric check: node-3 is bad"
  how="its link ambiguous, restarted at once and found bad by the fabric check"
fi
! grep -q "job-wide hang" "$work/drop/node-1.err" ||
  fail "drop: the job-wide hang acted, not the diagnosis: $(grep "job-wide hang" "$work/drop/node-1.err")"
if grep "excluded" "$work/drop/node-1.err" | grep -qv "node-3"; then
  fail "drop: a node other than node-3 was excluded: $(grep "excluded" "$work/drop/node-1.err")"
fi
resumed=$(grep -o "rank 2 resumed from step [0-9]*" "$work/drop/node-5.out" | grep -o "[0-9]*$" || true)
[[ -n $resumed ]] && ((resumed >= 19)) ||
  fail "drop: rank 2 on node-5 did not resume from a checkpoint of step 19 or later: '$resumed'"
grep -q "rank 2 finished attempt 1" "$work/drop/node-5.out" || fail "drop: rank 2 did not finish on node-5"
expect_no_leftovers drop
excluded=$(coordinator_event_ms drop/node-1 node-excluded node=node-3)
resumed_at=$(coordinator_event_ms drop/node-1 start node=node-5)
say "b. node-3 dropping packets: $how in $((excluded - fault)) ms; worker-2 started on node-5" \
  "$((resumed_at - fault)) ms after the fault and resumed from step $resumed"
