#!/bin/sh
# Many ranks on one node (issue 12): the launcher's peak RSS (VmHWM) while RANKS (default
# 1,000) quiet ranks run and each writes one line; target ≤ 64 MiB. torchrun side by side
# when torch is installed.
. "$(dirname -- "$0")/launch_lib.sh"
RANKS=${RANKS:-1000}
HOLD=${HOLD_SECONDS:-5}
plan=$(compile_job many "$RANKS" "echo rank \$RANK up; exec sleep $HOLD")

# peak_rss_mib CMD...: runs CMD to the end and prints its own process's peak RSS in MiB.
peak_rss_mib() {
  "$@" > /dev/null 2>&1 &
  pid=$!
  peak=0
  while kill -0 "$pid" 2>/dev/null; do
    kb=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || echo 0)
    [ -n "$kb" ] && [ "$kb" -gt "$peak" ] && peak=$kb
    sleep 0.2
  done
  wait "$pid" || true
  awk -v kb="$peak" 'BEGIN { printf "%.1f\n", kb / 1024 }'
}
pai=$(peak_rss_mib "$PAI_LAUNCH" run --plan "$plan" --node localhost --log-dir "$WORK/logs")
echo "pai-launch: peak RSS ${pai} MiB with $RANKS ranks (target: <= 64 MiB)"
started=$(ls "$WORK/logs/worker-0" | grep -c '^rank-' || true)
echo "pai-launch: $started rank logs written"
if have_torchrun; then
  tr=$(peak_rss_mib $TORCHRUN --standalone --nproc_per_node "$RANKS" --no_python /bin/sh -c "exec sleep $HOLD")
  echo "torchrun:   peak RSS ${tr} MiB; ratio pai-launch/torchrun $(ratio "$pai" "$tr")"
fi
