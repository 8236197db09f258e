#!/bin/sh
# Launch overhead (design §10: exec to the user's processes started < 50 ms, RSS < 16 MiB):
# pai-launch vs `torchrun --standalone`, 2 processes of /bin/true-like work, wall time and
# peak RSS of the launcher; RUNS (default 10) rounds, the tools alternating within each round
# (bench/alternate.py), medians and medians of the per-round ratios.
. "$(dirname -- "$0")/launch_lib.sh"
RUNS=${RUNS:-10}
plan=$(compile_job overhead 2 "exit 0")
pai="pai-launch $PAI_LAUNCH run --plan $plan --node localhost --log-dir $WORK/logs"

echo "median of $RUNS rounds: wall ms, peak RSS KiB (target pai-launch: < 50 ms, < 16384 KiB)"
if have_torchrun; then
  # shellcheck disable=SC2086 # the commands are word lists
  alternate wall-rss "$RUNS" $pai \
    ::: torchrun $TORCHRUN --standalone --nproc_per_node 2 --no_python /bin/true \
    ::: torchrun-monitor-0.01 $TORCHRUN --standalone --nproc_per_node 2 --monitor_interval 0.01 \
      --no_python /bin/true
else
  # shellcheck disable=SC2086
  alternate wall-rss "$RUNS" $pai
  echo "torchrun not installed (apt-get install python3-torch): no ratio"
fi
