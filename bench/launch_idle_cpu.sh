#!/bin/sh
# Idle supervision (design §10: under 0.5% of a core): CPU time the launcher itself uses
# while 8 quiet children sleep for IDLE_SECONDS (default 30). pai-launch vs torchrun.
. "$(dirname -- "$0")/launch_lib.sh"
SECONDS_IDLE=${IDLE_SECONDS:-30}
plan=$(compile_job idle 8 "exec sleep $((SECONDS_IDLE + 5))")

# cpu_of CMD...: starts CMD, waits 2 s, prints the % of one core CMD's own process used
# over the next SECONDS_IDLE seconds, then stops it.
cpu_of() {
  "$@" > /dev/null 2>&1 &
  pid=$!
  sleep 2
  t0=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
  sleep "$SECONDS_IDLE"
  t1=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
  kill -TERM "$pid"; wait "$pid" 2>/dev/null || true
  awk -v d=$((t1 - t0)) -v hz="$(getconf CLK_TCK)" -v s="$SECONDS_IDLE" 'BEGIN { printf "%.3f\n", 100 * d / hz / s }'
}
pai=$(cpu_of "$PAI_LAUNCH" run --plan "$plan" --node localhost --log-dir "$WORK/logs")
echo "pai-launch: ${pai}% of a core over ${SECONDS_IDLE}s with 8 idle children (target: < 0.5%)"
if have_torchrun; then
  tr=$(cpu_of $TORCHRUN --standalone --nproc_per_node 8 --no_python /bin/sleep $((SECONDS_IDLE + 5)))
  echo "torchrun:   ${tr}% of a core; ratio pai-launch/torchrun $(ratio "$pai" "$tr")"
fi
