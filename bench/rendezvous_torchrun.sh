#!/bin/sh
# Multi-node start side by side with torchrun's c10d rendezvous (design §10): N agents started
# together on this machine, each for one node of one process; the worker (the same Python
# script for both) writes a timestamp and exits. The figure is the time from starting the
# first agent to the last worker's timestamp: every worker running.
#
#   pai-launch: an N-node job (node-K at 127.50.30.K, sanity checks off); the N launchers are
#               started one after the other, node-1 (which serves the coordinator) first,
#               without waiting for it: the others retry until it listens, as on a cluster.
#   torchrun:   `python3 -m torch.distributed.run --rdzv_backend c10d --rdzv_endpoint
#               127.0.0.1:PORT --nnodes N --nproc_per_node 1 ...` started N times (the first
#               to bind the port hosts the TCP store); --monitor_interval 0.1 only makes the
#               agents exit sooner once the workers are done.
#
#   NODES="4 8 16" RUNS=3 PAI_BUILD=build bench/rendezvous_torchrun.sh
# Each torchrun agent costs ~250 MiB and seconds of CPU (importing torch): on a small machine
# keep NODES modest. Median of RUNS per N.
. "$(dirname -- "$0")/launch_lib.sh"
. "$BENCH_DIR/cluster_lib.sh"
NODES=${NODES:-4 8 16}
RUNS=${RUNS:-3}
have_torchrun || { echo "torchrun not installed (apt-get install python3-torch): no comparison" >&2; exit 2; }

cat > "$WORK/stamp.py" <<'PY'
import os, time
with open(os.path.join(os.environ["STAMPS"], os.environ["RANK"]), "w") as out:
    out.write("%d\n" % (time.time_ns() // 1000000))
PY

# last_stamp DIR N: the latest timestamp (ms) of the N workers; fails unless all N wrote one.
last_stamp() {
  local count
  count=$(ls "$1" | wc -l)
  if [ "$count" != "$2" ]; then
    echo "error: only $count of $2 workers ran" >&2
    exit 1
  fi
  cat "$1"/* | sort -n | tail -1
}

# pai_run PLAN N DIR: one pai-launch run; appends the ms to every worker running to $FIGURES.
pai_run() {
  local plan=$1 n=$2 dir=$3 t0 k
  mkdir -p "$dir/stamps" "$dir/logs"
  LAUNCHER_PIDS=""
  export STAMPS="$dir/stamps"
  t0=$(now_ms)
  k=1
  while [ "$k" -le "$n" ]; do
    start_launcher "$plan" "$k" "$dir/logs"
    k=$((k + 1))
  done
  wait_pids 300 $LAUNCHER_PIDS
  if [ "$FAILED" != 0 ]; then
    echo "error: $FAILED of $n launchers did not exit 0; node-1 said:" >&2
    tail -5 "$dir/logs/node-1.err" >&2
    exit 1
  fi
  echo $(($(last_stamp "$dir/stamps" "$n") - t0)) >> "$FIGURES"
}

# torchrun_run N PORT DIR: the same with N torchrun agents.
torchrun_run() {
  local n=$1 port=$2 dir=$3 pids="" t0 k
  mkdir -p "$dir/stamps"
  export STAMPS="$dir/stamps"
  t0=$(now_ms)
  k=1
  while [ "$k" -le "$n" ]; do
    $TORCHRUN --rdzv_backend c10d --rdzv_endpoint "127.0.0.1:$port" \
      --rdzv_id "bench-$port" --nnodes "$n" --nproc_per_node 1 --max_restarts 0 \
      --monitor_interval 0.1 --log_dir "$dir/agent-$k" "$WORK/stamp.py" \
      > "$dir/agent-$k.out" 2>&1 &
    pids="$pids $!"
    BENCH_PIDS="$BENCH_PIDS $!"
    k=$((k + 1))
  done
  wait_pids 600 $pids
  if [ "$FAILED" != 0 ]; then
    echo "error: $FAILED of $n torchrun agents did not exit 0; the first said:" >&2
    tail -5 "$dir/agent-1.out" >&2
    exit 1
  fi
  echo $(($(last_stamp "$dir/stamps" "$n") - t0)) >> "$FIGURES"
}

echo "rendezvous_torchrun: load average $(load_average) on $(nproc) cores, $(free -g | awk '/^Mem:/ { print $2 }') GiB (a busy machine inflates every figure)"
printf '%6s %16s %16s %18s\n' nodes "pai-launch ms" "torchrun ms" "pai/torchrun"
port=47500
for n in $NODES; do
  plan=$(compile_cluster "rdzv-torch-$n" "$n" 30 "$port" "exec $PYTHON $WORK/stamp.py" \
    "faultTolerance: {restart: {enabled: false}}")
  i=1
  while [ "$i" -le "$RUNS" ]; do
    # Alternated, so that both see the same background load.
    FIGURES=$WORK/pai-$n
    pai_run "$plan" "$n" "$WORK/pai-$n.$i"
    FIGURES=$WORK/torchrun-$n
    torchrun_run "$n" $((port + 50 + i)) "$WORK/torchrun-$n.$i"
    i=$((i + 1))
  done
  pai=$(median < "$WORK/pai-$n")
  tr=$(median < "$WORK/torchrun-$n")
  printf '%6s %16s %16s %18s\n' "$n" "$pai" "$tr" "$(ratio "$pai" "$tr")"
  port=$((port + 100))
done
echo "load average after: $(load_average)"
