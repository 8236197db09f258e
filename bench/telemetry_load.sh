#!/bin/sh
# What per-rank telemetry costs the coordinator (design §10: telemetry of 65,536 ranks at 1 Hz
# costs the coordinator < 1 core).
#
# Each size NxR of SIZES is a job of N nodes of R ranks that runs twice: with telemetry (every
# heartbeat's instance entry carries one summary per rank, which the coordinator checks and
# hands to its diagnosis) and without (the heartbeats list the instance only). Node-1 is the
# real `pai-launch run` that serves the coordinator; its ranks run the job's rhythm (a 200 ms
# step ending in four 15 ms collectives) for HOLD seconds, recorded in their telemetry rings
# with pai.telemetry when telemetry is on. Nodes 2..N are bench/rendezvous_clients, whose
# instances run as long, heartbeating once a second with summaries of the same rhythm.
# Everything ends with exit 0.
#
#   SIZES="1024x8 2048x8 1024x32" WARMUP=5 WINDOW=10 CLIENT_PROCESSES=1 PAI_BUILD=build \
#     bench/telemetry_load.sh
#
# Once the coordinator printed "rendezvous complete" and WARMUP seconds passed, utime + stime
# of /proc/PID/stat over WINDOW seconds give the CPU, in cores, of:
#   coordinator   pai-launch's threads but its main one: the coordinator's server thread
#   pai-launch    the whole process: the coordinator and node-1's own launcher
#   clients       the rendezvous_clients processes
# RSS is pai-launch's at the end of the window, peak its VmHWM then. The clients, node-1's
# ranks and the coordinator share this machine's cores, so wall times mean little here: CPU
# time is the figure. `summaries/s` are the rank summaries sent in the window (the clients
# count theirs, SIGUSR1 asks), `beats` the clients' heartbeats a second over their number
# (below 100% they fell behind, and the coordinator got less to do), `verdicts` the diagnosis
# records of the coordinator's journal (the summaries are those of a healthy job: 0
# expected). Per size, the difference between the coordinator's two figures over the
# summaries a second is its CPU time per rank summary, and that times 65,536 the telemetry's
# cost at the design's scale. PERF=FILE records the window with `perf record -g` into
# FILE.<size> (`perf report -i FILE.<size>`), for where the coordinator's time goes.
. "$(dirname -- "$0")/launch_lib.sh"
. "$BENCH_DIR/cluster_lib.sh"
SIZES=${SIZES:-1024x8 2048x8 1024x32}
WARMUP=${WARMUP:-5}
WINDOW=${WINDOW:-10}
CLIENT_PROCESSES=${CLIENT_PROCESSES:-1}
# The instances run past the window, so that none ends inside it.
HOLD=$((WARMUP + WINDOW + 3))
CLIENTS=$PAI_BUILD/bench/rendezvous_clients
if [ ! -x "$CLIENTS" ]; then
  echo "error: $CLIENTS not built (ninja -C $PAI_BUILD rendezvous_clients)" >&2
  exit 2
fi
TICKS=$(getconf CLK_TCK)

# rank_command TELEMETRY: node-1's ranks, HOLD seconds of the clients' rhythm, recorded in
# the telemetry ring when TELEMETRY is 1.
rank_command() {
  cat <<COMMAND
PYTHONPATH=$ROOT/sdk/python exec $PYTHON - <<'PY'
import time
from pai import telemetry
ring = telemetry.ring() if $1 else None
step_s, compute_s, collective_s = 0.2, 0.14, 0.015
start = time.monotonic()
step, seq = 0, 0
def until(t):
    time.sleep(max(0.0, t - time.monotonic()))
while time.monotonic() - start < $HOLD:
    begin = start + step * step_s
    if ring: ring.step_begin(step)
    until(begin + compute_s)
    for k in range(4):
        seq += 1
        if ring: ring.collective_enter(1, 0, seq, 1 << 24, step)
        until(begin + compute_s + (k + 1) * collective_s)
        if ring: ring.collective_exit(1, 0, seq, 1 << 24, step)
    if ring: ring.step_end(step)
    step += 1
PY
COMMAND
}

# compile_load_job NAME NODES RANKS PORT TELEMETRY: a job of NODES nodes of RANKS ranks,
# node-K at 127.50.(100 + (K-1)/250).((K-1)%250 + 1), its ranks running rank_command
# TELEMETRY, restarts off; prints the plan's path.
compile_load_job() {
  compile_cluster "$1" "$2" 100 "$4" "$(rank_command "$5")" \
    "    nprocPerNode: $3
faultTolerance: {restart: {enabled: false}}"
}

# ticks PID: the CPU clock ticks (utime + stime) of the process and of its main thread.
ticks() { awk '{ printf "%d ", $14 + $15 }' "/proc/$1/stat" "/proc/$1/task/$1/stat"; }

# client_ticks PID...: the CPU ticks of the clients still running, summed.
client_ticks() {
  local pid sum=0
  for pid in "$@"; do
    if ours_running "$pid"; then sum=$((sum + $(awk '{ print $14 + $15 }' "/proc/$pid/stat"))); fi
  done
  echo "$sum"
}

# probe_clients COUNT LOGDIR PID...: asks the clients for their counts (SIGUSR1) and waits up
# to 5 s until each of their outputs in LOGDIR holds COUNT probe lines.
probe_clients() {
  local count=$1 logs=$2 pid f deadline
  shift 2
  for pid in "$@"; do
    if ours_running "$pid"; then kill -USR1 "$pid"; fi
  done
  deadline=$(($(now_ms) + 5000))
  for f in "$logs"/clients.*.out; do
    while [ "$(grep -c '^probe' "$f")" -lt "$count" ] && [ "$(now_ms)" -lt "$deadline" ]; do
      sleep 0.05
    done
  done
}

# client_rates LOGDIR: "<heartbeats/s> <summaries/s>" the clients sent between their first two
# probe lines, summed over the client processes.
client_rates() {
  local f
  for f in "$1"/clients.*.out; do grep '^probe' "$f" | head -n 2 | tr '\n' ' '; echo; done |
    awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[i] = kv[2] }
           s = (v[6] - v[2]) / 1e9; if (s > 0) { hb += (v[7] - v[3]) / s; t += (v[8] - v[4]) / s } }
         END { printf "%.0f %.0f\n", hb, t }'
}

# kib PID FIELD: a /proc/PID/status figure in KiB (VmRSS, VmHWM).
kib() { awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status"; }

# cores TICKS MS: CPU ticks over a wall time in ms, as cores.
cores() { awk -v t="$1" -v ms="$2" -v hz="$TICKS" 'BEGIN { printf "%.3f", t / hz / (ms / 1000) }'; }

row() { printf '%6s %6s %-9s %11s %10s %8s %8s %8s %11s %6s %8s\n' "$@"; }
# failed_row NODES RANKS LABEL WHY
failed_row() { printf '%6s %6s %-9s %s\n' "$@"; }

# measure NODES RANKS TELEMETRY PORT: one run; prints its row and sets CORES to the
# coordinator's and SUMMARIES to the rank summaries a second it got, or CORES to "" when the
# job did not run its course (the row then says why).
measure() {
  local nodes=$1 ranks=$2 telemetry=$3 port=$4 name plan logs coordinator
  local clients r=0 label=off t0 t1="" c0 c1 k0 k1 ms rss peak verdicts beats clients_failed
  [ "$telemetry" = 0 ] || { r=$ranks label=on; }
  name=tel-$nodes-$ranks-$label
  plan=$(compile_load_job "$name" "$nodes" "$ranks" "$port" "$telemetry")
  logs=$WORK/logs-$name
  CORES=""
  if ! start_simulated_job "$plan" "$nodes" "$logs" "$r"; then
    failed_row "$nodes" "$ranks" "$label" \
      "no rendezvous within 60 s: the clients or the coordinator fell behind"
    return
  fi
  coordinator=$COORDINATOR clients=$CLIENT_PIDS
  sleep "$WARMUP"
  t0=$(now_ms) c0=$(ticks "$coordinator") k0=$(client_ticks $clients)
  probe_clients 1 "$logs" $clients
  if [ -n "${PERF:-}" ]; then
    # The window under `perf record` of the coordinator's process: where its CPU goes.
    perf record -q -g -p "$coordinator" -o "$PERF.$name" -- sleep "$WINDOW" >/dev/null 2>&1 ||
      sleep "$WINDOW"
  else
    sleep "$WINDOW"
  fi
  # A job that failed meanwhile has no figures: its row says why.
  if ours_running "$coordinator"; then
    t1=$(now_ms) c1=$(ticks "$coordinator") k1=$(client_ticks $clients)
    probe_clients 2 "$logs" $clients
    rss=$(kib "$coordinator" VmRSS) peak=$(kib "$coordinator" VmHWM)
  fi
  wait_pids $((HOLD + 60)) $clients
  clients_failed=$FAILED
  wait_pids 30 $coordinator
  if [ -z "$t1" ] || [ "$clients_failed" != 0 ] || [ "$FAILED" != 0 ]; then
    failed_row "$nodes" "$ranks" "$label" \
      "failed: $(grep -m1 -o 'job failed: .*' "$logs/node-1.err" || echo "see $logs")"
    return
  fi
  ms=$((t1 - t0))
  set -- $c0 $c1 $(client_rates "$logs")
  CORES=$(cores $(($3 - $4 - $1 + $2)) "$ms")
  # Node-1's own ranks add theirs.
  SUMMARIES=$(($6 + r))
  verdicts=$(grep -c '"event": *"diagnosis"' "$logs/coordinator/events.jsonl" || true)
  beats=$(awk -v b="$5" -v n="$((nodes - 1))" 'BEGIN { printf "%.0f%%", 100 * b / n }')
  row "$nodes" "$ranks" "$label" "$CORES" "$(cores $(($3 - $1)) "$ms")" \
    "$(cores $((k1 - k0)) "$ms")" "$((rss / 1024))" "$((peak / 1024))" "$SUMMARIES" "$beats" \
    "$verdicts"
}

echo "telemetry load: load average $(load_average) on $(nproc) cores, shared by the coordinator,"
echo "node-1's ranks and the clients: the figures are CPU time over a ${WINDOW} s window, in cores,"
echo "not wall time; clients: rendezvous_clients, $CLIENT_PROCESSES process(es) of one thread;"
echo "every node heartbeats once a second"
row nodes ranks telemetry coordinator pai-launch clients "RSS MiB" "peak MiB" summaries/s beats \
  verdicts
# Ports 47600-47999, two runs a size: a run never listens where the previous one did.
port=47600 status=0 scaled=""
for size in $SIZES; do
  nodes=${size%x*} ranks=${size#*x}
  measure "$nodes" "$ranks" 0 "$port"
  off=$CORES
  measure "$nodes" "$ranks" 1 $((port + 100))
  port=$((port == 47600 ? 47800 : 47600))
  if [ -z "$off" ] || [ -z "$CORES" ]; then status=1; continue; fi
  set -- $(awk -v on="$CORES" -v off="$off" -v n="$SUMMARIES" 'BEGIN {
    printf "%.3f %.1f %.2f\n", on - off, (on - off) * 1e6 / n, (on - off) * 65536 / n }')
  echo "  telemetry of $((nodes * ranks)) ranks: $1 cores, $2 us of coordinator CPU per rank" \
    "summary; x 65,536 a second: $3 cores"
  scaled="$3 cores (from $size)"
done
[ -z "$scaled" ] || echo "target: telemetry of 65,536 ranks at 1 Hz < 1 core: $scaled"
echo "load average after: $(load_average)"
exit "$status"
