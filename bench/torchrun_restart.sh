#!/bin/sh
# A rank killed under torchrun and under pai-launch torchrun (design §10, issue 35): the same
# gloo DDP job (tests/launcher/commands/torchrun_ddp_job.py, scenario kill-once) with the same
# arguments, `--nproc_per_node 2 --max_restarts 1 --rdzv_backend c10d`, the last rank SIGKILLed
# after its second step of attempt 0. The figure is the restart: from the kill to the first
# step of the slowest rank of attempt 1; the job's whole time beside it.
#
#   torchrun:       Debian's torch 1.13 (`python3 -m torch.distributed.run`), its default
#                   --monitor_interval 5, and --monitor_interval 0.1 (the current torchrun's
#                   default);
#   pai-launch:     `pai-launch torchrun` with the same arguments (it sees exits at once; the
#                   monitor interval has no effect), its default checks (gpu, network);
#                   and with `--pai-master-store launcher`: the launcher serves the ranks'
#                   store, so no rank waits for rank 0's (issue 39, item 2); and with both
#                   the launcher's store and `--pai-warm-start torch,...`: each rank of the
#                   restart is forked from an interpreter that imported torch while attempt 0
#                   ran (issue 39, item 1; WARM_PRELOAD overrides the modules).
#
#   NODES="1 2" RUNS=3 PAI_BUILD=build bench/torchrun_restart.sh
# CASES="pai pai-store pai-warm" runs only those cases.
# NODES 2 starts two launchers (agents) on this machine; median of RUNS per case.
. "$(dirname -- "$0")/launch_lib.sh"
NODES=${NODES:-1 2}
RUNS=${RUNS:-3}
if ! have_torchrun; then
  echo "torchrun not installed (apt-get install python3-torch): no comparison" >&2
  exit 2
fi
JOB=$ROOT/tests/launcher/commands/torchrun_ddp_job.py
ln -s "$(realpath "$PAI_LAUNCH")" "$WORK/torchrun"
export GLOO_SOCKET_IFNAME=lo PAI_JOB_TOKEN=bench-torchrun-restart-token PYTHONDONTWRITEBYTECODE=1

# free_port: a port P of 127.0.0.1 with P + 1 free too (pai's MASTER_PORT).
free_port() {
  "$PYTHON" - <<'PY'
import socket
while True:
    a = socket.socket(); a.bind(("127.0.0.1", 0)); p = a.getsockname()[1]
    b = socket.socket()
    try:
        b.bind(("127.0.0.1", p + 1)); print(p); break
    except OSError:
        pass
    finally:
        a.close(); b.close()
PY
}

# run_case LAUNCHER NODES OUT EXTRA...: the kill-once job, NODES agents at once; prints
# "RESTART_S TOTAL_S LAUNCH_S IMPORT_S GROUP_S STEP_S": the restart (the kill to the slowest
# rank's first step of attempt 1) and its parts, each up to the slowest rank's moment: the
# launcher's own (the kill to the last rank's interpreter running the script), Python and
# `import torch`, the process group's set-up (init_process_group), the first step.
run_case() {
  launcher=$1 nodes=$2 out=$3
  shift 3
  mkdir -p "$out"
  port=$(free_port)
  start=$("$PYTHON" -c 'import time; print("%.6f" % time.time())')
  pids=
  i=0
  while [ "$i" -lt "$nodes" ]; do
    $launcher --nnodes "$nodes" --nproc_per_node 2 --rdzv_backend c10d \
      --rdzv_endpoint "127.0.0.1:$port" --rdzv_id bench-restart --max_restarts 1 \
      --redirects 1 --tee 1 --log_dir "$out/logs" "$@" "$JOB" "$out" kill-once \
      > "$out/agent-$i.log" 2>&1 &
    pids="$pids $!"
    i=$((i + 1))
  done
  for pid in $pids; do
    if ! wait "$pid"; then
      echo "error: an agent failed (see $out)" >&2
      cat "$out"/agent-*.log >&2
      exit 1
    fi
  done
  end=$("$PYTHON" -c 'import time; print("%.6f" % time.time())')
  "$PYTHON" - "$out" "$start" "$end" <<'PY'
import glob, json, os, sys
out, start, end = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
killed = float(open(os.path.join(out, "killed")).read())
times = [json.load(open(p)) for p in glob.glob(os.path.join(out, "attempt-1", "times-*"))]
last = {k: max(t[k] for t in times) for k in ("started", "imported", "grouped", "stepped")}
print("%.2f %.2f %.2f %.2f %.2f %.2f" % (
    last["stepped"] - killed, end - start, last["started"] - killed,
    last["imported"] - last["started"], last["grouped"] - last["imported"],
    last["stepped"] - last["grouped"]))
PY
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

printf '%-6s %-38s %12s %10s %8s %8s %8s %8s\n' nodes launcher "restart (s)" "total (s)" \
  launch import group step
for nodes in $NODES; do
  for case in ${CASES:-torchrun torchrun-0.1 pai pai-store pai-warm}; do
    for f in restarts totals launch import group step; do : > "$WORK/$f"; done
    run=1
    while [ "$run" -le "$RUNS" ]; do
      out=$WORK/$case-$nodes-$run
      case $case in
        torchrun) set -- "$PYTHON" -m torch.distributed.run ;;
        torchrun-0.1) set -- "$PYTHON" -m torch.distributed.run --monitor_interval 0.1 ;;
        pai) set -- "$WORK/torchrun" ;;
        pai-store) set -- "$WORK/torchrun" --pai-master-store launcher ;;
        pai-warm) set -- "$WORK/torchrun" --pai-master-store launcher --pai-warm-start \
          "${WARM_PRELOAD:-torch,torch.distributed.elastic.multiprocessing.errors}" ;;
      esac
      result=$(run_case "$*" "$nodes" "$out")
      i=1
      for f in restarts totals launch import group step; do
        echo "$result" | cut -d' ' -f$i >> "$WORK/$f"
        i=$((i + 1))
      done
      run=$((run + 1))
    done
    label=$case
    [ "$case" = torchrun ] && label="torchrun (--monitor_interval 5)"
    [ "$case" = torchrun-0.1 ] && label="torchrun --monitor_interval 0.1"
    [ "$case" = pai ] && label="pai-launch torchrun"
    [ "$case" = pai-store ] && label="pai-launch torchrun (launcher's store)"
    [ "$case" = pai-warm ] && label="pai-launch torchrun (store, warm)"
    printf '%-6s %-38s %12s %10s %8s %8s %8s %8s\n' "$nodes" "$label" \
      "$(median < "$WORK/restarts")" "$(median < "$WORK/totals")" "$(median < "$WORK/launch")" \
      "$(median < "$WORK/import")" "$(median < "$WORK/group")" "$(median < "$WORK/step")"
  done
done
