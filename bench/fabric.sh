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
# Prints, per setup, each run's rounds ("round 1: 32 pairs in 0.61 s, 52.4 pairs/s") and the
# median wall time of round 1 and round 2 over RUNS.
set -euo pipefail

BENCH_DIR=$(CDPATH='' cd -- "$(dirname -- "$0")" && pwd -P)
ROOT=$(dirname "$BENCH_DIR")
PAI_BUILD=${PAI_BUILD:-$ROOT/build}
DRIVER=$PAI_BUILD/tests/fabric_driver
RUNS=${RUNS:-3}
DURATION_MS=${DURATION_MS:-500}
NODES_NETNS=${NODES_NETNS:-8}
NODES_LO=${NODES_LO:-64}
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

# summary NAME: each run's round lines and the medians of round 1 and 2.
summary() {
  local out=$work/$1.out
  grep '^round' "$out"
  for r in 1 2; do
    grep "^round $r:" "$out" | awk '{ print $6 }' | sort -n |
      awk -v r="$r" '{ v[NR] = $1 } END { if (NR) printf "median round %d: %.3f s over %d runs\n", r, v[int((NR + 1) / 2)], NR }'
  done
}

echo "== netns: $NODES_NETNS nodes, $DURATION_MS ms per pair, $RUNS runs"
if $have_netns; then
  netns_network "$NODES_NETNS" 10.243.0 bench
  "$DRIVER" --addresses "$addresses" --netns "$node_namespaces" --runs "$RUNS" \
    --duration-ms "$DURATION_MS" >"$work/netns.out"
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
  --timeout-ms 30000 >"$work/lo.out"
summary lo
grep -c '^healthy' "$work/lo.out" | sed 's/^/healthy runs: /'
