#!/usr/bin/env bash
# End to end on a real (throwaway, 3-node) Slurm cluster: pai-compile --target slurm, sbatch,
# and pai-launch run --slurm on every node.
#
#   slurm_job_test.sh PAI_COMPILE PAI_LAUNCH
#
#   0. the cluster runs a plain sbatch + srun job on its three nodes;
#   1. a 3-node job whose ranks print their env: every rank runs once, on its own node, with
#      the right RANK / WORLD_SIZE / MASTER_ADDR, and the job ends with ExitCode 0:0
#      (plan folder given absolute, found through PAI_JOB_DIR);
#   2. a job whose rank 1 fails once with a retryable error ("NCCL error", exit 1): the
#      launchers restart it and the job still succeeds (plan folder given relative, found
#      under the folder sbatch ran in).
# Exit status: 0 passed, 1 failed (with the job output and the daemons' logs), 77 skipped
# (tests/slurm/cluster.sh cannot run a cluster here).
set -euo pipefail

(($# == 2)) || { echo "usage: slurm_job_test.sh PAI_COMPILE PAI_LAUNCH" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
compiler=$(realpath "$1")
launcher=$(realpath "$2")
readonly JOB_TIMEOUT=${PAI_SLURM_JOB_TIMEOUT:-120}

work=$(mktemp -d "${TMPDIR:-/tmp}/pai-slurm-test-XXXXXX")
cluster=$work/cluster
outputs=()

say() { printf 'slurm_job_test: %s\n' "$*" >&2; }
fail() {
  say "FAILED: $*"
  exit 1
}

cleanup() {
  local status=$?
  if ((status != 0 && status != 77)); then
    local out
    for out in "${outputs[@]}"; do
      printf '===== %s\n' "$out" >&2
      cat "$out" >&2 2>/dev/null || true
    done
    if [[ -e $cluster/slurm.conf ]]; then "$here/cluster.sh" logs "$cluster" || true; fi
  fi
  if [[ -e $cluster/.pai-test-cluster ]]; then "$here/cluster.sh" stop "$cluster" || true; fi
  rm -rf -- "$work"
  exit "$status"
}
trap cleanup EXIT

"$here/cluster.sh" start "$cluster" || exit $?
export SLURM_CONF=$cluster/slurm.conf

# Submits a job (sbatch's arguments); prints its id.
submit() {
  local id
  id=$(sbatch --parsable "$@") || fail "sbatch $* was refused"
  echo "${id%%;*}"
}

# Waits for job $1 to end; fails unless it COMPLETED with ExitCode 0:0.
wait_success() {
  local id=$1 deadline=$((SECONDS + JOB_TIMEOUT)) info state
  while :; do
    info=$(scontrol show job --oneliner "$id") || fail "scontrol show job $id failed"
    state=$(grep -o 'JobState=[A-Z_]*' <<<"$info")
    state=${state#JobState=}
    case $state in
      PENDING | CONFIGURING | RUNNING | COMPLETING | SUSPENDED) ;;
      *) break ;;
    esac
    if ((SECONDS >= deadline)); then
      scancel "$id" || true
      fail "job $id still $state after $JOB_TIMEOUT s"
    fi
    sleep 1
  done
  local exit_code
  exit_code=$(grep -o 'ExitCode=[0-9:]*' <<<"$info")
  [[ $state == COMPLETED && $exit_code == ExitCode=0:0 ]] ||
    fail "job $id ended $state with $exit_code"
  say "job $id: COMPLETED, $exit_code"
}

# The sorted, distinct values of "KEY=value" words in file $2 for KEY $1, space-separated.
values_of() {
  grep -o "$1=[^ ]*" "$2" | sed "s/^$1=//" | sort -u | tr '\n' ' ' | sed 's/ $//'
}

# --- 0. The cluster runs plain Slurm jobs on its three nodes.
cat >"$work/plain.sbatch" <<'EOF'
#!/bin/bash
#SBATCH --nodes=3
#SBATCH --ntasks-per-node=1
srun bash -c 'echo "NODEID=$SLURM_NODEID NAME=$SLURMD_NODENAME"'
EOF
outputs+=("$work/plain.out")
id=$(submit --output="$work/plain.out" "$work/plain.sbatch")
wait_success "$id"
[[ $(values_of NAME "$work/plain.out") == "node1 node2 node3" ]] ||
  fail "the plain job did not run on node1..node3"
say "0. the cluster runs jobs on 3 nodes"

# Ports for the jobs: the default range (20000-29999) is where other tests on this machine
# run their coordinators, and all three nodes are 127.0.0.1.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])')
port_range="portRange: {min: $port, max: $((port + 9))}"

# --- 1. Every rank runs once, on its own node, with the env contract.
mkdir -p "$work/specs"
cat >"$work/specs/ranks.yaml" <<EOF
apiVersion: pai/v1
kind: Job
name: slurm-ranks
$port_range
roles:
  worker:
    instances: 3
    nprocPerNode: 1
    command: >-
      echo "RANK=\$RANK WORLD_SIZE=\$WORLD_SIZE MASTER_ADDR=\$MASTER_ADDR
      NODE=\$SLURMD_NODENAME"
faultTolerance:
  restart: {enabled: false}
sanityCheck: {enabled: false}
EOF
"$compiler" --target slurm "$work/specs/ranks.yaml" -o "$work/ranks" >/dev/null
grep -q '^#SBATCH --nodes=3$' "$work/ranks/job.sbatch" || fail "job.sbatch does not ask for 3 nodes"
# slurmd cannot open --output in a folder that does not exist: pai-compile makes it.
out=$work/ranks/logs
[[ -d $out ]] || fail "pai-compile did not create $out for sbatch's --output"
id=$(export PAI_LAUNCH=$launcher PAI_JOB_DIR=$work/ranks && submit "$work/ranks/job.sbatch")
outputs+=("$out/slurm-$id.out")
wait_success "$id"
lines=$(grep -o 'RANK=[0-9]* WORLD_SIZE=[0-9]* MASTER_ADDR=[^ ]* NODE=[^ ]*' "$out/slurm-$id.out" |
  sort)
expected="RANK=0 WORLD_SIZE=3 MASTER_ADDR=127.0.0.1 NODE=node1
RANK=1 WORLD_SIZE=3 MASTER_ADDR=127.0.0.1 NODE=node2
RANK=2 WORLD_SIZE=3 MASTER_ADDR=127.0.0.1 NODE=node3"
[[ $lines == "$expected" ]] || fail "the ranks printed:
$lines
expected:
$expected"
say "1. ranks 0..2 ran once each on node1..node3"

# --- 2. A retryable failure is retried and the job succeeds.
marker=$work/failed-once
cat >"$work/specs/retry.yaml" <<EOF
apiVersion: pai/v1
kind: Job
name: slurm-retry
$port_range
roles:
  worker:
    instances: 3
    nprocPerNode: 1
    command: |
      if [ "\$RANK" = 1 ] && [ ! -e '$marker' ]; then
        touch '$marker'
        echo "NCCL error: unhandled system error (simulated by the test)"
        exit 1
      fi
      echo "DONE RANK=\$RANK RESTART=\$PAI_RESTART_COUNT"
faultTolerance:
  restart: {enabled: true, maxRestarts: 2, backoff: 1s}
  policy: exitCodeAndErrorMsg
sanityCheck: {enabled: false}
EOF
(cd "$work" && "$compiler" --target slurm specs/retry.yaml -o retry >/dev/null)
id=$(cd "$work" && export PAI_LAUNCH=$launcher && submit retry/job.sbatch)
outputs+=("$work/retry/logs/slurm-$id.out")
wait_success "$id"
[[ -e $marker ]] || fail "rank 1 never ran its failing first attempt"
grep -q 'NCCL error: unhandled system error' "$work/retry/logs/slurm-$id.out" ||
  fail "the failing attempt's output is not in the job output"
done_ranks=$(grep -o 'DONE RANK=[0-9]*' "$work/retry/logs/slurm-$id.out" | sort -u | tr '\n' ' ')
[[ $done_ranks == "DONE RANK=0 DONE RANK=1 DONE RANK=2 " ]] ||
  fail "not every rank finished: $done_ranks"
grep -q 'DONE RANK=1 RESTART=1' "$work/retry/logs/slurm-$id.out" ||
  fail "rank 1 did not finish in its second attempt (PAI_RESTART_COUNT=1)"
say "2. rank 1 failed once with a retryable error, was restarted, and the job succeeded"

# --- 3. Stopping the cluster leaves none of its daemons running.
pids=$(cat "$cluster"/run/*.pid)
"$here/cluster.sh" stop "$cluster"
for pid in $pids; do
  if kill -0 "$pid" 2>/dev/null && grep -qa -- "$cluster" "/proc/$pid/cmdline"; then
    fail "daemon $pid ($(tr '\0' ' ' <"/proc/$pid/cmdline")) survived cluster.sh stop"
  fi
done
say "3. cluster.sh stop stopped every daemon"
