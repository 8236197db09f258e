#!/bin/sh
# Restart latency (design §10: a dead process detected at once): rank 1 kills itself with
# SIGKILL on the first attempt; the figure is the time from its death to both ranks of the
# second attempt running. pai-launch (backoff 0) vs torchrun --max_restarts 1 (its default
# monitor interval, and 0.1 s); RUNS (default 5) rounds, the tools alternating within each
# round (bench/alternate.py), medians and medians of the per-round ratios.
. "$(dirname -- "$0")/launch_lib.sh"
RUNS=${RUNS:-5}
# Each process logs "start <attempt> <ns>"; rank 1 of attempt 0 logs "kill <ns>" and dies.
script='echo "start ${TORCHELASTIC_RESTART_COUNT:-0} $(date +%s%N)" >> "$STAMPS"
if [ "${TORCHELASTIC_RESTART_COUNT:-0}" = 0 ]; then
  if [ "$LOCAL_RANK" = 1 ]; then sleep 0.5; echo "kill $(date +%s%N)" >> "$STAMPS"; kill -9 $$; fi
  sleep 30
fi'
plan=$(compile_job restart 2 "$script" "faultTolerance: {restart: {maxRestarts: 1, backoff: 0}, gracePeriod: 5s}")
pai="pai-launch $PAI_LAUNCH run --plan $plan --node localhost --log-dir $WORK/logs"

echo "median of $RUNS rounds: ms from kill -9 to both ranks running again (target pai-launch: < 1000 ms)"
if have_torchrun; then
  printf '%s\n' "$script" > "$WORK/job.sh"
  # shellcheck disable=SC2086 # the commands are word lists
  alternate restart "$RUNS" $pai \
    ::: torchrun $TORCHRUN --standalone --nproc_per_node 2 --max_restarts 1 --no_python /bin/sh "$WORK/job.sh" \
    ::: torchrun-monitor-0.1 $TORCHRUN --standalone --nproc_per_node 2 --max_restarts 1 \
      --monitor_interval 0.1 --no_python /bin/sh "$WORK/job.sh"
else
  # shellcheck disable=SC2086
  alternate restart "$RUNS" $pai
  echo "torchrun not installed (apt-get install python3-torch): no ratio"
fi
