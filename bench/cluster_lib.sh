# Sourced by the multi-node benchmarks (rendezvous.sh, restart_64.sh,
# rendezvous_torchrun.sh) after launch_lib.sh: compiles N-node jobs whose nodes are loopback
# addresses of their own (Linux routes all of 127.0.0.0/8 to lo) and runs one real pai-launch
# per node, each connecting from its node's address as on a cluster. Only processes started
# here are ever signalled, by PID. KEEP=1 keeps the work folder (logs, journals) and prints it.
#
# The benchmarks use 127.50.0.0/16 and ports 47000-47999, so that they do not collide with
# tests run on the same machine.

EVENT_TIMES="$PYTHON $BENCH_DIR/event_times.py"
BENCH_PIDS=""  # every process started here, for the cleanup

stop_started() {
  local left="" pid
  for pid in $BENCH_PIDS; do
    if ours_running "$pid"; then kill -TERM "$pid" 2>/dev/null && left="$left $pid"; fi
  done
  [ -n "$left" ] || return 0
  sleep 1
  for pid in $left; do
    if ours_running "$pid"; then kill -KILL "$pid" 2>/dev/null || true; fi
  done
}
finish_work() {
  stop_started
  if [ "${KEEP:-0}" = 1 ]; then echo "work folder kept: $WORK" >&2; else rm -rf "$WORK"; fi
}
trap finish_work EXIT
# A signal (or a closed pipe: `bench/rendezvous.sh | head`) ends the script through the
# EXIT trap, so that nothing it started survives it.
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 141' PIPE
trap 'exit 143' TERM

# Functions declare their variables `local` (dash, bash and busybox sh have it): sh has no
# other scope, and these helpers are called from loops of the scripts.

# Each launcher and its coordinator hold one descriptor per peer.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

now_ms() { echo $(($(date +%s%N) / 1000000)); }

load_average() { cut -d' ' -f1-3 /proc/loadavg; }

# compile_cluster NAME NODES BASE PORT COMMAND [EXTRA_YAML [ROLE_YAML]]: compiles a job of NODES nodes
# node-1..node-NODES, node-K at 127.50.(BASE + (K-1)/250).((K-1)%250 + 1), one instance of
# one process on
# each, sanity checks off, ports PORT..PORT+99 (the coordinator gets PORT), into $WORK/NAME;
# prints the plan's path. COMMAND runs with /bin/sh -c. EXTRA_YAML is added at the top
# level, ROLE_YAML (one line, e.g. "nprocPerNode: 2") to the role.
compile_cluster() {
  local name=$1 nodes=$2 base=$3 port=$4 command=$5 extra=${6:-} role=${7:-}
  {
    cat <<SPEC
apiVersion: pai/v1
kind: Job
name: $name
portRange: {min: $port, max: $((port + 99))}
sanityCheck: {enabled: false}
roles:
  worker:
    instances: $nodes
    $role
    command: |
$(printf '%s\n' "$command" | sed 's/^/      /')
$extra
hosts:
SPEC
    awk -v n="$nodes" -v b="$base" 'BEGIN { for (k = 1; k <= n; k++)
      printf "  - {name: node-%d, address: 127.50.%d.%d}\n", k, b + int((k - 1) / 250), (k - 1) % 250 + 1 }'
  } > "$WORK/$name.yaml"
  "$PAI_COMPILE" "$WORK/$name.yaml" -o "$WORK/$name" > /dev/null
  echo "$WORK/$name/plan.json"
}

# start_launcher PLAN K LOGDIR [ARGS...]: starts pai-launch for node-K in the background, its
# stderr in LOGDIR/node-K.err (rank output is in the journals' folders); adds the PID to
# LAUNCHER_PIDS and BENCH_PIDS.
LAUNCHER_PIDS=""
start_launcher() {
  local plan=$1 k=$2 logs=$3
  shift 3
  "$PAI_LAUNCH" run --plan "$plan" --node "node-$k" --log-dir "$logs" "$@" \
    > /dev/null 2> "$logs/node-$k.err" &
  LAUNCHER_PIDS="$LAUNCHER_PIDS $!"
  BENCH_PIDS="$BENCH_PIDS $!"
}

# wait_for_line FILE TEXT SECONDS: waits until FILE holds TEXT; false after SECONDS.
wait_for_line() {
  local deadline
  deadline=$(($(now_ms) + $3 * 1000))
  until grep -q -- "$2" "$1" 2>/dev/null; do
    [ "$(now_ms)" -lt "$deadline" ] || return 1
    sleep 0.01
  done
}

# start_cluster PLAN NODES LOGDIR [ARGS...]: node-1, which runs the coordinator, then (once
# it listens) node-2..node-NODES. Fails when the coordinator does not listen within 30 s.
start_cluster() {
  local plan=$1 nodes=$2 logs=$3 k
  shift 3
  mkdir -p "$logs"
  start_launcher "$plan" 1 "$logs" "$@"
  if ! wait_for_line "$logs/node-1.err" "coordinator: listening" 30; then
    echo "error: node-1's coordinator did not start; its output:" >&2
    cat "$logs/node-1.err" >&2
    return 1
  fi
  k=2
  while [ "$k" -le "$nodes" ]; do
    start_launcher "$plan" "$k" "$logs" "$@"
    k=$((k + 1))
  done
}

# ours_running PID: whether PID is a running child of this shell. A zombie (exited, not yet
# waited for) does not count, nor a PID that the system gave to another process after the
# shell reaped ours: only our own processes are ever signalled.
ours_running() {
  set -- $(awk '{ print $3, $4 }' "/proc/$1/stat" 2>/dev/null) || return 1
  [ "${1:-Z}" != Z ] && [ "${2:-}" = "$$" ]
}

# wait_pids SECONDS PID...: waits for the PIDs to end, stopping (TERM, then KILL) those still
# running after SECONDS; sets FAILED to how many did not exit 0. (Not in $(...): a subshell
# cannot wait for this shell's children.)
wait_pids() {
  local deadline pid rc
  deadline=$(($(now_ms) + $1 * 1000))
  shift
  for pid in "$@"; do
    while ours_running "$pid" && [ "$(now_ms)" -lt "$deadline" ]; do sleep 0.05; done
  done
  FAILED=0
  for pid in "$@"; do
    if ours_running "$pid"; then
      echo "warning: PID $pid still runs after the benchmark: stopping it" >&2
      kill -TERM "$pid" 2>/dev/null || true
      sleep 1
      if ours_running "$pid"; then kill -KILL "$pid" 2>/dev/null || true; fi
    fi
    rc=0
    wait "$pid" || rc=$?
    [ "$rc" = 0 ] || FAILED=$((FAILED + 1))
    BENCH_PIDS=$(printf '%s\n' $BENCH_PIDS | grep -vx "$pid" | tr '\n' ' ')
  done
}

# journals LOGDIR FIRST LAST: the events.jsonl of node-FIRST..node-LAST (node-K runs
# worker-(K-1)).
journals() {
  local k=$2
  while [ "$k" -le "$3" ]; do
    printf '%s\n' "$1/worker-$((k - 1))/events.jsonl"
    k=$((k + 1))
  done
}

# start_clients PLAN NODES LOGDIR [ARGS...]: rendezvous_clients ($CLIENTS) for node-2..
# node-NODES, split into CLIENT_PROCESSES processes, with ARGS; their output in
# LOGDIR/clients.<p>.out and .err; their PIDs in CLIENT_PIDS (and BENCH_PIDS).
start_clients() {
  local plan=$1 nodes=$2 logs=$3 per first last p
  shift 3
  per=$(((nodes - 1 + CLIENT_PROCESSES - 1) / CLIENT_PROCESSES))
  CLIENT_PIDS="" first=2 p=0
  while [ "$first" -le "$nodes" ]; do
    last=$((first + per - 1))
    [ "$last" -le "$nodes" ] || last=$nodes
    "$CLIENTS" --plan "$plan" --first "$first" --last "$last" "$@" \
      > "$logs/clients.$p.out" 2> "$logs/clients.$p.err" &
    CLIENT_PIDS="$CLIENT_PIDS $!"
    BENCH_PIDS="$BENCH_PIDS $!"
    first=$((last + 1)) p=$((p + 1))
  done
}

# start_simulated_job PLAN NODES LOGDIR RANKS_PER_NODE: node-1's real launcher, which serves
# the coordinator (its PID in COORDINATOR), and rendezvous_clients for the other nodes
# (CLIENT_PIDS), heartbeating every second for HOLD seconds. They handshake at most 1,024 at
# a time: one client thread then keeps up with its launchers' first heartbeats while the
# others still connect. Returns once the rendezvous is complete, or 1 (everything stopped)
# when it is not within 60 s.
start_simulated_job() {
  local plan=$1 nodes=$2 logs=$3 ranks=$4
  LAUNCHER_PIDS=""
  start_cluster "$plan" 1 "$logs"
  COORDINATOR=${LAUNCHER_PIDS# }
  start_clients "$plan" "$nodes" "$logs" --heartbeat-seconds "$HOLD" --ranks-per-node "$ranks" \
    --max-connecting 1024
  if ! wait_for_line "$logs/node-1.err" "rendezvous complete" 60; then
    wait_pids 0 $CLIENT_PIDS $COORDINATOR 2> /dev/null
    return 1
  fi
}

# runs RUNS FUNCTION: FUNCTION "$WORK/logs.<i>" for i in 1..RUNS.
runs() {
  local i=1
  while [ "$i" -le "$1" ]; do
    "$2" "$WORK/logs.$i"
    i=$((i + 1))
  done
}

# row LABEL N: a table row of LABEL and "<median> <min> <max>" of column N of $FIGURES.
row() {
  set -- "$1" $(cut -d' ' -f"$2" "$FIGURES" | stats)
  printf '%-44s %8s %8s %8s\n' "$1" "$2" "$3" "$4"
}

# stats: "<median> <min> <max>" of the numbers on stdin, one per line.
stats() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)], v[1], v[NR] }'; }
median() { stats | cut -d' ' -f1; }
