#!/usr/bin/env bash
# The job-wide fabric check in real jobs (issue 15): real pai-launch processes, one per node,
# each in a network namespace of its own with a veth into a bridge (netns_lib.sh). The
# coordinator runs the check's rounds between the rendezvous and the first start; the nodes
# measure with the TCP engine over their eth0 (the spec's fabric interface).
#
#   fabric_job_netns_test.sh BUILD_DIR   (BUILD_DIR holds compiler/pai-compile and
#                                        launcher/pai-launch)
#
#   a. 4 hosts and a spare, all healthy: the check passes (measuring the spare too when it
#      joined before the rendezvous completed) and the job runs on the 4 hosts;
#   b. node-3's egress rate-limited by tc (tbf, 20 Mbit/s, under the spec's floor of
#      0.2 Gbit/s): node-3 is named bad and excluded, the spare node-5 runs its instance, and
#      the job succeeds;
#   c. node-3 and node-4, partners in round 1, cannot reach each other (a blackhole route in
#      each namespace), both otherwise healthy: the link node-3 <-> node-4 is named, its later
#      end (node-4) is excluded and the spare runs its instance;
#   d. as b without a spare: the job fails before any rank starts, with the fabric table;
#   e. the check history (sanityCheck.history): node-2 failed 2 of its last runs before this
#      job, so its `history` check fails (quarantined) and the spare runs its instance; every
#      node's run is appended to its history file;
#   f. congestion (allNodes): 4 hosts, traffic between the halves node-1,2 and node-3,4 limited
#      to 300 Mbit/s a node (htb and u32 in each namespace: an oversubscribed uplink), over the
#      floor: the pair rounds pass, the all-nodes round (node-1 <-> node-3, node-2 <-> node-4 at
#      once) reports the fabric congested and names both pairs, nobody is excluded and the job
#      runs on the 4 hosts.
#   g. GPU nodes (2 GPUs each, the fake libcuda and libnccl of tests/launcher/checks/fixtures
#      on LD_LIBRARY_PATH): every pair runs the NCCL engine after TCP; each listener's
#      ncclUniqueId reaches its partner through the coordinator (the fake NCCL logs the id every
#      rank joined with); node-3's all-reduces take 200 ms (its fake's id says so, slowing its
#      partners alike) and fall under minBusGbps: node-3 is named bad though its TCP figures
#      pass, and the spare node-5 runs its instance.
#   After each scenario no process is left in any node's namespace.
# Exit status: 0 passed, 1 failed (with every launcher's output), 2 usage, 77 skipped (not root,
# no `ip netns` or `tc`).
set -euo pipefail

(($# == 1)) || { echo "usage: fabric_job_netns_test.sh BUILD_DIR" >&2; exit 2; }
build=$(realpath "$1")
compiler=$build/compiler/pai-compile
launcher=$build/launcher/pai-launch
readonly TIMEOUT=${PAI_NETNS_TIMEOUT:-60}
readonly SUBNET=10.245.0

TEST=fabric_job_netns_test
source "$(dirname "$0")/netns_lib.sh"

[[ -x $compiler && -x $launcher ]] || fail "no pai-compile or pai-launch under $build"
command -v tc >/dev/null || skip "tc (iproute2) is not installed"
netns_init
netns_network 5

# Writes and compiles scenario $1's job: hosts node-1..4, spares $2 (a YAML flow list), the
# fabric check with a floor of 0.2 Gbit/s, sanityCheck entries $3 (YAML lines, optional);
# each rank writes its node's address to $work/$1/ranks/rank-RANK.
compile() {
  local scenario=$1 spares=$2 more=${3:-} fabric_more=${4:-}
  mkdir -p "$work/$scenario/ranks"
  cat >"$work/$scenario.yaml" <<EOF
apiVersion: pai/v1
kind: Job
name: pai-fabric-$scenario-$$
$(hosts_yaml 4)
spares: $spares
fabric: {type: ethernet, interface: eth0}
roles:
  worker:
    instances: 4
    env: {RANKS: $work/$scenario/ranks}
    command: echo \$NODE_RANK \$(hostname -I) > "\$RANKS/rank-\$RANK"
faultTolerance:
  restart: {enabled: false}
  gracePeriod: 1s
sanityCheck:
  checks: [fabric]
  fabric: {minTcpGbps: 0.2, duration: 1s, timeout: 10s, streams: 2$fabric_more}
$more
EOF
  compile_spec "$scenario"
}

# Starts scenario $1's launchers on nodes $2... (node N in namespace N).
start_nodes() {
  local scenario=$1 n
  shift
  for n in "$@"; do start_launcher "$scenario/node-$n" "$n" --node "node-$n"; done
}

# Fails unless rank files of scenario $1 name, in rank order, the node addresses $2...
expect_ranks() {
  local scenario=$1 rank=0 address got
  shift
  for address in "$@"; do
    [[ -f $work/$scenario/ranks/rank-$rank ]] || fail "$scenario: rank $rank did not run"
    got=$(<"$work/$scenario/ranks/rank-$rank")
    [[ $got == "$rank $address" ]] ||
      fail "$scenario: rank $rank wrote \"$got\", expected \"$rank $address\""
    rank=$((rank + 1))
  done
}

ns() { node_ns "$1"; }

# --- a. Healthy: the check passes, the spare stands by, the job runs on the hosts.
compile healthy "[{name: node-5, address: $SUBNET.5}]"
start_nodes healthy 1 2 3 4 5
expect_success healthy/node-{1,2,3,4,5}
expect_said healthy/node-1 "fabric check passed: "
expect_ranks healthy $SUBNET.1 $SUBNET.2 $SUBNET.3 $SUBNET.4
if grep -q "excluded" "$work/healthy/node-1.err"; then fail "healthy: a node was excluded"; fi
expect_no_leftovers healthy
say "a. healthy: passed; the job ran on node-1..4"

# --- b. A slow node is named and replaced by the spare.
tc -n "$(ns 3)" qdisc add dev eth0 root tbf rate 20mbit burst 32kbit latency 50ms
compile slow "[{name: node-5, address: $SUBNET.5}]"
start_nodes slow 1 2 3 4 5
expect_success slow/node-{1,2,3,4,5}
expect_said slow/node-1 "node-3 excluded: fabric check: node-3 is bad"
expect_said slow/node-1 "node-3 replaced by spare node-5 as worker-2"
expect_ranks slow $SUBNET.1 $SUBNET.2 $SUBNET.5 $SUBNET.4
expect_no_leftovers slow
say "b. node-3 rate-limited: named bad, node-5 ran worker-2"

# --- d. The same without a spare: the job fails with the table, before any rank starts.
compile nospare "[]"
start_nodes nospare 1 2 3 4
expect_exit 1 nospare/node-1
expect_exit 1 nospare/node-{2,3,4}
expect_said nospare/node-1 "job failed: the fabric check excluded nodes holding instances and no ready spare is left"
expect_said nospare/node-1 "round  pair"
[[ -z $(ls -A "$work/nospare/ranks") ]] || fail "nospare: ranks ran: $(ls "$work/nospare/ranks")"
expect_no_leftovers nospare
tc -n "$(ns 3)" qdisc del dev eth0 root
say "d. node-3 rate-limited, no spare: the job failed with the fabric table"

# --- c. A bad link: node-3 and node-4 (round 1's second pair; node-1 serves the coordinator,
# which every node must reach) cannot reach each other.
ip -n "$(ns 3)" route add blackhole $SUBNET.4/32
ip -n "$(ns 4)" route add blackhole $SUBNET.3/32
compile link "[{name: node-5, address: $SUBNET.5}]"
start_nodes link 1 2 3 4 5
expect_success link/node-{1,2,3,4,5}
expect_said link/node-1 "link node-3 <-> node-4 is bad"
expect_said link/node-1 "node-4 replaced by spare node-5 as worker-3"
if grep -q "node-3 excluded" "$work/link/node-1.err"; then fail "link: node-3 was excluded"; fi
expect_ranks link $SUBNET.1 $SUBNET.2 $SUBNET.3 $SUBNET.5
expect_no_leftovers link
say "c. link node-3 <-> node-4 cut: the link named, node-4 replaced by node-5"
ip -n "$(ns 3)" route del blackhole $SUBNET.4/32
ip -n "$(ns 4)" route del blackhole $SUBNET.3/32

# --- e. A node quarantined by its check history is replaced by the spare.
history=$work/check-history
mkdir -p "$history"
for t in 01 02; do
  printf '{"failed":["burn"],"node":"node-2","passed":false,"summary":"burn: GPU 1: slow","time":"2026-01-%sT00:00:00Z"}\n' "$t"
done >"$history/node-2.jsonl"
compile history "[{name: node-5, address: $SUBNET.5}]" "  history: {dir: $history}"
start_nodes history 1 2 3 4 5
expect_success history/node-{1,2,3,4,5}
expect_said history/node-2 "check history: failed: quarantined: failed 2 of its last 3 checks"
expect_said history/node-1 "node-2 replaced by spare node-5 as worker-1"
# Before the spare was ready the coordinator may have asked node-2 to run its checks again:
# still quarantined, and recorded under its own name.
expect_ranks history $SUBNET.1 $SUBNET.5 $SUBNET.3 $SUBNET.4
for n in 1 2 3 4 5; do
  [[ -f $history/node-$n.jsonl ]] || fail "history: node-$n's run was not recorded"
done
lines=$(wc -l <"$history/node-2.jsonl")
((lines >= 3)) || fail "history: node-2's file holds $lines lines, expected its runs after 2"
if grep -v '"node":"node-2"' "$history/node-2.jsonl"; then fail "history: another node's run in node-2's file"; fi
for n in 1 3 4; do
  if grep -v "\"node\":\"node-$n\"" "$history/node-$n.jsonl"; then fail "history: another node's run in node-$n's file"; fi
done
expect_no_leftovers history
say "e. node-2 quarantined by its history: node-5 ran worker-1"

# --- f. Congestion between the halves: reported by the all-nodes round, nobody excluded.
for n in 1 2 3 4; do
  tcn() { tc -n "$(ns "$n")" "$@"; }
  tcn qdisc add dev eth0 root handle 1: htb default 10
  tcn class add dev eth0 parent 1: classid 1:10 htb rate 10gbit 2>/dev/null
  tcn class add dev eth0 parent 1: classid 1:20 htb rate 300mbit 2>/dev/null
  if ((n <= 2)); then others="3 4"; else others="1 2"; fi
  for o in $others; do
    tcn filter add dev eth0 parent 1: protocol ip prio 1 u32 match ip dst "$SUBNET.$o/32" flowid 1:20
  done
done
compile congested "[]" "" ", allNodes: true"
start_nodes congested 1 2 3 4
expect_success congested/node-{1,2,3,4}
expect_said congested/node-1 "fabric check round 3 (all nodes at once, across the halves of the plan): 2 pairs of 4 nodes"
expect_said congested/node-1 "the fabric is congested; slow under load: node-1 <-> node-3 ("
expect_said congested/node-1 ", node-2 <-> node-4 ("
if grep -q "excluded" "$work/congested/node-1.err"; then
  fail "congested: a node was excluded: $(grep excluded "$work/congested/node-1.err")"
fi
expect_ranks congested $SUBNET.1 $SUBNET.2 $SUBNET.3 $SUBNET.4
expect_no_leftovers congested
for n in 1 2 3 4; do tc -n "$(ns "$n")" qdisc del dev eth0 root; done
say "f. halves limited to 300 Mbit/s: $(grep -o "all nodes at once: [^;]*" "$work/congested/node-1.err" | head -1)"
# --- g. GPU nodes: the NCCL engine after TCP, the id relayed, a slow all-reduce named.
gpu_libs=$work/gpu-libs
mkdir -p "$gpu_libs"
ln -s "$build/launcher/checks/libpai_fake_cuda.so" "$gpu_libs/libcuda.so.1"
ln -s "$build/launcher/checks/libpai_fake_nccl.so" "$gpu_libs/libnccl.so.2"
compile gpus "[{name: node-5, address: $SUBNET.5}]" "  nccl: {size: 1Mi}" ", minBusGbps: 0.05"
sed -i 's/^    instances: 4$/    instances: 4\n    resources: {gpu: 2}/' "$work/gpus.yaml"
compile_spec gpus
for n in 1 2 3 4 5; do
  # node-3 is slow as a listener (its id says so to its partner) and as a connector.
  id="node-$n:" ms=5
  if ((n == 3)); then id="ms=200;node-3:" ms=200; fi
  LD_LIBRARY_PATH=$gpu_libs PAI_FAKE_CUDA_GPUS="NVIDIA H100 80GB HBM3;NVIDIA H100 80GB HBM3" \
    PAI_FAKE_CUDA_KERNELS=1 PAI_FAKE_NCCL_SUM=1 PAI_FAKE_NCCL_MS=$ms PAI_FAKE_NCCL_ID=$id \
    PAI_FAKE_NCCL_LOG=$work/gpus/nccl-node-$n.log start_launcher "gpus/node-$n" "$n" --node "node-$n"
done
expect_success gpus/node-{1,2,3,4,5}
expect_said gpus/node-1 "NCCL GB/s"
expect_said gpus/node-1 "GB/s NCCL bus bandwidth below the floor of 0.05"
expect_said gpus/node-1 "node-3 excluded: fabric check: node-3 is bad"
expect_said gpus/node-1 "node-3 replaced by spare node-5 as worker-2"
expect_ranks gpus $SUBNET.1 $SUBNET.2 $SUBNET.5 $SUBNET.4
# Round 1: node-1 listens, node-2 connects: node-2's GPUs are ranks 2 and 3 of node-1's id.
grep -q "^rank 2 of 4 id node-1:node-1:no$" "$work/gpus/nccl-node-2.log" ||
  fail "gpus: node-2 did not join with node-1's id: $(cat "$work/gpus/nccl-node-2.log")"
grep -q "^rank 0 of 4 id node-1:node-1:no$" "$work/gpus/nccl-node-1.log" ||
  fail "gpus: node-1 did not make the id it listened with: $(cat "$work/gpus/nccl-node-1.log")"
# Every TCP figure passed: node-3 fell on NCCL alone.
if grep -q "Gbit/s below" "$work/gpus/node-1.err"; then fail "gpus: a TCP figure failed"; fi
expect_no_leftovers gpus
say "g. GPU nodes: NCCL after TCP, ids relayed; node-3's slow all-reduce named, node-5 ran worker-2"
say "passed"
