# Sourced by the network-namespace tests (netns_test.sh, fabric_netns_test.sh): nodes that
# are network namespaces plugged into a bridge that lives in a namespace of its own, so the
# root namespace's links and routes are never touched, and real pai-launch processes in them.
#
# The sourcing script sets TEST (its name, for messages), SUBNET (three octets), TIMEOUT
# (seconds any wait may take) and `launcher` (pai-launch), then calls netns_init and
# netns_network COUNT. Launcher outputs go to $work/SCENARIO/NAME.err and .out; KEEP_WORK=1
# keeps $work for a look afterwards. Launchers heartbeat every PAI_NETNS_HEARTBEAT_MS ms
# (200 unless set: the tests run faster than with the default 1 s; benchmarks set 1000).

# Messages go to fd 3, the test's stderr, so a block can silence the shell's own job reports.
exec 3>&2
say() { printf '%s: %s\n' "$TEST" "$*" >&3; }
skip() {
  say "SKIPPED: $*"
  exit 77
}
fail() {
  say "FAILED: $*"
  exit 1
}

# Skips unless this runs as root with iproute2; makes $work; installs the cleanup.
netns_init() {
  ((EUID == 0)) || skip "needs root to create network namespaces"
  command -v ip >/dev/null || skip "ip (iproute2) is not installed"
  work=$(mktemp -d "${TMPDIR:-/tmp}/pai-$TEST-XXXXXX")
  namespaces=()   # created by this test, deleted by netns_cleanup
  declare -gA pids # "scenario/node" -> pid of a launcher (or other program) this test started
                   # and has not waited for
  outputs=()      # launcher output files, shown when the test fails
  mounts=()       # file systems this test mounted (netns_tmpfs), unmounted by netns_cleanup
  trap netns_cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
}

# Every process still in namespace $1: launchers and ranks this test started (the namespaces
# are this test's own, nothing else runs in them).
namespace_pids() { ip netns pids "$1" 2>/dev/null || true; }

netns_cleanup() {
  local status=$? key ns pid
  trap - EXIT INT TERM
  for key in "${!pids[@]}"; do
    kill -KILL "${pids[$key]}" 2>/dev/null || true
    wait "${pids[$key]}" 2>/dev/null || true
  done
  if ((status != 0 && status != 77)); then
    local out
    for out in "${outputs[@]}"; do
      printf '===== %s\n' "${out#"$work"/}" >&3
      cat "$out" >&3 2>/dev/null || true
    done
  fi
  # A namespace outlives `ip netns del` while a process holds it: empty it first.
  for ns in "${namespaces[@]}"; do
    for _ in 1 2 3; do
      pid=$(namespace_pids "$ns")
      [[ -z $pid ]] && break
      # shellcheck disable=SC2086  # one pid per word
      kill -KILL $pid 2>/dev/null || true
      sleep 0.1
    done
    # Deleting the switch namespace destroys its bridge and veth ends, and with them their
    # peers (eth0) in the node namespaces.
    if [[ -e /run/netns/$ns ]]; then ip netns del "$ns" || say "could not delete namespace $ns"; fi
  done
  local mounted
  for mounted in "${mounts[@]}"; do
    umount -l "$mounted" 2>/dev/null || say "could not unmount $mounted"
  done
  [[ -n ${KEEP_WORK:-} ]] || rm -rf -- "$work"
  exit "$status"
}

# A tmpfs of size $2 (e.g. 64m) mounted on folder $1 (made), a file system of its own for what
# a test fills; unmounted by netns_cleanup.
netns_tmpfs() {
  mkdir -p "$1"
  mount -t tmpfs -o "size=$2" "pai-$TEST" "$1" || fail "cannot mount a tmpfs on $1"
  mounts+=("$1")
}

# The namespace of node $1 of network $2 (default: none).
node_ns() { echo "pai-ns${2:-}$1-$$"; }

# The network: pai-swTAG-PID holds bridge br0; node N (1..$1) is namespace pai-nsTAGN-PID
# with eth0 at SUBNET.N/24 (SUBNET $2, default $SUBNET; TAG $3, default none: a test may make
# several networks), a veth whose other end (portN) is a port of br0. The veth pairs are
# created in the switch namespace with their eth0 end straight in the node's, so no link ever
# appears in the root namespace. Sets node_count, and `addresses` and `node_namespaces` to the
# nodes' comma-separated lists.
netns_network() {
  local count=$1 subnet=${2:-$SUBNET} tag=${3:-} n ns switch=pai-sw${3:-}-$$
  node_count=$count addresses="" node_namespaces=""
  # Each namespace is listed before it is made, so an interrupt in between still removes it.
  namespaces+=("$switch")
  ip netns add "$switch" 2>"$work/netns.err" ||
    skip "cannot create a network namespace: $(cat "$work/netns.err")"
  ip -n "$switch" link add br0 type bridge # STP off (the default): ports forward at once
  ip -n "$switch" link set br0 up
  for ((n = 1; n <= count; n++)); do
    ns=$(node_ns "$n" "$tag")
    namespaces+=("$ns")
    ip netns add "$ns"
    ip -n "$ns" link set lo up
    ip -n "$switch" link add "port$n" type veth peer name eth0 netns "$ns"
    ip -n "$switch" link set "port$n" master br0 up
    ip -n "$ns" addr add "$subnet.$n/24" dev eth0
    ip -n "$ns" link set eth0 up
    addresses+="${addresses:+,}$subnet.$n"
    node_namespaces+="${node_namespaces:+,}$ns"
  done
  say "network: namespaces $switch, $node_namespaces; bridge br0 in $switch, $subnet.1-$count/24"
}

# Starts launcher $1 ("SCENARIO/NAME") in node namespace $2 with the plan in
# $work/SCENARIO/plan and pai-launch arguments $3... (--node NAME, or none to let it find its
# node by address). Its log folder is $work/SCENARIO/NAME.logs, or $SHARED_LOG_DIR when set (one
# folder for every node, as on a shared file system).
start_launcher() {
  local key=$1 ns
  ns=$(node_ns "$2")
  shift 2
  local scenario=${key%%/*}
  outputs+=("$work/$key.err" "$work/$key.out")
  ip netns exec "$ns" "$launcher" run --plan "$work/$scenario/plan/plan.json" \
    --token-file "$work/$scenario/plan/job.token" --log-dir "${SHARED_LOG_DIR:-$work/$key.logs}" \
    --heartbeat-interval-ms "${PAI_NETNS_HEARTBEAT_MS:-200}" --rendezvous-timeout "${TIMEOUT}s" "$@" \
    >"$work/$key.out" 2>"$work/$key.err" &
  # ip netns exec execs the command itself: $! is the launcher.
  pids[$key]=$!
}

# Waits until launcher "scenario/node" $1 printed a line matching $2 (grep -E) on its stdout,
# for at most TIMEOUT seconds.
wait_output() {
  local deadline=$((SECONDS + TIMEOUT))
  until grep -qE "$2" "$work/$1.out" 2>/dev/null; do
    ((SECONDS < deadline)) || fail "$1 never printed '$2'"
    sleep 0.1
  done
}

# Prints the time, in ms since the epoch, of the first event $2 of launcher $1's coordinator
# journal whose fields match every KEY=VALUE after it (bench/event_times.py); fails the test
# when there is none.
coordinator_event_ms() {
  local key=$1 event=$2 field args=()
  shift 2
  for field in "$@"; do args+=(--field "$field"); done
  /usr/bin/python3 "$source_dir/bench/event_times.py" first "$event" "${args[@]}" \
    "$work/$key.logs/coordinator/events.jsonl" || fail "no $event $* in $key's journal"
}

# Milliseconds since the epoch, now.
now_ms() { date +%s%3N; }

# Waits for the launcher "scenario/node" $1 until second $2 of the test at most (then kills it
# and fails); sets `exited` to its exit code. Not in a subshell: only this shell can wait for it.
wait_launcher() {
  local key=$1 deadline=$2 pid=${pids[$1]} state
  while { read -r _ _ state _ <"/proc/$pid/stat"; } 2>/dev/null && [[ $state != Z ]]; do
    if ((SECONDS >= deadline)); then
      kill -KILL "$pid" 2>/dev/null || true
      fail "launcher $key still runs after ${TIMEOUT}s"
    fi
    sleep 0.05
  done
  exited=0
  wait "$pid" || exited=$?
  unset "pids[$key]"
}

# Fails unless launchers $2... ("SCENARIO/NAME") exit with code $1.
expect_exit() {
  local code=$1 key deadline=$((SECONDS + TIMEOUT))
  shift
  for key in "$@"; do
    wait_launcher "$key" "$deadline"
    ((exited == code)) || fail "launcher $key exited with $exited, expected $code"
  done
}

# Fails unless launchers $1... ("SCENARIO/NAME") exit with code 0.
expect_success() { expect_exit 0 "$@"; }

# Fails unless launcher $1 ("SCENARIO/NAME") printed text $2 to its stderr, within 5 s: one
# that still runs may not have written it yet.
expect_said() {
  local deadline=$((SECONDS + 5))
  until grep -qF -- "$2" "$work/$1.err"; do
    ((SECONDS < deadline)) || fail "launcher $1 never said: $2"
    sleep 0.05
  done
}

# The pids in namespace $1 but the ended coordinators a job left on purpose (docs/launch.md,
# "When a launcher comes late"), which are ended here: `pai-launch ended-coordinator ...`.
job_pids() {
  local pid
  for pid in $(namespace_pids "$1"); do
    if [[ $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) == *"/pai-launch ended-coordinator "* ]]; then
      kill -TERM "$pid" 2>/dev/null || true
    else
      echo "$pid"
    fi
  done
}

# Fails if a process is left in a node's namespace once its launcher is gone.
expect_no_leftovers() {
  local n ns left deadline=$((SECONDS + 5))
  for ((n = 1; n <= node_count; n++)); do
    ns=$(node_ns "$n")
    # A dying process may take a moment to leave.
    while left=$(job_pids "$ns") && [[ -n $left ]] && ((SECONDS < deadline)); do sleep 0.05; done
    [[ -z $left ]] || fail "$1: processes left in $ns: $(ps -o pid=,args= -p "${left//$'\n'/,}" || true)"
  done
}

# The spec's `hosts:` block: node-1..node-$1 at $SUBNET.1..$1.
hosts_yaml() {
  local n
  echo "hosts:"
  for ((n = 1; n <= $1; n++)); do echo "  - {name: node-$n, address: $SUBNET.$n}"; done
}

# Compiles $work/$1.yaml into $work/$1/plan with $compiler, failing with its output.
compile_spec() {
  "$compiler" "$work/$1.yaml" -o "$work/$1/plan" >"$work/$1.compile" 2>&1 ||
    fail "pai-compile $1.yaml failed: $(cat "$work/$1.compile")"
}
