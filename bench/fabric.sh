#!/usr/bin/env bash
# The fabric check's rounds (issue 15; design §10: a bad node or link localized in <= 3
# rounds): wall time per round and pairs per second, with the TCP engine
# (launcher/checks/fabric_tcp.h) and the round driver (launcher/policy/fabric_rounds.h) run by
# tests/fabric_driver: every pair of a round measures at once, 4 streams both ways for
# DURATION_MS plus 10 pings.
#
#   PAI_BUILD=build-fabric RUNS=3 DURATION_MS=500 bench/fabric.sh
#
#   netns  8 nodes, each a network namespace (pai-nsbenchN-PID, tests/launcher/multi_node/
#          netns_lib.sh) with a veth into a bridge,
#          10.243.0.N; needs root (skipped otherwise)
#   lo     64 nodes on loopback addresses 127.193.0.1-64 (NODES_LO to change; past 250 nodes the
#          addresses continue in 127.194.0.x and 127.195.0.x)
#
# Every run ends with the all-nodes round (sanityCheck.fabric.allNodes; ALL_NODES=0 leaves it
# out): every node at once, paired across the halves. Prints, per setup, each run's rounds
# ("round 1: 32 pairs in 0.61 s, 52.4 pairs/s"), the median wall time of round 1, round 2 and
# the all-nodes round over RUNS, and how many runs' all-nodes round said "congested" (on these
# healthy links every one is a false finding).
set -euo pipefail

BENCH_DIR=$(CDPATH='' cd -- "$(dirname -- "$0")" && pwd -P)
ROOT=$(dirname "$BENCH_DIR")
PAI_BUILD=${PAI_BUILD:-$ROOT/build}
DRIVER=$PAI_BUILD/tests/fabric_driver
RUNS=${RUNS:-3}
DURATION_MS=${DURATION_MS:-500}
NODES_NETNS=${NODES_NETNS:-8}
NODES_LO=${NODES_LO:-64}
ALL_NODES=${ALL_NODES:-1}
all_nodes=()
[[ $ALL_NODES == 0 ]] || all_nodes=(--all-nodes)
[[ -x $DRIVER ]] || { echo "error: $DRIVER not built (ninja -C $PAI_BUILD fabric_driver)" >&2; exit 2; }

TEST=fabric-bench
# shellcheck source=../tests/launcher/multi_node/netns_lib.sh
source "$ROOT/tests/launcher/multi_node/netns_lib.sh"
have_netns=false
if ((EUID == 0)) && command -v ip >/dev/null; then
  have_netns=true
  netns_init # $work, and namespaces and $work removed at exit
else
  work=$(mktemp -d /tmp/pai-fabric-bench-XXXXXX)
  trap 'rm -rf -- "$work"' EXIT
fi

# median_of LABEL: the median of the numbers on stdin, "median LABEL: X s over N runs".
median_of() {
  sort -n | awk -v label="$1" '{ v[NR] = $1 } END { if (NR) printf "median %s: %.3f s over %d runs\n", label, v[int((NR + 1) / 2)], NR }'
}

# summary NAME: each run's round lines, the medians of round 1, round 2 and the all-nodes
# round (each run's last round when it ran), and the congestion findings.
summary() {
  local out=$work/$1.out
  grep '^round\|congested' "$out"
  for r in 1 2; do
    grep "^round $r:" "$out" | awk '{ print $6 }' | median_of "round $r"
  done
  if ((${#all_nodes[@]})); then
    awk '/^run /{ if (last) print last; last = "" } /^round /{ last = $6 } END { if (last) print last }' "$out" |
      median_of "all-nodes round"
    echo "all-nodes round said congested: $(grep -c '^congested' "$out" || true) of $(grep -c '^run ' "$out") runs"
  fi
}

echo "== netns: $NODES_NETNS nodes, $DURATION_MS ms per pair, $RUNS runs"
if $have_netns; then
  netns_network "$NODES_NETNS" 10.243.0 bench
  "$DRIVER" --addresses "$addresses" --netns "$node_namespaces" --runs "$RUNS" \
    --duration-ms "$DURATION_MS" "${all_nodes[@]}" >"$work/netns.out"
  summary netns
else
  echo "skipped: needs root and iproute2"
fi

echo "== loopback: $NODES_LO nodes, $DURATION_MS ms per pair, $RUNS runs"
addresses=""
for ((n = 0; n < NODES_LO; n++)); do
  addresses+="${addresses:+,}127.$((193 + n / 250)).0.$((n % 250 + 1))"
done
"$DRIVER" --addresses "$addresses" --runs "$RUNS" --duration-ms "$DURATION_MS" \
  --timeout-ms 30000 "${all_nodes[@]}" >"$work/lo.out"
summary lo
grep -c '^healthy' "$work/lo.out" | sed 's/^/healthy runs: /'
