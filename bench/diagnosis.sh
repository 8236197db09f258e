#!/bin/sh
# How fast, and how falsely, the diagnosis names the culprit (design §12, issue 14). Each case
# is a real 2-node x 2-rank gloo DDP job (tests/launcher/multi_node/diagnosis_job.py, Debian's
# python3-torch), each node a real pai-launch on its own loopback address, node-1 running the
# coordinator:
#   slow     rank 3 computes SLOWDOWN times longer per step from step 0 (default 1.3: 30%)
#   hang     rank 1 blocks at step 10 outside any collective; diagnosis.hangAfter HANG_AFTER
#   healthy  RUNS runs of HEALTHY_STEPS steps: every verdict is a false one
# and, as root, on real links (issue 14, 7c and 7d): NETNS_RUNS runs (default 3) of
# tests/launcher/multi_node/diagnosis_netns_test.sh with 1 s heartbeats, 4 nodes and a spare
# in network namespaces, one gloo rank each:
#   link     node-3's egress limited to 5 Mbit/s (tc) from the start: RankCommSlow naming it,
#            timed from the first step
#   drop     the switch drops what node-3 sends at step 25: node-3 excluded (by the
#            diagnosis, or, when it suspects a link of either end, by the fabric check before
#            the restart it orders), and its instance started on the spare
# The faulty rank writes the wall-clock time its fault began (FAULT_STAMP); the latency is the
# time from there to the coordinator's `diagnosis` record. The diagnosis settings are the
# spec's defaults unless SLOW_FACTOR / SLOW_WINDOWS are set.
#
#   bench/diagnosis.sh                 # RUNS=10 SLOWDOWN=1.3 HANG_AFTER=10s
#   PAI_BUILD=build-mine RUNS=3 bench/diagnosis.sh
. "$(dirname "$0")/launch_lib.sh"
. "$BENCH_DIR/cluster_lib.sh"

RUNS=${RUNS:-10}
SLOWDOWN=${SLOWDOWN:-1.3}
HANG_AFTER=${HANG_AFTER:-10s}
HEALTHY_STEPS=${HEALTHY_STEPS:-300}
if ! "$PYTHON" -c 'import torch' 2>/dev/null; then
  echo "error: $PYTHON has no torch (apt-get install python3-torch)" >&2
  exit 1
fi
script=$ROOT/tests/launcher/multi_node/diagnosis_job.py
settings="hangAfter: $HANG_AFTER"
[ -z "${SLOW_FACTOR:-}" ] || settings="$settings, slowFactor: $SLOW_FACTOR"
[ -z "${SLOW_WINDOWS:-}" ] || settings="$settings, slowWindows: $SLOW_WINDOWS"

# run_case NAME SCENARIO ENV HANG_YAML: runs one job; sets JOURNAL and STAMP (its files).
run_case() {
  local name=$1 scenario=$2 env=$3 hang=$4 plan
  STAMP=$WORK/$name.fault
  plan=$(compile_cluster "$name" 2 60 47500 \
    "SCENARIO=$scenario $env FAULT_STAMP=$STAMP PYTHONPATH=$ROOT/sdk/python GLOO_SOCKET_IFNAME=lo OMP_NUM_THREADS=1 exec $PYTHON $script" \
    "faultTolerance: {restart: {maxRestarts: 1, backoff: 1s}, hang: {$hang}, diagnosis: {$settings}}" \
    "nprocPerNode: 2")
  LAUNCHER_PIDS=""
  start_cluster "$plan" 2 "$WORK/$name.logs"
  # shellcheck disable=SC2086 # a list of PIDs
  wait_pids 600 $LAUNCHER_PIDS
  [ "$FAILED" = 0 ] || echo "warning: $FAILED launcher(s) of $name did not exit 0" >&2
  JOURNAL=$WORK/$name.logs/coordinator/events.jsonl
}

# report CASE CLASS: one line for a fault case. The verdict is the first `diagnosis` record's
# `class` and `rank`, which it writes in that order (docs/journal.md, schemas/journal.schema.json).
report() {
  local at began verdict
  verdict=$(grep -o '"event":"diagnosis".*' "$JOURNAL" | head -n 1 |
    sed 's/.*"class":"\([A-Za-z]*\)".*"rank":\([0-9-]*\).*/\1 rank \2/')
  if [ ! -s "$STAMP" ]; then
    printf '%-8s %-28s %s\n' "$1" "${verdict:-none}" "the faulty rank wrote no stamp"
    return
  fi
  began=$(cat "$STAMP")
  if at=$($EVENT_TIMES first diagnosis --field class="$2" "$JOURNAL"); then
    printf '%-8s %-28s %8d ms\n' "$1" "$verdict" "$((at - began))"
  else
    printf '%-8s %-28s %s\n' "$1" "${verdict:-none}" "not named"
  fi
}

echo "diagnosis: 2 nodes x 2 gloo ranks; diagnosis {$settings}; load $(load_average)"
printf '%-8s %-28s %s\n' case "first verdict" "latency from the fault"
run_case diag-slow slow "SLOWDOWN=$SLOWDOWN" "enabled: false"
report slow RankNonCommSlow
run_case diag-hang hang "" "interval: 30s"
report hang RankNonCommHang

false_verdicts=0
run=1
while [ "$run" -le "$RUNS" ]; do
  run_case "diag-healthy-$run" healthy "STEPS=$HEALTHY_STEPS" "enabled: false"
  n=$(grep -c '"event":"diagnosis"' "$JOURNAL" || true)
  [ "$n" = 0 ] || grep '"event":"diagnosis"' "$JOURNAL" | sed 's/^/  false: /'
  false_verdicts=$((false_verdicts + n))
  run=$((run + 1))
done
echo "healthy  $RUNS runs of $HEALTHY_STEPS steps: $false_verdicts false verdict(s); load $(load_average)"

# The network cases: the test says (on stderr) "a. ... in N ms" and "b. ... in N ms; ... M ms after".
NETNS_RUNS=${NETNS_RUNS:-3}
netns_test=$ROOT/tests/launcher/multi_node/diagnosis_netns_test.sh
if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null || ! command -v tc >/dev/null; then
  echo "link, drop: skipped (need root, ip and tc for network namespaces)"
  exit 0
fi
run=1
while [ "$run" -le "$NETNS_RUNS" ]; do
  log=$WORK/netns-$run.err
  if PAI_NETNS_HEARTBEAT_MS=1000 bash "$netns_test" "$PAI_BUILD" >/dev/null 2>"$log"; then
    out=$(grep "^diagnosis_netns_test: [ab]\. " "$log")
    link=$(echo "$out" | sed -n 's/.*a\. .* in \([0-9]*\) ms from the first step;.*/\1/p')
    how=$(echo "$out" | sed -n 's/.*b\. node-3 dropping packets: \(.*\) in [0-9]* ms;.*/\1/p')
    drop=$(echo "$out" | sed -n 's/.*b\. .* in \([0-9]*\) ms;.*/\1/p')
    spare=$(echo "$out" | sed -n 's/.* started on node-5 \([0-9]*\) ms after.*/\1/p')
    printf 'link     RankCommSlow node-3          %8d ms\n' "$link"
    printf 'drop     node-3 excluded              %8d ms (%s); spare started at %d ms\n' \
      "$drop" "$how" "$spare"
  else
    echo "link, drop: run $run failed: $(grep FAILED "$log" | head -n 1)"
  fi
  run=$((run + 1))
done
echo "network  $NETNS_RUNS run(s) on real links; load $(load_average)"
