#!/bin/sh
# The goodput breakdown of a real DDP job with one kill -9 and one hang (issue 34, item 5).
# bench/goodput_ddp_job.py: gloo DDP on two nodes of two ranks, each node a loopback address
# of its own (127.50.61.1-2) with its own `pai-launch run`; the ranks report every step
# (monitor.report_step) and rank 0 saves a checkpoint every GOODPUT_CKPT_EVERY steps
# (pai.checkpoint.save_async). In attempt 0 this script kills rank 2 with kill -9 at step
# GOODPUT_KILL_STEP (the job restarts at once from the newest checkpoint); in attempt 1 rank 1
# stops making progress outside any collective at step GOODPUT_HANG_STEP, the others wait in
# all-reduce and hang detection (reset_config(job_hang_interval=GOODPUT_HANG_INTERVAL)) stops
# and restarts the job after the spec's backoff (BACKOFF); attempt 2 trains to the end.
#
# Then `pai-launch goodput` on the job's log folder: the per-cause table, the ETTR, the
# attempts, and the account checked: the causes sum to the rank-seconds and those to wall
# time x rank slots (within 1%), per attempt and for the job; the attempts sum to the job;
# and a kill and a hang show in stop-and-teardown, restart-backoff or start-up,
# hang-detection-wait and rollback (and there are productive, framework-init and
# checkpoint-stall seconds). The figures are also held against the ranks' own clocks (their
# step times, the hang's start, the SDK's measured checkpoint stalls). Exit status 1 when the
# job did not succeed or a check failed; 2 when torch is not installed.
#
#   RUNS=2 PAI_BUILD=build bench/goodput_ddp.sh
#   PAI_LAUNCH=/path/pai-launch PAI_COMPILE=/path/pai-compile bench/goodput_ddp.sh
#
# RUNS (1) runs, one after the other; TIME_LIMIT (300) seconds a run may take before its
# launchers are stopped (and the spec's timeLimit cancels the job 30 s before that); BACKOFF
# (2s) the spec's restart.backoff; GOODPUT_STEPS, _CKPT_EVERY, _KILL_STEP, _HANG_STEP,
# _STEP_SLEEP, _HANG_INTERVAL the job's (defaults in goodput_ddp_job.py). KEEP=1 keeps the
# work folder (journals, rank logs, timelines, the accounts as JSON).
# shellcheck disable=SC3043 # local: dash, bash and busybox sh have it (cluster_lib.sh)
if [ -n "${PAI_LAUNCH:-}" ] && [ -n "${PAI_COMPILE:-}" ]; then
  GIVEN_LAUNCH=$PAI_LAUNCH
  GIVEN_COMPILE=$PAI_COMPILE
  PAI_BUILD=${PAI_BUILD:-unused}
fi
# shellcheck source=bench/launch_lib.sh
. "$(dirname -- "$0")/launch_lib.sh"
# shellcheck source=bench/cluster_lib.sh
. "$BENCH_DIR/cluster_lib.sh"
if [ -n "${GIVEN_LAUNCH:-}" ]; then
  PAI_LAUNCH=$GIVEN_LAUNCH
  PAI_COMPILE=$GIVEN_COMPILE
fi
for binary in "$PAI_LAUNCH" "$PAI_COMPILE"; do
  if [ ! -x "$binary" ]; then
    echo "error: $binary is not an executable (set PAI_BUILD, or PAI_LAUNCH and PAI_COMPILE)" >&2
    exit 1
  fi
done
if ! "$PYTHON" -c 'import torch.distributed' 2>/dev/null; then
  echo "torch not installed (apt-get install python3-torch): nothing to measure" >&2
  exit 2
fi
RUNS=${RUNS:-1}
TIME_LIMIT=${TIME_LIMIT:-300}
BACKOFF=${BACKOFF:-2s}
JOB=$BENCH_DIR/goodput_ddp_job.py
KILL_STEP=${GOODPUT_KILL_STEP:-115}
export GLOO_SOCKET_IFNAME=lo PYTHONDONTWRITEBYTECODE=1 OMP_NUM_THREADS=1

# compile_goodput_job NAME OUT PORT: the job into $WORK/NAME, its ranks' files in OUT, ports
# PORT..PORT+49; prints the plan's path.
compile_goodput_job() {
  local name="$1" out="$2" port="$3" settings="" var
  for var in STEPS CKPT_EVERY KILL_STEP HANG_STEP STEP_SLEEP HANG_INTERVAL; do
    eval "[ -z \"\${GOODPUT_$var:-}\" ] || settings=\"\$settings, GOODPUT_$var: '\$GOODPUT_$var'\""
  done
  cat > "$WORK/$name.yaml" <<SPEC
apiVersion: pai/v1
kind: Job
name: $name
framework: pytorch
masterStore: launcher
portRange: {min: $port, max: $((port + 49))}
sanityCheck: {enabled: false}
output: $out/output
timeLimit: $((TIME_LIMIT - 30))s
hosts:
  - {name: node-1, address: 127.50.61.1}
  - {name: node-2, address: 127.50.61.2}
roles:
  worker:
    instances: 2
    nprocPerNode: 2
    envConvention: torchrun
    command: [$PYTHON, $JOB, $out]
    env: {PYTHONPATH: '$ROOT/sdk/python'$settings}
faultTolerance:
  restart: {maxRestarts: 2, backoff: $BACKOFF}
  hang: {interval: 10m}
SPEC
  "$PAI_COMPILE" "$WORK/$name.yaml" -o "$WORK/$name" > /dev/null
  echo "$WORK/$name/plan.json"
}

# kill_rank OUT SECONDS: waits up to SECONDS for the rank's OUT/kill-pid, then kill -9s that
# PID, once its command line shows it is this run's rank of the job. False when no rank asked
# in time, or the launchers ended first.
kill_rank() {
  local out="$1" deadline pid
  deadline=$(($(now_ms) + $2 * 1000))
  until [ -s "$out/kill-pid" ]; do
    if [ "$(now_ms)" -ge "$deadline" ]; then return 1; fi
    # shellcheck disable=SC2086 # one PID a word
    set -- $LAUNCHER_PIDS
    if ! ours_running "$1" && ! ours_running "$2"; then return 1; fi
    sleep 0.02
  done
  pid=$(cut -d' ' -f1 "$out/kill-pid")
  if ! tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -qF "$JOB $out"; then
    echo "error: PID $pid of $out/kill-pid is not a rank of this run" >&2
    return 1
  fi
  kill -KILL "$pid" || return 1
  echo "$pid $(now_ms)" > "$out/killed"
}

# run_once OUT PORT: runs the job, kills its rank, waits for it to end; then the account.
# Not in $(...): a subshell cannot tell its launchers from others (cluster_lib.sh's
# ours_running).
run_once() {
  local out="$1" port="$2" plan started rc=0
  mkdir -p "$out/logs"
  plan=$(compile_goodput_job "goodput-ddp-$(basename "$out")" "$out" "$port")
  LAUNCHER_PIDS=""
  started=$(now_ms)
  start_cluster "$plan" 2 "$out/logs"
  if ! kill_rank "$out" "$TIME_LIMIT"; then
    echo "error: rank 2 did not reach step $KILL_STEP of attempt 0 (see $out/logs)" >&2
    rc=1
  fi
  # shellcheck disable=SC2086 # one PID a word
  wait_pids $((TIME_LIMIT - ($(now_ms) - started) / 1000)) $LAUNCHER_PIDS
  echo "run $(basename "$out"): launchers ended after $((($(now_ms) - started) / 1000)) s," \
    "$FAILED of 2 with a failure; load average $(load_average)"
  if [ "$FAILED" != 0 ]; then
    echo "error: the job did not succeed; the launchers said:" >&2
    tail -n 5 "$out"/logs/node-*.err >&2
    rc=1
  fi
  # The account, as printed and as JSON; its exit status is the command's.
  "$PAI_LAUNCH" goodput "$out/logs" || rc=1
  "$PAI_LAUNCH" goodput "$out/logs" --format json > "$out/goodput.json" || rc=1
  "$PYTHON" - "$out" "$out/goodput.json" <<'PY' || rc=1
import datetime
import glob
import json
import os
import sys

out, account_path = sys.argv[1], sys.argv[2]
account = json.load(open(account_path))
problems = []


def seconds(text):
    stamp = datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ")
    return stamp.replace(tzinfo=datetime.timezone.utc).timestamp()


def near(a, b, share=0.01):
    return abs(a - b) <= share * max(abs(b), 1e-9)


causes = account["causes"]
rank_seconds = account["rankSeconds"]
total = sum(causes.values())
expected = account["wallSeconds"] * account["rankSlots"]
print("invariants: causes sum to %.1f of %.1f rank-seconds (%+.3f%%); wall %.1f s x %d slots "
      "= %.1f (%+.3f%%)" % (total, rank_seconds, 100 * (total - rank_seconds) / rank_seconds,
                           account["wallSeconds"], account["rankSlots"], expected,
                           100 * (rank_seconds - expected) / expected))
if not near(total, rank_seconds):
    problems.append("the causes sum to %.2f, not %.2f rank-seconds" % (total, rank_seconds))
if not near(rank_seconds, expected):
    problems.append("%.2f rank-seconds is not wall x slots %.2f" % (rank_seconds, expected))
attempts = account["attempts"]
for a in attempts:
    s = sum(a["causes"].values())
    if not near(s, a["rankSeconds"]):
        problems.append("attempt %d: the causes sum to %.2f, not %.2f rank-seconds"
                        % (a["attempt"], s, a["rankSeconds"]))
by_attempts = sum(a["rankSeconds"] for a in attempts)
if not near(by_attempts, rank_seconds):
    problems.append("the attempts sum to %.2f, not the job's %.2f rank-seconds"
                    % (by_attempts, rank_seconds))
if [a["attempt"] for a in attempts] != [0, 1, 2]:
    problems.append("attempts %s, not 0, 1, 2 (a kill and a hang)"
                    % [a["attempt"] for a in attempts])
if account["rankSlots"] != 4 or not account["stepData"]:
    problems.append("%d rank slots, step data %s: not 4 ranks that reported steps"
                    % (account["rankSlots"], account["stepData"]))
for cause in ("productive", "framework-init", "checkpoint-stall", "stop-and-teardown",
              "hang-detection-wait", "rollback"):
    if causes.get(cause, 0) <= 0:
        problems.append("no %s seconds" % cause)
if causes.get("restart-backoff", 0) + causes.get("start-up", 0) <= 0:
    problems.append("no restart-backoff or start-up seconds")

# The ranks' own clocks: their step times, the hang's start, the SDK's stalls.
timeline = {}  # (rank, attempt) -> [(step, time)]
for path in glob.glob(os.path.join(out, "timeline", "rank-*.attempt-*")):
    rank, attempt = os.path.basename(path)[5:].split(".attempt-")
    with open(path) as f:
        rows = [line.split() for line in f]
    timeline[int(rank), int(attempt)] = [(int(s), float(t)) for s, t in rows if t]
journal = []
for path in glob.glob(os.path.join(out, "logs", "*", "events.jsonl")):
    with open(path) as f:
        for line in f:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            record["folder"] = os.path.basename(os.path.dirname(path))
            journal.append(record)
hangs = sorted(seconds(r["time"]) for r in journal if r["event"] == "hang")
killed = os.path.join(out, "killed")
kill_pid, killed_ms = open(killed).read().split() if os.path.exists(killed) else (None, 0)
rollback = productive = 0.0
computed = 0
for (rank, attempt), rows in sorted(timeline.items()):
    if not rows:
        continue
    computed += len(rows)
    again = 0.0  # from the attempt's first step to the step an earlier attempt reached
    before = [s for (r, a), rs in timeline.items() if r == rank and a < attempt for s, _ in rs]
    if before:
        reached = [t for s, t in rows if s >= max(before)]
        again = (reached[0] if reached else rows[-1][1]) - rows[0][1]
    rollback += again
    productive += rows[-1][1] - rows[0][1] - again
kept = max(s for rs in timeline.values() for s, _ in rs) + 1
print("the ranks' clocks: %.0f steps computed a rank for %d kept; %s"
      % (computed / 4, kept, "no kill -9" if kill_pid is None else "kill -9 of PID %s at %s" % (
          kill_pid, datetime.datetime.fromtimestamp(int(killed_ms) / 1000, datetime.timezone.utc)
          .strftime("%H:%M:%S.%f")[:-3])))
print("  productive (each attempt's first step to its last, less rollback): %.1f rank-seconds, "
      "ETTR %.1f%%; the account: %.1f, %.1f%%"
      % (productive, 100 * productive / rank_seconds, causes.get("productive", 0),
         100 * account["ettr"]))
print("  rollback (an attempt's first step to the step an earlier one reached): %.1f "
      "rank-seconds; the account: %.1f" % (rollback, causes.get("rollback", 0)))
hang_step, hang_time = (open(os.path.join(out, "hang")).read().split()
                        if os.path.exists(os.path.join(out, "hang")) else (None, 0))
verdicts = [t for t in hangs if hang_step is not None and t >= float(hang_time)]
if verdicts:
    verdict = verdicts[0]
    last_steps = [rs[-1][1] for (r, a), rs in timeline.items() if a == 1 and rs]
    waited = sum(verdict - t for t in last_steps)
    print("  hang: rank 1 stopped at step %s; the verdict came %.2f s later; from each rank's "
          "last step to the verdict: %.1f rank-seconds; the account's hang-detection-wait: "
          "%.1f" % (hang_step, verdict - float(hang_time), waited,
                    causes.get("hang-detection-wait", 0)))
else:
    problems.append("no hang: rank 1 did not hang, or no hang record")
stalls_path = os.path.join(out, "stalls")
stalls = [float(line.split()[1]) for line in open(stalls_path)] if os.path.exists(stalls_path) else []
print("  checkpoints: rank 0's %d saves measured (handle.stall_seconds) %.3f s of stall, "
      "x 4 ranks = %.2f rank-seconds; the account's checkpoint-stall: %.2f"
      % (len(stalls), sum(stalls), 4 * sum(stalls), causes.get("checkpoint-stall", 0)))
for p in problems:
    print("error: " + p, file=sys.stderr)
sys.exit(1 if problems else 0)
PY
  return "$rc"
}

echo "load average before: $(load_average)"
status=0 run=1
while [ "$run" -le "$RUNS" ]; do
  # Ports 47700-47749, then 47750-47799: a run never listens where the previous one did.
  run_once "$WORK/run-$run" $((47700 + (run - 1) % 2 * 50)) || status=1
  run=$((run + 1))
done
echo "load average after: $(load_average)"
[ "$status" = 0 ] || echo "error: a run failed (KEEP=1 keeps the journals and logs)" >&2
exit "$status"
