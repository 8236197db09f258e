#!/bin/sh
# Rendezvous of many launchers on one coordinator (design §10: 1,024 in under 1 s on loopback).
#
# The coordinator is the real `pai-launch run` of node-1 of an N-node job (command `true`,
# sanity checks off). The other N-1 launchers are played by bench/rendezvous_clients: real
# protocol clients, each with its own connection from its node's address (127.50.x.y), the
# handshake, `join` with no checks, heartbeats, and `exited`/`stopped` for `start`, all
# multiplexed in CLIENT_PROCESSES processes (default 1) of one thread each. For comparison the
# same job at REAL_NODES nodes (default 128) runs once with those clients and once with a real
# pai-launch process per node. Every run lets the job finish cleanly (exit 0 everywhere).
#
#   NODES=1024 REAL_NODES=128 RUNS=3 CLIENT_PROCESSES=1 PAI_BUILD=build bench/rendezvous.sh
#
# Figures (median of RUNS):
#   to last assign   from the first connect of a client, or the first "launcher-started" of
#                    node-2..N (real launchers: their start-up is included), to the last
#                    `assign` received (clients' clock in ns; launchers' "assigned" in ms)
#   to complete      from the same start to the coordinator's "assignment" record (its
#                    "rendezvous complete" line) in its events.jsonl
. "$(dirname -- "$0")/launch_lib.sh"
. "$BENCH_DIR/cluster_lib.sh"
NODES=${NODES:-1024}
REAL_NODES=${REAL_NODES:-128}
RUNS=${RUNS:-3}
CLIENT_PROCESSES=${CLIENT_PROCESSES:-1}
CLIENTS=$PAI_BUILD/bench/rendezvous_clients
[ -x "$CLIENTS" ] || { echo "error: $CLIENTS not built (ninja -C $PAI_BUILD rendezvous_clients)" >&2; exit 2; }

# completed LOGDIR: when (epoch ms) the coordinator recorded the assignment, i.e. printed
# "rendezvous complete".
completed() { $EVENT_TIMES first assignment "$1/coordinator/events.jsonl"; }

# run_clients PLAN NODES LOGDIR: one run with protocol clients; appends
# "<to last assign ms> <to complete ms>" to $FIGURES.
run_clients() {
  local plan=$1 nodes=$2 logs=$3 coordinator_pid clients_failed
  LAUNCHER_PIDS=""
  start_cluster "$plan" 1 "$logs"
  coordinator_pid=$LAUNCHER_PIDS
  start_clients "$plan" "$nodes" "$logs"
  wait_pids 120 $CLIENT_PIDS
  clients_failed=$FAILED
  wait_pids 30 $coordinator_pid
  if [ "$clients_failed" != 0 ] || [ "$FAILED" != 0 ]; then
    echo "error: the $nodes-node job did not finish cleanly:" >&2
    cat "$logs"/clients.*.err >&2
    tail -5 "$logs/node-1.err" >&2
    exit 1
  fi
  set -- $(cat "$logs"/clients.*.out | tr ' ' '\n' | awk -F= '
    $1 == "first_connect_ns" && (!f || $2 < f) { f = $2 }
    $1 == "last_assign_ns" && $2 > l { l = $2 }
    END { printf "%.0f %.1f\n", f / 1e6, (l - f) / 1e6 }') $(completed "$logs")
  echo "$2 $(($3 - $1))" >> "$FIGURES"
}

# run_launchers PLAN NODES LOGDIR: one run with a pai-launch per node, from the first
# "launcher-started" of node-2..node-NODES (node-1 started first and serves the coordinator);
# appends the same figures to $FIGURES.
run_launchers() {
  local plan=$1 nodes=$2 logs=$3 started assigned
  LAUNCHER_PIDS=""
  start_cluster "$plan" "$nodes" "$logs"
  wait_pids 120 $LAUNCHER_PIDS
  if [ "$FAILED" != 0 ]; then
    echo "error: $FAILED of $nodes launchers did not exit 0; node-1 said:" >&2
    tail -5 "$logs/node-1.err" >&2
    exit 1
  fi
  set -- $(journals "$logs" 2 "$nodes")
  started=$($EVENT_TIMES first launcher-started "$@")
  assigned=$($EVENT_TIMES last assigned "$@")
  echo "$((assigned - started)) $(($(completed "$logs") - started))" >> "$FIGURES"
}

# column N: "<median> <min> <max>" of column N of $FIGURES.
column() { cut -d' ' -f"$1" "$FIGURES" | stats; }

# measure LABEL KIND NODES BASE PORT: RUNS runs of KIND (clients|launchers); prints a row of
# "median (min)" per figure and sets COMPLETE to the median of "to complete". (Not in $(...):
# processes are started and waited for by this shell.)
measure() {
  local label=$1 kind=$2 nodes=$3 plan i
  plan=$(compile_cluster "rdzv-$kind-$nodes" "$nodes" "$4" "$5" "true" \
    "faultTolerance: {restart: {enabled: false}}")
  FIGURES=$WORK/figures-$kind-$nodes
  i=1
  while [ "$i" -le "$RUNS" ]; do
    "run_$kind" "$plan" "$nodes" "$WORK/logs-$kind-$nodes.$i"
    i=$((i + 1))
  done
  set -- $(column 1) $(column 2)
  printf '%-44s %18s %18s\n' "$label" "$1 ($2)" "$4 ($5)"
  COMPLETE=$4
}

echo "rendezvous: load average $(load_average) on $(nproc) cores (a busy machine inflates every figure)"
echo "clients: rendezvous_clients, $CLIENT_PROCESSES process(es) of one thread, each client its own connection"
printf '%-44s %18s %18s\n' "ms, median (min) of $RUNS runs" "to last assign" "to complete"
measure "$NODES launchers: 1 pai-launch + clients" clients "$NODES" 0 47100
big=$COMPLETE
measure "$REAL_NODES launchers: 1 pai-launch + clients" clients "$REAL_NODES" 10 47200
small_clients=$COMPLETE
measure "$REAL_NODES launchers: $REAL_NODES pai-launch processes" launchers "$REAL_NODES" 10 47300
small_real=$COMPLETE
echo "target: $NODES launchers to complete < 1000 ms: $big ms ($(awk -v v="$big" 'BEGIN { print (v < 1000) ? "met" : "NOT met" }'))"
echo "ratio to complete, $REAL_NODES real launchers / $REAL_NODES clients: $(ratio "$small_real" "$small_clients")"
echo "load average after: $(load_average)"
