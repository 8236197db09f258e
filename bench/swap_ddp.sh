#!/bin/sh
# Swapping a degrading node before it fails (issue 34, items 4 and 5; docs/swap.md): the gloo
# DDP job of tests/launcher/multi_node/diagnosis_job.py, scenario swap, on two nodes of two
# ranks and a spare, each node a loopback address of its own (127.50.61.1-3) with its own
# `pai-launch run`, default heartbeats (1 s). Local rank 1 of node-2 computes twice as long as
# the others; with faultTolerance.swap {after: 3s} the coordinator names it RankNonCommSlow,
# asks the ranks for a checkpoint once the verdict held, stops the job when rank 0 saved it and
# starts it again with the spare in node-2's place. Per run, from the journals and the ranks'
# logs (each line stamped with the wall clock):
#
#   lost:     steps of attempt 0 past the checkpoint's step (what attempt 1 computes again);
#   ask:      swap-started to swap-saved (the ranks' next should_checkpoint() asks the launcher
#             at most every 5 s, then the save);
#   save:     the save itself (checkpoint-started to checkpoint, node-1's journal);
#   pause:    the last step of attempt 0 to the first step of attempt 1;
#   pai:      of it, the last step to the first rank of attempt 1 running (stop, start);
#   restart:  of it, that rank's start to the first step (Python, import torch, the process
#             group, the first step).
#
# Cases: cold (every rank of attempt 1 starts a fresh python3) and warm (faultTolerance.warmStart
# {roles: [worker], preload: WARM_PRELOAD}: node-1's ranks are forked from interpreters that
# imported torch while attempt 0 ran, the spare's from those it started on standby).
#
# RUNS=3 CASES="cold warm" PAI_BUILD=build bench/swap_ddp.sh; medians of RUNS per case.
. "$(dirname -- "$0")/launch_lib.sh"
. "$BENCH_DIR/cluster_lib.sh"
RUNS=${RUNS:-3}
if ! "$PYTHON" -c 'import torch.distributed' 2>/dev/null; then
  echo "torch not installed (apt-get install python3-torch): nothing to measure" >&2
  exit 2
fi
JOB=$ROOT/tests/launcher/multi_node/diagnosis_job.py
export GLOO_SOCKET_IFNAME=lo PYTHONDONTWRITEBYTECODE=1 OMP_NUM_THREADS=1
PRELOAD=${WARM_PRELOAD:-torch, torch.distributed, torch.nn.parallel}

# compile_swap_job NAME CHECKPOINTS WARM: the job into $WORK/NAME; WARM 1 turns warm starts on.
# Prints the plan's path.
compile_swap_job() {
  local warm=""
  [ "$3" = 1 ] && warm="  warmStart: {roles: [worker], preload: [$PRELOAD]}"
  cat > "$WORK/$1.yaml" <<SPEC
apiVersion: pai/v1
kind: Job
name: $1
framework: pytorch
portRange: {min: 47700, max: 47799}
sanityCheck: {enabled: false}
hosts:
  - {name: node-1, address: 127.50.61.1}
  - {name: node-2, address: 127.50.61.2}
spares:
  - {name: node-3, address: 127.50.61.3}
roles:
  worker:
    instances: 2
    nprocPerNode: 2
    env: {SCENARIO: swap, SLOW_ADDRESS: 127.50.61.2, CHECKPOINTS: "$2",
          PYTHONPATH: "$ROOT/sdk/python"}
    command: [$PYTHON, $JOB]
faultTolerance:
  restart: {maxRestarts: 1}
  hang: {enabled: false}
  diagnosis: {slowFactor: 1.1}
  swap: {enabled: true, after: 3s}
$warm
SPEC
  "$PAI_COMPILE" "$WORK/$1.yaml" -o "$WORK/$1" > /dev/null
  echo "$WORK/$1/plan.json"
}

# run_once CASE OUT: prints "LOST ASK SAVE PAUSE PAI RESTART". Not in $(...): a subshell
# cannot tell its launchers from others (cluster_lib.sh's ours_running).
run_once() {
  local out=$2 plan warm=0
  [ "$1" = warm ] && warm=1
  mkdir -p "$out/logs" "$out/checkpoints"
  plan=$(compile_swap_job "swap-$(basename "$out")" "$out/checkpoints" "$warm")
  LAUNCHER_PIDS=""
  start_cluster "$plan" 2 "$out/logs"
  start_launcher "$plan" 3 "$out/logs"
  set -- $LAUNCHER_PIDS
  wait_pids 240 "$1" "$2" "$3"
  if [ "$FAILED" != 0 ]; then
    echo "error: the job did not finish (see $out/logs)" >&2
    cat "$out"/logs/node-*.err >&2
    exit 1
  fi
  "$PYTHON" - "$out/logs" <<'PY'
import datetime, glob, json, os, re, sys
logs = sys.argv[1]

def records(path):
    for line in open(path):
        try:
            yield json.loads(line)
        except ValueError:
            pass

def ms(record):
    t = datetime.datetime.strptime(record["time"], "%Y-%m-%dT%H:%M:%S.%fZ")
    return t.replace(tzinfo=datetime.timezone.utc).timestamp()

coordinator = {r["event"]: r for r in records(os.path.join(logs, "coordinator/events.jsonl"))}
for event in ("swap-started", "swap-saved", "swap-done"):
    if event not in coordinator:
        sys.exit("error: no %s in %s: the swap did not happen" % (event, logs))
step = coordinator["swap-saved"]["step"]
node1 = list(records(os.path.join(logs, "worker-0/events.jsonl")))
began = [ms(r) for r in node1 if r["event"] == "checkpoint-started" and r.get("step") == step]
done = [ms(r) for r in node1 if r["event"] == "checkpoint" and r.get("step") == step]
steps, starts = {0: [], 1: []}, {0: [], 1: []}
for path in glob.glob(os.path.join(logs, "worker-*/rank-*.attempt-*.log")):
    attempt = int(re.search(r"attempt-(\d+)", path).group(1))
    for line in open(path, errors="replace"):
        m = re.search(r"rank \d+ step (\d+) t=([0-9.]+)", line)
        if m:
            steps[attempt].append((int(m.group(1)), float(m.group(2))))
        m = re.search(r"rank \d+ started t=([0-9.]+)", line)
        if m:
            starts[attempt].append(float(m.group(1)))
last_step = max(n for n, _ in steps[0])
last_at = max(t for _, t in steps[0])
first_at = min(t for _, t in steps[1])
first_start = min(starts[1])
print("%d %.2f %.3f %.2f %.2f %.2f" % (
    last_step - step, ms(coordinator["swap-saved"]) - ms(coordinator["swap-started"]),
    done[0] - began[0], first_at - last_at, first_start - last_at, first_at - first_start))
PY
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "load average before: $(load_average)"
fields="lost ask save pause pai restart"
printf '%-6s %6s %8s %8s %9s %8s %11s\n' case lost "ask (s)" "save (s)" "pause (s)" "pai (s)" \
  "restart (s)"
for case in ${CASES:-cold warm}; do
  for f in $fields; do : > "$WORK/$f"; done
  run=1
  while [ "$run" -le "$RUNS" ]; do
    run_once "$case" "$WORK/$case-$run" > "$WORK/result"
    result=$(cat "$WORK/result")
    echo "  $case run $run: $result" >&2
    i=1
    for f in $fields; do
      echo "$result" | cut -d' ' -f$i >> "$WORK/$f"
      i=$((i + 1))
    done
    run=$((run + 1))
  done
  printf '%-6s %6s %8s %8s %9s %8s %11s\n' "$case" "$(median < "$WORK/lost")" \
    "$(median < "$WORK/ask")" "$(median < "$WORK/save")" "$(median < "$WORK/pause")" \
    "$(median < "$WORK/pai")" "$(median < "$WORK/restart")"
done
echo "load average after: $(load_average)"
