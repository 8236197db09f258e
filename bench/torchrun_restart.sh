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
#                   monitor interval has no effect), its default checks (gpu, network).
#
#   NODES="1 2" RUNS=3 PAI_BUILD=build bench/torchrun_restart.sh
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
# "RESTART_S TOTAL_S".
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
import glob, os, sys
out, start, end = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
killed = float(open(os.path.join(out, "killed")).read())
steps = [float(open(p).read()) for p in glob.glob(os.path.join(out, "attempt-1", "step-*"))]
print("%.2f %.2f" % (max(steps) - killed, end - start))
PY
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

printf '%-6s %-38s %12s %10s\n' nodes launcher "restart (s)" "total (s)"
for nodes in $NODES; do
  for case in torchrun torchrun-0.1 pai; do
    : > "$WORK/restarts" ; : > "$WORK/totals"
    run=1
    while [ "$run" -le "$RUNS" ]; do
      out=$WORK/$case-$nodes-$run
      case $case in
        torchrun) set -- "$PYTHON" -m torch.distributed.run ;;
        torchrun-0.1) set -- "$PYTHON" -m torch.distributed.run --monitor_interval 0.1 ;;
        pai) set -- "$WORK/torchrun" ;;
      esac
      result=$(run_case "$*" "$nodes" "$out")
      echo "$result" | cut -d' ' -f1 >> "$WORK/restarts"
      echo "$result" | cut -d' ' -f2 >> "$WORK/totals"
      run=$((run + 1))
    done
    label=$case
    [ "$case" = torchrun ] && label="torchrun (--monitor_interval 5)"
    [ "$case" = torchrun-0.1 ] && label="torchrun --monitor_interval 0.1"
    [ "$case" = pai ] && label="pai-launch torchrun"
    printf '%-6s %-38s %12s %10s\n' "$nodes" "$label" "$(median < "$WORK/restarts")" \
      "$(median < "$WORK/totals")"
  done
done
