#!/bin/sh
# Many ranks on one node (issue 12): the launcher's peak RSS (VmHWM) while RANKS (default
# 1,000) quiet ranks run and each writes one line; target ≤ 64 MiB. torchrun side by side
# when torch is installed, the tools alternating round by round (RUNS, default 1;
# bench/alternate.py).
. "$(dirname -- "$0")/launch_lib.sh"
RANKS=${RANKS:-1000}
HOLD=${HOLD_SECONDS:-5}
RUNS=${RUNS:-1}
plan=$(compile_job many "$RANKS" "echo rank \$RANK up; exec sleep $HOLD")
pai="pai-launch $PAI_LAUNCH run --plan $plan --node localhost --log-dir $WORK/logs"

echo "median of $RUNS rounds: the launcher's peak RSS in MiB with $RANKS ranks (target pai-launch: <= 64 MiB)"
if have_torchrun; then
  # shellcheck disable=SC2086 # the commands are word lists
  alternate peak-rss "$RUNS" $pai \
    ::: torchrun $TORCHRUN --standalone --nproc_per_node "$RANKS" --no_python /bin/sh -c "exec sleep $HOLD"
else
  # shellcheck disable=SC2086
  alternate peak-rss "$RUNS" $pai
fi
started=$(ls "$WORK/logs/worker-0" | grep -c '^rank-' || true)
echo "pai-launch: $started rank logs written"
