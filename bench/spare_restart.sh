#!/bin/sh
# A node lost to a spare (issue 39, item 4): the gloo DDP job of bench/torchrun_restart.sh
# (tests/launcher/commands/torchrun_ddp_job.py, scenario lose-node) on two nodes of two ranks
# and a spare, each node a loopback address of its own (127.50.60.1-3) with its own
# `pai-launch run`. After its second step of attempt 0 the last rank SIGKILLs its node's
# launcher: the coordinator loses node-2, the spare takes its instance and the job restarts at
# once (a node lost with a spare ready waits no backoff). The figure is the restart: from the
# kill to the first step of the slowest rank of attempt 1 (node-1's and the spare's), broken
# down as bench/torchrun_restart.sh does: pai's own part (the kill to the last interpreter
# running the script), Python and `import torch`, the process group, the first step. Cases:
#
#   cold:  the ranks of attempt 1 start a fresh python3 (the spare's and node-1's);
#   warm:  faultTolerance.warmStart {roles: [worker], preload: WARM_PRELOAD}: node-1's ranks
#          are forked from the interpreters that imported torch while attempt 0 ran, the
#          spare's from those it started on standby.
#
# Both with the launchers' store (masterStore: launcher). RUNS=3 CASES="cold warm"
# PAI_BUILD=build bench/spare_restart.sh; median of RUNS per case.
. "$(dirname -- "$0")/launch_lib.sh"
. "$BENCH_DIR/cluster_lib.sh"
RUNS=${RUNS:-3}
if ! "$PYTHON" -c 'import torch.distributed' 2>/dev/null; then
  echo "torch not installed (apt-get install python3-torch): nothing to measure" >&2
  exit 2
fi
JOB=$ROOT/tests/launcher/commands/torchrun_ddp_job.py
export GLOO_SOCKET_IFNAME=lo PYTHONDONTWRITEBYTECODE=1 OMP_NUM_THREADS=1
PRELOAD=${WARM_PRELOAD:-torch, torch.distributed.elastic.multiprocessing.errors}

# compile_spare_job NAME OUT WARM: the job into $WORK/NAME, its ranks' files in OUT; WARM 1
# turns warm starts on. Prints the plan's path.
compile_spare_job() {
  local name=$1 out=$2 warm=""
  [ "$3" = 1 ] && warm="  warmStart: {roles: [worker], preload: [$PRELOAD]}"
  cat > "$WORK/$name.yaml" <<SPEC
apiVersion: pai/v1
kind: Job
name: $name
framework: pytorch
masterStore: launcher
portRange: {min: 47600, max: 47699}
sanityCheck: {enabled: false}
hosts:
  - {name: node-1, address: 127.50.60.1}
  - {name: node-2, address: 127.50.60.2}
spares:
  - {name: node-3, address: 127.50.60.3}
roles:
  worker:
    instances: 2
    nprocPerNode: 2
    envConvention: torchrun
    command: [$PYTHON, $JOB, $out, lose-node]
faultTolerance:
  restart: {maxRestarts: 1}
$warm
SPEC
  "$PAI_COMPILE" "$WORK/$name.yaml" -o "$WORK/$name" > /dev/null
  echo "$WORK/$name/plan.json"
}

# run_once CASE OUT: prints "RESTART_S LAUNCH_S IMPORT_S GROUP_S STEP_S". Not in $(...): a
# subshell cannot tell its launchers from others (cluster_lib.sh's ours_running).
run_once() {
  local case=$1 out=$2 plan warm=0 k
  [ "$case" = warm ] && warm=1
  mkdir -p "$out/logs"
  plan=$(compile_spare_job "spare-$case-$(basename "$out")" "$out" "$warm")
  LAUNCHER_PIDS=""
  start_cluster "$plan" 2 "$out/logs"
  start_launcher "$plan" 3 "$out/logs"
  # node-2's launcher is killed by its rank; the others end with the job.
  set -- $LAUNCHER_PIDS
  wait_pids 120 "$2" 2> /dev/null
  wait_pids 120 "$1" "$3"
  if [ "$FAILED" != 0 ] || [ ! -e "$out/killed" ]; then
    echo "error: the job did not finish (see $out/logs)" >&2
    cat "$out"/logs/node-*.err >&2
    exit 1
  fi
  "$PYTHON" - "$out" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
killed = float(open(os.path.join(out, "killed")).read())
times = [json.load(open(p)) for p in glob.glob(os.path.join(out, "attempt-1", "times-*"))]
if len(times) != 4:
    sys.exit("error: %d ranks of attempt 1 stepped, not 4 (%s)" % (len(times), out))
last = {k: max(t[k] for t in times) for k in ("started", "imported", "grouped", "stepped")}
print("%.2f %.2f %.2f %.2f %.2f" % (
    last["stepped"] - killed, last["started"] - killed, last["imported"] - last["started"],
    last["grouped"] - last["imported"], last["stepped"] - last["grouped"]))
PY
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "load average before: $(load_average)"
printf '%-6s %12s %8s %8s %8s %8s\n' case "restart (s)" launch import group step
for case in ${CASES:-cold warm}; do
  for f in restarts launch import group step; do : > "$WORK/$f"; done
  run=1
  while [ "$run" -le "$RUNS" ]; do
    run_once "$case" "$WORK/$case-$run" > "$WORK/result"
    result=$(cat "$WORK/result")
    i=1
    for f in restarts launch import group step; do
      echo "$result" | cut -d' ' -f$i >> "$WORK/$f"
      i=$((i + 1))
    done
    run=$((run + 1))
  done
  printf '%-6s %12s %8s %8s %8s %8s\n' "$case" "$(median < "$WORK/restarts")" \
    "$(median < "$WORK/launch")" "$(median < "$WORK/import")" "$(median < "$WORK/group")" \
    "$(median < "$WORK/step")"
done
echo "load average after: $(load_average)"
