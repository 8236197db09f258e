#!/bin/sh
# Launch overhead (design §10: exec to the user's processes started < 50 ms, RSS < 16 MiB):
# pai-launch vs `torchrun --standalone`, 2 processes of /bin/true-like work, wall time and
# peak RSS of the launcher, median of RUNS (default 10).
. "$(dirname -- "$0")/launch_lib.sh"
RUNS=${RUNS:-10}
plan=$(compile_job overhead 2 "exit 0")

# measure CMD...: prints "<median wall ms> <median peak RSS KiB>" of RUNS runs.
measure() {
  "$PYTHON" - "$RUNS" "$@" <<'PY'
import os, statistics, subprocess, sys, time
runs, cmd = int(sys.argv[1]), sys.argv[2:]
walls, rss = [], []
for _ in range(runs):
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    walls.append((time.perf_counter() - t) * 1000)
    rss.append(usage.ru_maxrss)
    if status != 0: sys.exit(f"{cmd[0]} failed: status {status}")
print(f"{statistics.median(walls):.1f} {statistics.median(rss):.0f}")
PY
}

set -- $(measure "$PAI_LAUNCH" run --plan "$plan" --node localhost --log-dir "$WORK/logs")
pai_ms=$1 pai_kb=$2
echo "pai-launch: wall ${pai_ms} ms, peak RSS ${pai_kb} KiB (target: < 50 ms, < 16384 KiB)"
if have_torchrun; then
  set -- $(measure $TORCHRUN --standalone --nproc_per_node 2 --no_python /bin/true)
  echo "torchrun:   wall ${1} ms, peak RSS ${2} KiB (default --monitor_interval 5)"
  echo "ratio pai-launch/torchrun: wall $(ratio "$pai_ms" "$1"), RSS $(ratio "$pai_kb" "$2")"
  set -- $(measure $TORCHRUN --standalone --nproc_per_node 2 --monitor_interval 0.01 --no_python /bin/true)
  echo "torchrun --monitor_interval 0.01: wall ${1} ms, peak RSS ${2} KiB"
  echo "ratio pai-launch/torchrun: wall $(ratio "$pai_ms" "$1"), RSS $(ratio "$pai_kb" "$2")"
else
  echo "torchrun not installed (apt-get install python3-torch): no ratio"
fi
