#!/bin/sh
# Job-wide restart of many nodes on one coordinator (issue: 8,192 nodes restarted in under 1 s
# after a failure, plus backoff and checks).
#
# The coordinator is the real `pai-launch run` of node-1 of an N-node job in sync mode
# (`backoff: 0`, sanity checks off); its own rank runs `sleep` on attempt 0 and exits 0 on
# attempt 1. Nodes 2..N are bench/rendezvous_clients --fail-instance K: real protocol clients
# whose attempt 0 runs (heartbeating) until `stop`, except instance K, whose ranks exit 1 about
# 2 s after its start; every attempt 1 exits 0 at once, so the job then succeeds.
#
#   NODES=8192 RUNS=3 CLIENT_PROCESSES=1 LOSS=exit PAI_BUILD=build bench/restart_scale.sh
#
# LOSS=close or LOSS=silent measures node loss instead: instance K's launcher closes its
# connection, or sends nothing more, and the figure is the time to the coordinator's
# `node-lost` record (the heartbeat window is 5 s); the job then fails (no spare), as it should.
#
# Figures (median of RUNS), wall clock, the clients' in ns and node-1's journal in ms:
#   failure -> last start     from instance K's `exited` 1 to the last `start` of attempt 1
#                             received by a client
#   failure -> node-1 running from the same to node-1's own rank of attempt 1 started
. "$(dirname -- "$0")/launch_lib.sh"
. "$BENCH_DIR/cluster_lib.sh"
NODES=${NODES:-8192}
RUNS=${RUNS:-3}
CLIENT_PROCESSES=${CLIENT_PROCESSES:-1}
FAIL_INSTANCE=${FAIL_INSTANCE:-$((NODES / 2))}
LOSS=${LOSS:-exit}
CLIENTS=$PAI_BUILD/bench/rendezvous_clients
[ -x "$CLIENTS" ] || { echo "error: $CLIENTS not built (ninja -C $PAI_BUILD rendezvous_clients)" >&2; exit 2; }

plan=$(compile_cluster "restart-scale-$NODES" "$NODES" 0 47500 \
  'if [ "$PAI_RESTART_COUNT" = 0 ]; then exec sleep 1000; fi' \
  "faultTolerance: {mode: sync, restart: {maxRestarts: 1, backoff: 0}, gracePeriod: 1s}")

run_once() {
  local logs=$1 coordinator_pid clients_failed running lost
  LAUNCHER_PIDS=""
  start_cluster "$plan" 1 "$logs"
  coordinator_pid=$LAUNCHER_PIDS
  start_clients "$plan" "$NODES" "$logs" --fail-instance "$FAIL_INSTANCE" --fail-mode "$LOSS"
  wait_pids 180 $CLIENT_PIDS
  clients_failed=$FAILED
  wait_pids 30 $coordinator_pid
  if [ "$LOSS" != exit ]; then
    set -- $(cat "$logs"/clients.*.out | tr ' ' '\n' | awk -F= '$1 == "fail_ns" && $2 > 0 { printf "%.0f", $2 / 1e6 }')
    lost=$($EVENT_TIMES first node-lost "$logs/coordinator/events.jsonl")
    if [ -z "${1:-}" ] || [ -z "$lost" ]; then
      echo "error: no loss, or no node-lost record; node-1 said:" >&2
      tail -5 "$logs/node-1.err" >&2
      exit 1
    fi
    echo "$((lost - $1))" >> "$FIGURES"
    return
  fi
  if [ "$clients_failed" != 0 ] || [ "$FAILED" != 0 ]; then
    echo "error: the $NODES-node job did not restart and finish cleanly:" >&2
    cat "$logs"/clients.*.err >&2
    tail -5 "$logs/node-1.err" >&2
    exit 1
  fi
  set -- $(cat "$logs"/clients.*.out | tr ' ' '\n' | awk -F= '
    $1 == "fail_ns" && $2 > 0 { f = $2 }
    $1 == "last_restart_ns" && $2 > l { l = $2 }
    $1 == "restarted" { r += $2 }
    END { printf "%.0f %.1f %d\n", f / 1e6, (l - f) / 1e6, r }')
  if [ "$3" != $((NODES - 1)) ]; then
    echo "error: $3 of $((NODES - 1)) clients got a start of attempt 1" >&2
    exit 1
  fi
  running=$($EVENT_TIMES first process-started --attempt 1 "$logs/worker-0/events.jsonl")
  echo "$2 $((running - $1))" >> "$FIGURES"
}

echo "restart_scale: load average $(load_average) on $(nproc) cores (a busy machine inflates every figure)"
echo "$NODES nodes: 1 pai-launch + rendezvous_clients in $CLIENT_PROCESSES process(es), sync mode, backoff 0; instance $FAIL_INSTANCE fails"
FIGURES=$WORK/figures
runs "$RUNS" run_once
printf '%-44s %8s %8s %8s\n' "ms, $RUNS runs" median min max
if [ "$LOSS" != exit ]; then
  row "launcher $LOSS -> node-lost journaled" 1
  echo "target: within the heartbeat window (5 s) for silent, at once for close"
else
  row "failure -> last start of attempt 1 (clients)" 1
  row "failure -> node-1's rank of attempt 1 running" 2
  echo "target: under 1000 ms after the failure (backoff and checks are 0 here)"
fi
echo "load average after: $(load_average)"
