#!/bin/sh
# The drill's scorecard (issue 34, items 3 and 5; docs/drill.md): `pai-launch drill` against the
# gloo DDP job of tests/launcher/multi_node/diagnosis_job.py, scenario drill (rank 0 saves a
# checkpoint every 25 steps; every rank starts from the newest), on two nodes of two ranks and
# a spare, each node a loopback address of its own (127.50.62.1-3) with its own `pai-launch
# run`, default heartbeats (1 s). The drill puts its five faults into worker-1 (node-2): its
# last rank SIGKILLed, stopped for HOLD (hang), held inside a gradient all-reduce it completed
# for HOLD (collective-hang), slowed to a quarter of a CPU for HOLD, and node-2's launcher
# SIGKILLed (the spare takes worker-1). The job: restart {backoff: 0s},
# diagnosis {hangAfter: 5s, slowFactor: 1.1}, hang {interval: 10s}. Prints the scorecard per
# run, then the median detect and recover times and lost steps per fault over RUNS runs. A drill
# whose faults did not all pass (exit 1) is still scored; any other failure ends the bench.
#
# RUNS=3 HOLD=30s [FAULTS=rank-kill,rank-kill] PAI_BUILD=build bench/drill_ddp.sh
. "$(dirname -- "$0")/launch_lib.sh"
. "$BENCH_DIR/cluster_lib.sh"
RUNS=${RUNS:-3}
HOLD=${HOLD:-30s}
FAULTS=${FAULTS:-rank-kill,rank-hang,collective-hang,slow-rank,node-loss}
if ! "$PYTHON" -c 'import torch.distributed' 2>/dev/null; then
  echo "torch not installed (apt-get install python3-torch): nothing to measure" >&2
  exit 2
fi
JOB=$ROOT/tests/launcher/multi_node/diagnosis_job.py
export GLOO_SOCKET_IFNAME=lo PYTHONDONTWRITEBYTECODE=1 OMP_NUM_THREADS=1

# compile_drill_job NAME OUT: the job into $WORK/NAME, its checkpoints and finish file in OUT.
# Prints the plan's path.
compile_drill_job() {
  cat > "$WORK/$1.yaml" <<SPEC
apiVersion: pai/v1
kind: Job
name: $1
framework: pytorch
portRange: {min: 47800, max: 47899}
sanityCheck: {enabled: false}
hosts:
  - {name: node-1, address: 127.50.62.1}
  - {name: node-2, address: 127.50.62.2}
spares:
  - {name: node-3, address: 127.50.62.3}
roles:
  worker:
    instances: 2
    nprocPerNode: 2
    env: {SCENARIO: drill, CHECKPOINTS: "$2/checkpoints", FINISH: "$2/finish",
          PYTHONPATH: "$ROOT/sdk/python"}
    command: [$PYTHON, $JOB]
faultTolerance:
  restart: {maxRestarts: 10, backoff: 0s}
  hang: {interval: 10s}
  diagnosis: {hangAfter: 5s, slowFactor: 1.1}
SPEC
  "$PAI_COMPILE" "$WORK/$1.yaml" -o "$WORK/$1" > /dev/null
  echo "$WORK/$1/plan.json"
}

# run_once OUT: the drill's JSON scorecard into OUT/card.json. Not in $(...): a subshell cannot
# tell its launchers from others (cluster_lib.sh's ours_running).
run_once() {
  local out=$1 plan code=0
  mkdir -p "$out/logs" "$out/checkpoints"
  plan=$(compile_drill_job "drill-$(basename "$out")" "$out")
  LAUNCHER_PIDS=""
  start_cluster "$plan" 2 "$out/logs"
  start_launcher "$plan" 3 "$out/logs"
  set -- $LAUNCHER_PIDS
  "$PAI_LAUNCH" drill --plan "$plan" --log-dir "$out/logs" --hold "$HOLD" --faults "$FAULTS" \
    --format json \
    > "$out/card.json" 2> "$out/drill.err" || code=$?
  : > "$out/finish"
  wait_pids 120 "$1" "$3"
  wait_pids 5 "$2"  # node-2's launcher was the node-loss
  if [ "$code" -gt 1 ] || [ ! -s "$out/card.json" ]; then
    echo "pai-launch drill failed (exit $code):" >&2
    cat "$out/drill.err" >&2
    exit 1
  fi
  "$PAI_LAUNCH" report "$out/logs" -o "$out/report.html" > /dev/null
}

echo "load average before: $(load_average)"
run=1
while [ "$run" -le "$RUNS" ]; do
  run_once "$WORK/run-$run"
  echo "run $run:"
  "$PYTHON" - "$WORK/run-$run/card.json" <<'PY'
import json, sys
card = json.load(open(sys.argv[1]))
for f in card["faults"]:
    if "skipped" in f:
        print("  %-15s not injected: %s" % (f["fault"], f["skipped"]))
        continue
    show = lambda v, unit="": "-" if v is None else ("%.2f%s" % (v, unit) if unit else str(v))
    print("  %-15s detect %-8s named %-5s recover %-8s lost %-4s %s" % (
        f["fault"], show(f["detectSeconds"], " s"), "yes" if f["namedRight"] else "NO",
        show(f["recoverSeconds"], " s"), show(f["lostSteps"]), f["verdict"]))
PY
  run=$((run + 1))
done
"$PYTHON" - "$WORK"/run-*/card.json <<'PY'
import json, statistics, sys
by = {}
for path in sys.argv[1:]:
    for f in json.load(open(path))["faults"]:
        by.setdefault(f["fault"], []).append(f)
print("median of %d runs:" % len(sys.argv[1:]))
print("%-15s %8s %8s %10s %10s" % ("fault", "named", "detect", "recover", "lost steps"))
def median(values):
    values = [v for v in values if v is not None]
    return "-" if not values else "%.2f" % statistics.median(values)
for fault, runs in by.items():
    runs = [f for f in runs if "skipped" not in f]
    named = sum(1 for f in runs if f["namedRight"])
    print("%-15s %8s %8s %10s %10s" % (fault, "%d/%d" % (named, len(runs)),
          median(f["detectSeconds"] for f in runs), median(f["recoverSeconds"] for f in runs),
          median(f["lostSteps"] for f in runs)))
PY
echo "load average after: $(load_average)"
