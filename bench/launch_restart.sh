#!/bin/sh
# Restart latency (design §10: a dead process detected at once): rank 1 kills itself with
# SIGKILL on the first attempt; the figure is the time from its death to both ranks of the
# second attempt running. pai-launch (backoff 0) vs torchrun --max_restarts 1 (its default
# monitor interval, and 0.1 s). Median of RUNS (default 5).
. "$(dirname -- "$0")/launch_lib.sh"
RUNS=${RUNS:-5}
# Each process logs "start <attempt> <ns>"; rank 1 of attempt 0 logs "kill <ns>" and dies.
script='echo "start ${TORCHELASTIC_RESTART_COUNT:-0} $(date +%s%N)" >> "$STAMPS"
if [ "${TORCHELASTIC_RESTART_COUNT:-0}" = 0 ]; then
  if [ "$LOCAL_RANK" = 1 ]; then sleep 0.5; echo "kill $(date +%s%N)" >> "$STAMPS"; kill -9 $$; fi
  sleep 30
fi'
plan=$(compile_job restart 2 "$script" "faultTolerance: {restart: {maxRestarts: 1, backoff: 0}, gracePeriod: 5s}")

# latency CMD...: median ms from the kill to the last start of attempt 1.
latency() {
  for i in $(seq "$RUNS"); do
    rm -f "$WORK/stamps.$i"
    STAMPS="$WORK/stamps.$i" "$@" > /dev/null 2>&1 || true
    awk '$1 == "kill" { k = $2 } $1 == "start" && $2 == 1 && $3 > s { s = $3 } END { printf "%.1f\n", (s - k) / 1e6 }' "$WORK/stamps.$i"
  done | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
pai=$(latency "$PAI_LAUNCH" run --plan "$plan" --node localhost --log-dir "$WORK/logs")
echo "pai-launch: ${pai} ms from kill -9 to both ranks running again (target: < 1000 ms)"
if have_torchrun; then
  printf '%s\n' "$script" > "$WORK/job.sh"
  tr=$(latency $TORCHRUN --standalone --nproc_per_node 2 --max_restarts 1 --no_python /bin/sh "$WORK/job.sh")
  echo "torchrun (default monitor interval): ${tr} ms; ratio pai-launch/torchrun $(ratio "$pai" "$tr")"
  tr_fast=$(latency $TORCHRUN --standalone --nproc_per_node 2 --max_restarts 1 --monitor_interval 0.1 --no_python /bin/sh "$WORK/job.sh")
  echo "torchrun --monitor_interval 0.1: ${tr_fast} ms; ratio pai-launch/torchrun $(ratio "$pai" "$tr_fast")"
else
  echo "torchrun not installed (apt-get install python3-torch): no ratio"
fi
