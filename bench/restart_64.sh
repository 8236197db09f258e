#!/bin/sh
# Job-wide restart of 64 nodes (design §10: under 1 s after the failure, plus backoff and
# checks): 64 real pai-launch processes, one per node (127.50.20.x), sync mode, backoff 0,
# sanity checks off; each node's rank runs `exec sleep 1000` on attempt 0 and exits 0 on
# attempt 1, so the job then succeeds and every launcher exits 0. Once all 64 ranks run, the
# rank of node-VICTIM is killed with SIGKILL; the figure is the time from its death (its
# launcher's "exit" event) to the last node's rank of attempt 1 started (the last
# "process-started" after a "start" of attempt 1, over the 64 events.jsonl). Median of RUNS.
#
#   NODES=64 RUNS=3 VICTIM=33 PAI_BUILD=build bench/restart_64.sh
. "$(dirname -- "$0")/launch_lib.sh"
. "$BENCH_DIR/cluster_lib.sh"
NODES=${NODES:-64}
RUNS=${RUNS:-3}
VICTIM=${VICTIM:-$((NODES / 2 + 1))}

plan=$(compile_cluster "restart-$NODES" "$NODES" 20 47400 \
  'if [ "$PAI_RESTART_COUNT" = 0 ]; then exec sleep 1000; fi' \
  "faultTolerance: {mode: sync, restart: {maxRestarts: 1, backoff: 0}, gracePeriod: 1s}")

# run_once LOGDIR: one run; appends "<kill→exit> <exit→running> <kill→running>" (ms) to
# $FIGURES.
run_once() {
  local logs=$1 deadline victim_journal victim killed restarted died running
  LAUNCHER_PIDS=""
  start_cluster "$plan" "$NODES" "$logs"
  set -- $(journals "$logs" 1 "$NODES")
  deadline=$(($(now_ms) + 120000))
  until [ "$($EVENT_TIMES count process-started --attempt 0 "$@")" = "$NODES" ]; do
    if [ "$(now_ms)" -ge "$deadline" ]; then
      echo "error: not every node's rank started within 120 s" >&2
      exit 1
    fi
    sleep 0.1
  done
  victim_journal=$logs/worker-$((VICTIM - 1))/events.jsonl
  # `process-started` has `instance`, `rank`, `pid`, `log` in that order (docs/journal.md).
  victim=$(sed -n 's/.*"event":"process-started".*"pid":\([0-9]*\).*/\1/p' "$victim_journal" | head -1)
  # The victim is a rank that our own launcher started: it is ours to kill.
  killed=$(now_ms)
  kill -KILL "$victim"
  wait_pids 60 $LAUNCHER_PIDS
  if [ "$FAILED" != 0 ]; then
    echo "error: $FAILED of $NODES launchers did not exit 0; node-1 said:" >&2
    tail -5 "$logs/node-1.err" >&2
    exit 1
  fi
  restarted=$($EVENT_TIMES count process-started --attempt 1 "$@")
  if [ "$restarted" != "$NODES" ]; then
    echo "error: only $restarted of $NODES nodes started attempt 1" >&2
    exit 1
  fi
  died=$($EVENT_TIMES first exit --field "pid=$victim" "$victim_journal")
  running=$($EVENT_TIMES last process-started --attempt 1 "$@")
  echo "$((died - killed)) $((running - died)) $((running - killed))" >> "$FIGURES"
}

echo "restart_64: load average $(load_average) on $(nproc) cores (a busy machine inflates every figure)"
echo "$NODES pai-launch processes, sync mode, backoff 0, sanity checks off; kill -9 of node-$VICTIM's rank"
FIGURES=$WORK/figures
runs "$RUNS" run_once
printf '%-44s %8s %8s %8s\n' "ms (events have ms resolution)" median min max
row "kill -> victim's exit journaled" 1
row "exit -> every node's rank running again" 2
row "kill -> every node's rank running again" 3
median=$(cut -d' ' -f2 "$FIGURES" | median)
echo "target: exit -> running < 1000 ms: $median ms ($(awk -v v="$median" 'BEGIN { print (v < 1000) ? "met" : "NOT met" }'))"
echo "load average after: $(load_average)"
