#!/bin/sh
# Two DDP jobs of default specs started at the same moment on one host (issue 38, item 4): each
# job's ports come from a range chosen by its name, and the network check holds what it
# passed, so neither job's ranks may meet the other's. TRIALS times (default 10): both jobs
# compiled from specs that set no ports or checks, their launchers started together; a trial
# passes when both succeed and every rank's process group held only its own job's ranks (each
# rank all-reduces its job's id: a group mixing the jobs would sum the wrong total).
#
#   TRIALS=10 PAI_BUILD=build bench/two_jobs.sh
. "$(dirname -- "$0")/launch_lib.sh"
TRIALS=${TRIALS:-10}
if ! "$PYTHON" -c 'import torch.distributed' 2>/dev/null; then
  echo "torch not installed (apt-get install python3-torch): nothing to run" >&2
  exit 2
fi
cat > "$WORK/ddp.py" <<'PY'
import os, sys, torch, torch.distributed as dist
job = float(sys.argv[1])
dist.init_process_group("gloo")
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(4, 1))
for _ in range(3):
    model(torch.ones(8, 4)).sum().backward()
t = torch.tensor([job])
dist.all_reduce(t)
world = int(os.environ["WORLD_SIZE"])
if t.item() != job * world:
    sys.exit("rank %s met another job's ranks: sum %s, not %s" % (os.environ["RANK"], t.item(),
                                                                  job * world))
dist.destroy_process_group()
PY
for job in a b; do
  id=1; [ "$job" = b ] && id=1000
  cat > "$WORK/$job.yaml" <<SPEC
apiVersion: pai/v1
kind: Job
name: two-jobs-$job
framework: pytorch
hosts: [{name: node-1, address: 127.0.0.1}]
roles:
  worker:
    nprocPerNode: 2
    command: [$PYTHON, $WORK/ddp.py, "$id"]
SPEC
  "$PAI_COMPILE" "$WORK/$job.yaml" -o "$WORK/$job" > /dev/null
done
ports() {
  "$PYTHON" -c 'import json, sys; p = json.load(open(sys.argv[1]))
print("portRange %d-%d, MASTER_PORT %d" % (p["portRange"]["min"], p["portRange"]["max"],
                                          p["master"]["port"]))' "$1"
}
echo "job a: $(ports "$WORK/a/plan.json"); job b: $(ports "$WORK/b/plan.json")"
# trained JOB TRIAL: the job's journal says both ranks ran and the job succeeded.
trained() {
  events=$(cat "$WORK/$1/logs-$2"/*/events.jsonl 2>/dev/null || true)
  [ "$(printf '%s\n' "$events" | grep -c '"event":"process-started"')" -eq 2 ] &&
    printf '%s\n' "$events" | grep -q '"event":"job-succeeded"'
}
passed=0
trial=1
while [ "$trial" -le "$TRIALS" ]; do
  for job in a b; do
    "$PAI_LAUNCH" run --plan "$WORK/$job/plan.json" --token-file "$WORK/$job/job.token" \
      --node node-1 --log-dir "$WORK/$job/logs-$trial" > "$WORK/$job-$trial.out" 2>&1 &
    eval "pid_$job=\$!"
  done
  rc_a=0; rc_b=0
  wait "$pid_a" || rc_a=$?
  wait "$pid_b" || rc_b=$?
  if [ "$rc_a" -eq 0 ] && [ "$rc_b" -eq 0 ] && trained a "$trial" && trained b "$trial"; then
    passed=$((passed + 1))
  else
    echo "trial $trial: job a exited $rc_a, job b $rc_b" >&2
    tail -n 5 "$WORK/a-$trial.out" "$WORK/b-$trial.out" >&2
  fi
  trial=$((trial + 1))
done
echo "$passed/$TRIALS trials: both jobs trained, each with its own ranks only"
[ "$passed" -eq "$TRIALS" ]
