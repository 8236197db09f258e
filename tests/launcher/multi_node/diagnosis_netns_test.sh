#!/usr/bin/env bash
# RankCommSlow on a real slow link (issue 14, 7c): 4 nodes, each a network namespace on a
# bridge (netns_lib.sh) running one gloo DDP rank of diagnosis_job.py (SCENARIO=network:
# 64 KiB of gradients all-reduced every step) under a real pai-launch. node-3's egress is
# rate-limited with tc (tbf, 5 Mbit/s; the test machines' kernel has no netem for delay).
# The coordinator's diagnosis must name node-3 as RankCommSlow, and neither its ring
# neighbours, whose connections to it are slow too, nor any rank; the job still succeeds.
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
readonly TIMEOUT=${PAI_NETNS_TIMEOUT:-150}
readonly SUBNET=10.247.0
source_dir=$(CDPATH= cd -- "$(dirname -- "$0")/../../.." && pwd -P)

TEST=diagnosis_netns_test
source "$(dirname "$0")/netns_lib.sh"

[[ -x $compiler && -x $launcher ]] || fail "no pai-compile or pai-launch under $build"
command -v tc >/dev/null || skip "tc (iproute2) is not installed"
/usr/bin/python3 -c "import torch.distributed" 2>/dev/null || skip "python3-torch is not installed"
netns_init
netns_network 4
tc -n "$(node_ns 3)" qdisc add dev eth0 root tbf rate 5mbit burst 32kbit latency 50ms

cat >"$work/job.yaml" <<SPEC
apiVersion: pai/v1
kind: Job
name: pai-diagnosis-netns-$$
hosts:
  - {name: node-1, address: $SUBNET.1}
  - {name: node-2, address: $SUBNET.2}
  - {name: node-3, address: $SUBNET.3}
  - {name: node-4, address: $SUBNET.4}
roles:
  worker:
    instances: 4
    env: {SCENARIO: network, PYTHONPATH: $source_dir/sdk/python, GLOO_SOCKET_IFNAME: eth0,
          OMP_NUM_THREADS: "1"}
    command: exec /usr/bin/python3 $source_dir/tests/launcher/multi_node/diagnosis_job.py
faultTolerance:
  restart: {enabled: false}
  gracePeriod: 1s
  diagnosis: {action: warn}
sanityCheck:
  checks: [disk]
SPEC
"$compiler" "$work/job.yaml" -o "$work/slow/plan" >"$work/compile.out" 2>&1 ||
  fail "pai-compile job.yaml failed: $(cat "$work/compile.out")"

for n in 1 2 3 4; do start_launcher "slow/node-$n" "$n" --node "node-$n"; done
expect_success slow/node-{1,2,3,4}
expect_said slow/node-1 "RankCommSlow: node-3's TCP round-trip time is"
verdicts=$(grep -o "diagnosis ([a-z]*): [A-Za-z]*: [^ ]*" "$work/slow/node-1.err" | sort -u)
[[ $verdicts == "diagnosis (warning): RankCommSlow: node-3's" ]] ||
  fail "expected only node-3 named RankCommSlow, the coordinator said: $verdicts"
expect_no_leftovers slow
say "node-3 rate-limited: named RankCommSlow, alone; $(grep -o "RankCommSlow: node-3's.*" \
  "$work/slow/node-1.err" | head -1)"
