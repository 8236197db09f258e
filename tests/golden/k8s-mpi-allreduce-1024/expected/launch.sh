#!/bin/sh
# Starts pai-launch on every host of job nccl-allreduce-1024 (written by pai-compile 0.1.0).
#
# Usage: ./launch.sh [ssh|pdsh|local]     (default: ssh)
#   ssh    one `ssh -o BatchMode=yes ADDRESS pai-launch run ... --node NAME` per host
#   pdsh   one `pdsh -S -w HOSTS pai-launch run ...`; each launcher finds its node by its
#          hostname or address
#   local  every launcher on this machine, each with --node NAME
# Environment:
#   PAI_LAUNCH      the launcher program on the hosts (default: pai-launch)
#   PAI_REMOTE_DIR  where this folder lies on the hosts (default: its absolute path here)
# Exit status: 0 when every launcher succeeded, 1 when any failed, 2 on a usage error.
set -u

PLAN_DIR=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd -P) || exit 2
PAI_LAUNCH=${PAI_LAUNCH:-pai-launch}
PAI_REMOTE_DIR=${PAI_REMOTE_DIR:-$PLAN_DIR}

# $1 as one word for the remote shell: single-quoted, each ' written as '"'"'.
quote() {
  rest=$1 out=
  while :; do
    case $rest in
      *"'"*) out=$out${rest%%"'"*}"'\"'\"'"; rest=${rest#*"'"} ;;
      *) break ;;
    esac
  done
  printf "'%s%s'" "$out" "$rest"
}

# The launcher's command line for the remote shell: [NODE].
remote_command() {
  cmd="$(quote "$PAI_LAUNCH") run --plan $(quote "$PAI_REMOTE_DIR/plan.json")"
  if [ $# -gt 0 ]; then cmd="$cmd --node $(quote "$1")"; fi
  printf '%s --token-file %s' "$cmd" "$(quote "$PAI_REMOTE_DIR/job.token")"
}

pids=
start_local() {  # NAME ADDRESS
  "$PAI_LAUNCH" run --plan "$PLAN_DIR/plan.json" --node "$1" --token-file "$PLAN_DIR/job.token" &
  pids="$pids $!"
}
start_ssh() {  # NAME ADDRESS
  ssh -o BatchMode=yes -- "$2" "$(remote_command "$1")" &
  pids="$pids $!"
}
pdsh_host() {  # NAME ADDRESS
  printf '%s\n' "$2"
}
wait_all() {
  status=0
  for pid in $pids; do
    wait "$pid" || status=1
  done
  return $status
}
trap 'kill $pids 2>/dev/null; exit 130' INT
trap 'kill $pids 2>/dev/null; exit 143' TERM

# Runs "$@" NAME ADDRESS for every host: placement hosts in order, then spares.
each_host() {
  "$@" nccl-allreduce-1024-launcher nccl-allreduce-1024-launcher.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-0 nccl-allreduce-1024-worker-0.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-1 nccl-allreduce-1024-worker-1.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-2 nccl-allreduce-1024-worker-2.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-3 nccl-allreduce-1024-worker-3.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-4 nccl-allreduce-1024-worker-4.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-5 nccl-allreduce-1024-worker-5.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-6 nccl-allreduce-1024-worker-6.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-7 nccl-allreduce-1024-worker-7.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-8 nccl-allreduce-1024-worker-8.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-9 nccl-allreduce-1024-worker-9.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-10 nccl-allreduce-1024-worker-10.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-11 nccl-allreduce-1024-worker-11.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-12 nccl-allreduce-1024-worker-12.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-13 nccl-allreduce-1024-worker-13.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-14 nccl-allreduce-1024-worker-14.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-15 nccl-allreduce-1024-worker-15.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-16 nccl-allreduce-1024-worker-16.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-17 nccl-allreduce-1024-worker-17.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-18 nccl-allreduce-1024-worker-18.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-19 nccl-allreduce-1024-worker-19.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-20 nccl-allreduce-1024-worker-20.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-21 nccl-allreduce-1024-worker-21.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-22 nccl-allreduce-1024-worker-22.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-23 nccl-allreduce-1024-worker-23.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-24 nccl-allreduce-1024-worker-24.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-25 nccl-allreduce-1024-worker-25.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-26 nccl-allreduce-1024-worker-26.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-27 nccl-allreduce-1024-worker-27.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-28 nccl-allreduce-1024-worker-28.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-29 nccl-allreduce-1024-worker-29.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-30 nccl-allreduce-1024-worker-30.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-31 nccl-allreduce-1024-worker-31.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-32 nccl-allreduce-1024-worker-32.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-33 nccl-allreduce-1024-worker-33.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-34 nccl-allreduce-1024-worker-34.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-35 nccl-allreduce-1024-worker-35.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-36 nccl-allreduce-1024-worker-36.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-37 nccl-allreduce-1024-worker-37.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-38 nccl-allreduce-1024-worker-38.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-39 nccl-allreduce-1024-worker-39.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-40 nccl-allreduce-1024-worker-40.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-41 nccl-allreduce-1024-worker-41.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-42 nccl-allreduce-1024-worker-42.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-43 nccl-allreduce-1024-worker-43.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-44 nccl-allreduce-1024-worker-44.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-45 nccl-allreduce-1024-worker-45.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-46 nccl-allreduce-1024-worker-46.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-47 nccl-allreduce-1024-worker-47.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-48 nccl-allreduce-1024-worker-48.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-49 nccl-allreduce-1024-worker-49.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-50 nccl-allreduce-1024-worker-50.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-51 nccl-allreduce-1024-worker-51.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-52 nccl-allreduce-1024-worker-52.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-53 nccl-allreduce-1024-worker-53.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-54 nccl-allreduce-1024-worker-54.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-55 nccl-allreduce-1024-worker-55.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-56 nccl-allreduce-1024-worker-56.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-57 nccl-allreduce-1024-worker-57.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-58 nccl-allreduce-1024-worker-58.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-59 nccl-allreduce-1024-worker-59.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-60 nccl-allreduce-1024-worker-60.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-61 nccl-allreduce-1024-worker-61.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-62 nccl-allreduce-1024-worker-62.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-63 nccl-allreduce-1024-worker-63.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-64 nccl-allreduce-1024-worker-64.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-65 nccl-allreduce-1024-worker-65.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-66 nccl-allreduce-1024-worker-66.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-67 nccl-allreduce-1024-worker-67.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-68 nccl-allreduce-1024-worker-68.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-69 nccl-allreduce-1024-worker-69.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-70 nccl-allreduce-1024-worker-70.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-71 nccl-allreduce-1024-worker-71.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-72 nccl-allreduce-1024-worker-72.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-73 nccl-allreduce-1024-worker-73.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-74 nccl-allreduce-1024-worker-74.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-75 nccl-allreduce-1024-worker-75.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-76 nccl-allreduce-1024-worker-76.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-77 nccl-allreduce-1024-worker-77.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-78 nccl-allreduce-1024-worker-78.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-79 nccl-allreduce-1024-worker-79.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-80 nccl-allreduce-1024-worker-80.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-81 nccl-allreduce-1024-worker-81.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-82 nccl-allreduce-1024-worker-82.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-83 nccl-allreduce-1024-worker-83.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-84 nccl-allreduce-1024-worker-84.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-85 nccl-allreduce-1024-worker-85.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-86 nccl-allreduce-1024-worker-86.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-87 nccl-allreduce-1024-worker-87.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-88 nccl-allreduce-1024-worker-88.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-89 nccl-allreduce-1024-worker-89.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-90 nccl-allreduce-1024-worker-90.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-91 nccl-allreduce-1024-worker-91.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-92 nccl-allreduce-1024-worker-92.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-93 nccl-allreduce-1024-worker-93.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-94 nccl-allreduce-1024-worker-94.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-95 nccl-allreduce-1024-worker-95.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-96 nccl-allreduce-1024-worker-96.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-97 nccl-allreduce-1024-worker-97.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-98 nccl-allreduce-1024-worker-98.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-99 nccl-allreduce-1024-worker-99.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-100 nccl-allreduce-1024-worker-100.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-101 nccl-allreduce-1024-worker-101.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-102 nccl-allreduce-1024-worker-102.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-103 nccl-allreduce-1024-worker-103.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-104 nccl-allreduce-1024-worker-104.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-105 nccl-allreduce-1024-worker-105.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-106 nccl-allreduce-1024-worker-106.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-107 nccl-allreduce-1024-worker-107.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-108 nccl-allreduce-1024-worker-108.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-109 nccl-allreduce-1024-worker-109.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-110 nccl-allreduce-1024-worker-110.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-111 nccl-allreduce-1024-worker-111.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-112 nccl-allreduce-1024-worker-112.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-113 nccl-allreduce-1024-worker-113.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-114 nccl-allreduce-1024-worker-114.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-115 nccl-allreduce-1024-worker-115.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-116 nccl-allreduce-1024-worker-116.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-117 nccl-allreduce-1024-worker-117.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-118 nccl-allreduce-1024-worker-118.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-119 nccl-allreduce-1024-worker-119.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-120 nccl-allreduce-1024-worker-120.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-121 nccl-allreduce-1024-worker-121.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-122 nccl-allreduce-1024-worker-122.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-123 nccl-allreduce-1024-worker-123.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-124 nccl-allreduce-1024-worker-124.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-125 nccl-allreduce-1024-worker-125.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-126 nccl-allreduce-1024-worker-126.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-worker-127 nccl-allreduce-1024-worker-127.nccl-allreduce-1024
  :
}

case ${1:-ssh} in
  local)
    each_host start_local
    wait_all
    exit $?
    ;;
  ssh)
    each_host start_ssh
    wait_all
    exit $?
    ;;
  pdsh)
    hostlist=$(mktemp) || exit 2
    each_host pdsh_host >"$hostlist"
    pdsh -S -w "^$hostlist" "$(remote_command)" &
    pids=$!
    wait_all
    status=$?
    rm -f "$hostlist"
    exit $status
    ;;
  *)
    printf 'usage: %s [ssh|pdsh|local]\n' "$0" >&2
    exit 2
    ;;
esac
