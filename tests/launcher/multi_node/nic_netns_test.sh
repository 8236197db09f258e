#!/usr/bin/env bash
# NIC telemetry, fabric lint and NCCL transfer evidence with real launchers (issue 33): nodes
# that are network namespaces on a bridge (netns_lib.sh), each launcher with a sysfs tree of its
# own (PAI_SYSFS_ROOT) built by tests/support/fake_sysfs from the kernel's documented layout:
# a RoCE port mlx5_0/1 (netdev eth2, MTU 4200, RoCE v2 GID at index 3) and a GPU beside it. The
# test machines have no RDMA NIC and no GPU: these trees and fake_nccl_job stand in for them.
#
#   a. healthy: HEALTHY_RUNS (default 10, as the issue asks) runs of a 4-node job give no `nic` record.
#   b. errors: during the run node-3's hw_counters/local_ack_timeout_err rises by 500/s: a `nic`
#      verdict names node-3 mlx5_0/1 within 3 heartbeats (plus one for the sample that starts
#      the window) of the first rise, and no other node.
#   c. flapping and the history: node-2's counters/link_downed rises twice, in two episodes: a
#      `flapping` verdict each time, sent to node-2, whose check history
#      (sanityCheck.history: 2 failures of 5 quarantine) records both; the next run of the job
#      finds node-2 quarantined and the spare node-5 runs its instance.
#   d. lint: node-2's MTU is 1500, node-3's NCCL another version, node-4's GPU across the
#      socket from its NIC: a `fabric-lint` record names each at the rendezvous; with `warn`
#      the job runs on node-1..4; with `exclude` (only node-2 misconfigured) the spare takes it.
#   e. NCCL transfers: 4 ranks of fake_nccl_job drive pai's NCCL profiler plugin (through its
#      real entry points, as NCCL 2.28.9 does) with no TCP between them; the links touching
#      rank 2 (node-3) are 5x slower: RankCommSlow names node-3 from the transfers alone, and
#      its evidence names node-3's port, whose ACK timeouts rise meanwhile.
#   After each scenario no process is left in any node's namespace.
#
#   nic_netns_test.sh BUILD_DIR   (BUILD_DIR holds compiler/pai-compile, launcher/pai-launch,
#                                 tests/fake_sysfs and tests/fake_nccl_job)
#
# Exit status: 0 passed, 1 failed (with every launcher's output), 2 usage, 77 skipped (not root,
# no `ip netns`).
set -euo pipefail

(($# == 1)) || { echo "usage: nic_netns_test.sh BUILD_DIR" >&2; exit 2; }
build=$(realpath "$1")
compiler=$build/compiler/pai-compile
launcher=$build/launcher/pai-launch
fake_sysfs=$build/tests/fake_sysfs
fake_nccl_job=$build/tests/fake_nccl_job
readonly TIMEOUT=${PAI_NETNS_TIMEOUT:-90}
readonly SUBNET=10.249.0
readonly HEARTBEAT_MS=${PAI_NETNS_HEARTBEAT_MS:-200}
source_dir=$(CDPATH= cd -- "$(dirname -- "$0")/../../.." && pwd -P)

TEST=nic_netns_test
source "$(dirname "$0")/netns_lib.sh"

for tool in "$compiler" "$launcher" "$fake_sysfs" "$fake_nccl_job"; do
  [[ -x $tool ]] || fail "no $tool"
done
netns_init
netns_network 5

readonly PORT=class/infiniband/mlx5_0/ports/1

# A fresh sysfs tree for node $1 in $work/sys/$2/node-$1: the RoCE port and a GPU on the same
# PCIe switch; extra `port` arguments $3... (key=value) change the port.
node_tree() {
  local n=$1 scenario=$2 root
  shift 2
  root=$work/sys/$scenario/node-$n
  rm -rf "$root"
  "$fake_sysfs" port "$root" "pci=pci0000:16/0000:16:02.0/0000:17:00.0/0000:18:00.0" "$@"
  "$fake_sysfs" gpu "$root" pci0000:16/0000:16:02.0/0000:17:00.0/0000:19:00.0 0
  "$fake_sysfs" set "$root" module/nvidia/version 580.159.04
  echo "$root"
}

# A folder holding a libnccl.so.2 whose real name says NCCL version $1.
nccl_dir() {
  local dir=$work/nccl-$1
  mkdir -p "$dir"
  : >"$dir/libnccl.so.$1"
  ln -sf "libnccl.so.$1" "$dir/libnccl.so.2"
  echo "$dir"
}

# Writes and compiles scenario $1's job: hosts node-1..4, spares $2 (a YAML flow list), the
# rank's command $3, faultTolerance entries $4, sanityCheck entries $5 (YAML lines).
compile() {
  local scenario=$1 spares=$2 command=$3 tolerance=$4 checks=$5
  mkdir -p "$work/$scenario"
  cat >"$work/$scenario.yaml" <<SPEC
apiVersion: pai/v1
kind: Job
name: pai-nic-$scenario-$$
$(hosts_yaml 4)
spares: $spares
fabric: {type: roce, interface: eth0, hcas: [mlx5_0], gidIndex: 3, trafficClass: 106}
roles:
  worker:
    instances: 4
    command: $command
faultTolerance:
  restart: {enabled: false}
  gracePeriod: 1s
$tolerance
sanityCheck:
  checks: [network]
$checks
SPEC
  compile_spec "$scenario"
}

# Starts scenario $1's launcher of node $2 with its own sysfs tree ($work/sys/$1/node-$2) and
# LD_LIBRARY_PATH $3 (default: a folder whose NCCL is 2.28.9).
start_node() {
  local scenario=$1 n=$2 libs=${3:-$(nccl_dir 2.28.9)}
  PAI_SYSFS_ROOT=$work/sys/$scenario/node-$n LD_LIBRARY_PATH=$libs \
    start_launcher "$scenario/node-$n" "$n" --node "node-$n"
}

# The `nic` records of scenario $1's coordinator journal, one line each: node port problem.
nic_verdicts() {
  /usr/bin/python3 - "$work/$1/node-1.logs/coordinator/events.jsonl" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    try:
        r = json.loads(line)
    except ValueError:
        continue
    if r.get("event") == "nic":
        print(r["node"], r["port"], r["problem"])
PY
}

# --- a. Healthy runs name nothing.
for ((run = 1; run <= ${HEALTHY_RUNS:-10}; run++)); do
  scenario=healthy$run
  for n in 1 2 3 4; do node_tree "$n" "$scenario" >/dev/null; done
  compile "$scenario" "[]" "sleep 2" "" ""
  for n in 1 2 3 4; do start_node "$scenario" "$n"; done
  expect_success "$scenario"/node-{1,2,3,4}
  [[ -z $(nic_verdicts "$scenario") ]] || fail "$scenario: $(nic_verdicts "$scenario")"
  expect_no_leftovers "$scenario"
done
say "a. ${HEALTHY_RUNS:-10} healthy runs: no nic verdict"

# --- b. Rising errors on node-3 name node-3 alone, within 3 heartbeats.
for n in 1 2 3 4; do node_tree "$n" errors >/dev/null; done
compile errors "[]" "sleep 6" "" ""
for n in 1 2 3 4; do start_node errors "$n"; done
expect_said errors/node-1 "coordinator: starting worker-0"
sleep 1
first_rise=$(now_ms)
for _ in $(seq 1 30); do
  "$fake_sysfs" add "$work/sys/errors/node-3" "$PORT/hw_counters/local_ack_timeout_err" 50
  sleep 0.1
done
expect_success errors/node-{1,2,3,4}
[[ $(nic_verdicts errors) == "node-3 mlx5_0/1 errors" ]] ||
  fail "errors: expected node-3 alone, got: $(nic_verdicts errors)"
named=$(coordinator_event_ms errors/node-1 nic node=node-3)
took=$((named - first_rise))
((took <= 4 * HEARTBEAT_MS + 300)) || fail "errors: node-3 named after ${took} ms"
expect_said errors/node-1 "nic (critical): node-3 mlx5_0/1 (eth2): hw_counters/local_ack_timeout_err"
expect_no_leftovers errors
say "b. node-3's errors: named in ${took} ms (heartbeat ${HEARTBEAT_MS} ms), nobody else"

# --- c. A flapping port: named in each episode, recorded in node-2's history, quarantined.
history=$work/history
mkdir -p "$history"
history_checks="  history: {dir: $history, window: 5, maxFailures: 2}"
for n in 1 2 3 4 5; do node_tree "$n" flaps >/dev/null; done
compile flaps "[{name: node-5, address: $SUBNET.5}]" "sleep 6" "" "$history_checks"
for n in 1 2 3 4 5; do start_node flaps "$n"; done
expect_said flaps/node-1 "coordinator: starting worker-0"
sleep 1
"$fake_sysfs" add "$work/sys/flaps/node-2" "$PORT/counters/link_downed" 1
sleep 2  # seen clear for several heartbeats: the episode ends
"$fake_sysfs" add "$work/sys/flaps/node-2" "$PORT/counters/link_downed" 1
expect_success flaps/node-{1,2,3,4,5}
[[ $(nic_verdicts flaps) == $'node-2 mlx5_0/1 flapping\nnode-2 mlx5_0/1 flapping' ]] ||
  fail "flaps: expected node-2 flapping twice, got: $(nic_verdicts flaps)"
(($(grep -c '"failed":\["nic"\]' "$history/node-2.jsonl") == 2)) ||
  fail "flaps: node-2's history: $(cat "$history/node-2.jsonl")"
expect_no_leftovers flaps
# The next run: node-2's history check quarantines it; the spare runs worker-1.
for n in 1 2 3 4 5; do node_tree "$n" flaps2 >/dev/null; done
compile flaps2 "[{name: node-5, address: $SUBNET.5}]" 'echo $(hostname -I) > '"$work"'/flaps2/worker-$NODE_RANK' "" \
  "$history_checks"
for n in 1 2 3 4 5; do start_node flaps2 "$n"; done
expect_success flaps2/node-{1,2,3,4,5}
expect_said flaps2/node-1 "node-2 replaced by spare node-5 as worker-1"
[[ $(<"$work/flaps2/worker-1") == "$SUBNET.5" ]] || fail "flaps2: worker-1 ran on $(<"$work/flaps2/worker-1")"
expect_no_leftovers flaps2
say "c. node-2's flapping port: named twice, recorded in its history, quarantined, replaced"

# --- d. The fabric lint at the rendezvous.
node_tree 1 lint >/dev/null
node_tree 2 lint mtu=1500 >/dev/null
node_tree 3 lint >/dev/null
root=$(node_tree 4 lint)
rm -rf "$root/devices/pci0000:16/0000:16:02.0/0000:17:00.0/0000:19:00.0" "$root/bus/pci/devices/0000:19:00.0"
"$fake_sysfs" gpu "$root" pci0000:b0/0000:b0:02.0/0000:b1:00.0 1
compile lint "[]" "true" "" ""
for n in 1 2 4; do start_node lint "$n"; done
start_node lint 3 "$(nccl_dir 2.21.5)"
expect_success lint/node-{1,2,3,4}
expect_said lint/node-1 "fabric lint: node-2 port.mlx5_0/1.mtu is 1500, the other nodes' 4200"
expect_said lint/node-1 "fabric lint: node-3 ncclLibrary is libnccl.so.2.21.5, the other nodes' libnccl.so.2.28.9"
expect_said lint/node-1 "fabric lint: node-4 gpu0.nic is mlx5_0 SYS, the other nodes' mlx5_0 PIX"
coordinator_event_ms lint/node-1 fabric-lint >/dev/null
expect_no_leftovers lint
for n in 1 3 4 5; do node_tree "$n" exclude >/dev/null; done
node_tree 2 exclude mtu=1500 >/dev/null
compile exclude "[{name: node-5, address: $SUBNET.5}]" 'echo $(hostname -I) > '"$work"'/exclude/worker-$NODE_RANK' "" "  lint: exclude"
for n in 1 2 3 4 5; do start_node exclude "$n"; done
expect_success exclude/node-{1,3,4,5}
expect_exit 0 exclude/node-2
expect_said exclude/node-1 "node-2 replaced by spare node-5 as worker-1"
[[ $(<"$work/exclude/worker-1") == "$SUBNET.5" ]] || fail "exclude: worker-1 ran on $(<"$work/exclude/worker-1")"
expect_no_leftovers exclude
say "d. lint: MTU, NCCL and GPU path named at the rendezvous; with exclude the spare took node-2"

# --- e. NCCL transfers name the slow node with no TCP between the ranks.
for n in 1 2 3 4; do node_tree "$n" nccl >/dev/null; done
compile nccl "[]" "$fake_nccl_job 10 2 5" "  diagnosis: {ncclProfiler: true, slowWindows: 5}" ""
for n in 1 2 3 4; do start_node nccl "$n"; done
expect_said nccl/node-1 "coordinator: starting worker-0"
# node-3's port also times out ACKs from the start: its NIC verdict (2 heartbeats) comes before
# the link verdict (5 windows), whose evidence then names the port and counter.
(
  for _ in $(seq 1 80); do
    "$fake_sysfs" add "$work/sys/nccl/node-3" "$PORT/hw_counters/local_ack_timeout_err" 50
    sleep 0.1
  done
) &
errors_pid=$!
expect_success nccl/node-{1,2,3,4}
wait "$errors_pid"
expect_said nccl/node-1 "RankCommSlow: NCCL transfers to and from node-3 run at"
if grep -q "RankCommSlow: NCCL transfers to and from node-[124]" "$work/nccl/node-1.err"; then
  fail "nccl: another node named: $(grep RankCommSlow "$work/nccl/node-1.err")"
fi
grep "RankCommSlow: NCCL transfers to and from node-3" "$work/nccl/node-1.err" |
  grep -q "its NIC: node-3 mlx5_0/1 (eth2): hw_counters/local_ack_timeout_err" ||
  fail "nccl: the link verdict does not name node-3's port: $(grep RankCommSlow "$work/nccl/node-1.err")"
expect_no_leftovers nccl
say "e. NCCL transfers 5x slower on node-3's links: RankCommSlow named node-3 alone, with its port's ACK timeouts"
