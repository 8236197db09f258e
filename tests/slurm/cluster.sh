#!/usr/bin/env bash
# A throwaway Slurm cluster on this machine, for tests: one slurmctld and three slurmd
# (node1..node3, all at 127.0.0.1 on their own ports), authenticated by a private munged.
# node1 and node2 have one (fake) GPU each, node3 none: enough for `--gpus-per-node=1` and for
# a heterogeneous job whose CPU-only component comes last in name order. Each node has a TmpFS
# of its own, where Slurm's PMIx server makes a step's folder (`srun --mpi=pmix`): in a shared
# /tmp the second node of a step would find the first one's and fail.
# Everything it makes lives under DIR: key, sockets, config, state, spool, tmp, logs, pid
# files.
#
#   tests/slurm/cluster.sh start DIR   start it; returns once sinfo shows 3 idle nodes.
#                                      Use it with SLURM_CONF=DIR/slurm.conf.
#   tests/slurm/cluster.sh stop DIR    cancel its jobs, stop exactly the daemons it started
#                                      (their pids are in DIR/run), remove DIR.
#   tests/slurm/cluster.sh logs DIR    print the tail of every daemon's log.
#
# Exit status: 0 ok; 77 skipped (not root, or munge/Slurm not installed: scripts/deps.sh
# installs them); 1 the cluster failed to start (its logs are printed, and what started is
# stopped again); 2 usage.
set -euo pipefail

readonly NODES=(node1 node2 node3)
readonly GPU_NODES=(node1 node2)
readonly CPU_NODE=node3
readonly START_TIMEOUT=${PAI_SLURM_START_TIMEOUT:-90}
readonly DAEMONS=(munged slurmctld slurmd)
readonly CLIENTS=(mungekey munge unmunge sinfo scontrol sbatch srun scancel)

say() { printf 'cluster.sh: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

usage() {
  say "usage: cluster.sh start|stop|logs DIR"
  exit 2
}

skip_unless_usable() {
  if [[ $(id -u) -ne 0 ]]; then
    say "skipped: the test cluster runs slurmd and munged as root; run as root"
    exit 77
  fi
  local missing=() program
  for program in "${DAEMONS[@]}" "${CLIENTS[@]}"; do
    command -v "$program" >/dev/null 2>&1 || missing+=("$program")
  done
  if ((${#missing[@]})); then
    say "skipped: not installed: ${missing[*]} (scripts/deps.sh installs slurm-wlm and munge)"
    exit 77
  fi
}

# N free TCP ports on 127.0.0.1, one per line, below the kernel's ephemeral range (and below
# 20000, where other tests run their coordinators). Ports from that range were at times
# taken before a slurmd could listen on its own ("Address already in use"), likely as the
# source port of a connection another daemon was making. They are closed again at once, so
# a port could still be taken in between, which the start's checks would report.
free_ports() {
  python3 - "$1" <<'EOF'
import random, socket, sys
low = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
top = min(low, 20000)
held = []
while len(held) < int(sys.argv[1]):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", random.randrange(top - 8000, top)))
    except OSError:
        s.close()
        continue
    held.append(s)
    print(s.getsockname()[1])
for s in held:
    s.close()
EOF
}

# Runs "$@" for up to $1 seconds until it succeeds; 1 on timeout.
wait_for() {
  local timeout=$1
  shift
  local deadline=$((SECONDS + timeout))
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || return 1
    sleep 0.5
  done
}

# Starts "$@" in its own session, output to log file $2 (its stdout/stderr catch what a
# daemon says before it opens its own log), and records its pid in DIR/run/$1.pid.
launch() {
  local name=$1 log=$2
  shift 2
  setsid "$@" </dev/null >>"$log" 2>&1 &
  echo $! >"$dir/run/$name.pid"
}

# The pid recorded for daemon $1 if that process still runs program $2 with this cluster's
# folder on its command line; else nothing. Checking both guards against a recycled pid.
# (Not /proc/PID/exe: Debian's slurmctld is a link to slurmctld-wlm.)
live_pid() {
  local file=$dir/run/$1.pid pid argv=()
  [[ -f $file ]] || return 0
  pid=$(<"$file")
  [[ $pid =~ ^[0-9]+$ ]] || return 0
  mapfile -d "" -t argv 2>/dev/null <"/proc/$pid/cmdline" || return 0
  ((${#argv[@]})) || return 0
  [[ ${argv[0]##*/} == "$2" && ${argv[*]} == *"$dir/"* ]] && echo "$pid"
  return 0
}

print_logs() {
  local log
  for log in "$dir"/log/*; do
    [[ -f $log ]] || continue
    printf '===== %s (last 40 lines)\n' "$log" >&2
    tail -n 40 "$log" >&2
  done
}

node_states() {
  sinfo --noheader --Node --format='%N %T' 2>/dev/null
}

three_idle() {
  [[ $(node_states | grep -c ' idle$') -eq ${#NODES[@]} ]]
}

write_config() {
  local ports cpus memory
  mapfile -t ports < <(free_ports $((1 + ${#NODES[@]})))
  cpus=$(nproc)
  # Far below the machine's memory: three slurmd share it, and a node whose RealMemory is
  # more than it has is drained.
  memory=1000
  cat >"$dir/slurm.conf" <<EOF
# Written by tests/slurm/cluster.sh: a test cluster under $dir.
ClusterName=paitest
SlurmctldHost=localhost
SlurmctldPort=${ports[0]}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
TmpFS=$dir/tmp/%n
SlurmctldPidFile=$dir/run/slurmctld.own.pid
SlurmdPidFile=$dir/run/slurmd-%n.own.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
# Heterogeneous jobs are scheduled by backfill only; once a second, not every 30 s.
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1
# Fake GPUs: gres.conf gives each a device file (/dev/null), so that a step gets
# SLURM_STEP_GPUS and CUDA_VISIBLE_DEVICES as on a real GPU node.
GresTypes=gpu
MpiDefault=none
# No slurmdbd, so no sacct ("Slurm accounting storage is disabled"): the job completion log
# (jobcomp/filetxt) records each job's final JobState, what accounting would record.
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/log/jobcomp.log
# The nodes share this machine: trust the config over what each slurmd detects.
SlurmdParameters=config_overrides
ReturnToService=2
# Finished jobs stay visible to scontrol show job for 10 minutes.
MinJobAge=600
KillWait=5
InactiveLimit=0
SlurmdTimeout=60
MailProg=/bin/true
EOF
  local i gres weight
  for i in "${!NODES[@]}"; do
    # The GPU nodes weigh more, so that Slurm gives a CPU-only request the CPU node first, as
    # sites set Weight=.
    gres=Gres=gpu:1 weight=Weight=10
    if [[ ${NODES[i]} == "$CPU_NODE" ]]; then gres='' weight=Weight=1; fi
    printf 'NodeName=%s NodeAddr=127.0.0.1 NodeHostname=%s Port=%s CPUs=%s RealMemory=%s %s%s %s\n' \
      "${NODES[i]}" "${NODES[i]}" "${ports[i + 1]}" "$cpus" "$memory" "${gres:+$gres }" \
      "$weight" State=UNKNOWN >>"$dir/slurm.conf"
  done
  printf 'NodeName=%s Name=gpu File=/dev/null\n' "${GPU_NODES[@]}" >"$dir/gres.conf"
  printf 'PartitionName=test Nodes=node[1-%d] Default=YES MaxTime=INFINITE State=UP\n' \
    "${#NODES[@]}" >>"$dir/slurm.conf"
}

start_munge() {
  local socket=$dir/munge/munge.socket
  mungekey --create --keyfile="$dir/munge/munge.key" >>"$dir/log/munged.out" 2>&1
  chmod 0400 "$dir/munge/munge.key"
  launch munged "$dir/log/munged.out" munged --foreground --force \
    --socket="$socket" --key-file="$dir/munge/munge.key" \
    --pid-file="$dir/munge/munged.pid" --log-file="$dir/log/munged.log" \
    --seed-file="$dir/munge/munged.seed"
  wait_for 15 sh -c 'munge -n -S "$1" | unmunge -S "$1"' sh "$socket" ||
    fail_start "munged did not answer on $socket within 15 s"
}

start_slurm() {
  launch slurmctld "$dir/log/slurmctld.out" slurmctld -D -f "$dir/slurm.conf"
  wait_for 30 scontrol ping || fail_start "slurmctld did not answer within 30 s"
  local node
  for node in "${NODES[@]}"; do
    launch "slurmd-$node" "$dir/log/slurmd-$node.out" slurmd -D -N "$node" -f "$dir/slurm.conf"
  done
  if ! wait_for "$START_TIMEOUT" three_idle; then
    say "node states: $(node_states | tr '\n' ' ')"
    fail_start "the nodes were not all idle within $START_TIMEOUT s"
  fi
}

fail_start() {
  say "$*"
  print_logs
  stop_daemons
  exit 1
}

# SIGTERM to each recorded daemon still running, SIGKILL to any left after 10 s.
stop_daemons() {
  local names=(slurmctld) node name pid pids=()
  for node in "${NODES[@]}"; do names+=("slurmd-$node"); done
  names+=(munged)
  for name in "${names[@]}"; do
    pid=$(live_pid "$name" "${name%%-*}")
    [[ -n $pid ]] || continue
    kill -TERM "$pid" 2>/dev/null || true
    pids+=("$pid")
  done
  local deadline=$((SECONDS + 10))
  for pid in "${pids[@]}"; do
    while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
    if kill -0 "$pid" 2>/dev/null; then
      say "pid $pid did not stop on SIGTERM; sending SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
}

start() {
  skip_unless_usable
  [[ -e $dir/slurm.conf ]] && die "$dir already holds a cluster; stop it first"
  mkdir -p "$dir"/{munge,run,log,state} "${NODES[@]/#/$dir/spool/}" "${NODES[@]/#/$dir/tmp/}"
  chmod 0755 "$dir/munge"
  : >"$dir/.pai-test-cluster"
  export SLURM_CONF=$dir/slurm.conf
  write_config
  start_munge
  start_slurm
  say "started: 3 idle nodes; SLURM_CONF=$SLURM_CONF"
}

stop() {
  [[ -e $dir/.pai-test-cluster ]] || die "$dir is not a test cluster's folder"
  export SLURM_CONF=$dir/slurm.conf
  # Jobs first, so that no slurmstepd outlives its slurmd.
  if [[ -n $(live_pid slurmctld slurmctld) ]]; then
    scancel --quiet --user=root 2>/dev/null || true
    wait_for 15 sh -c '[ -z "$(squeue --noheader --states=RUNNING,COMPLETING)" ]' || true
  fi
  stop_daemons
  rm -rf -- "$dir"
}

(($# == 2)) || usage
dir=$(realpath -m -- "$2")
case $1 in
  start) start ;;
  stop) stop ;;
  logs) print_logs ;;
  *) usage ;;
esac
