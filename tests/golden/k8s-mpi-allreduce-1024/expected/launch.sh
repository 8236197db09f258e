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
  "$@" nccl-allreduce-1024-launcher-0-0 nccl-allreduce-1024-launcher-0-0.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-0 nccl-allreduce-1024-node-0-0.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-1 nccl-allreduce-1024-node-0-1.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-2 nccl-allreduce-1024-node-0-2.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-3 nccl-allreduce-1024-node-0-3.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-4 nccl-allreduce-1024-node-0-4.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-5 nccl-allreduce-1024-node-0-5.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-6 nccl-allreduce-1024-node-0-6.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-7 nccl-allreduce-1024-node-0-7.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-8 nccl-allreduce-1024-node-0-8.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-9 nccl-allreduce-1024-node-0-9.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-10 nccl-allreduce-1024-node-0-10.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-11 nccl-allreduce-1024-node-0-11.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-12 nccl-allreduce-1024-node-0-12.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-13 nccl-allreduce-1024-node-0-13.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-14 nccl-allreduce-1024-node-0-14.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-15 nccl-allreduce-1024-node-0-15.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-16 nccl-allreduce-1024-node-0-16.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-17 nccl-allreduce-1024-node-0-17.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-18 nccl-allreduce-1024-node-0-18.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-19 nccl-allreduce-1024-node-0-19.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-20 nccl-allreduce-1024-node-0-20.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-21 nccl-allreduce-1024-node-0-21.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-22 nccl-allreduce-1024-node-0-22.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-23 nccl-allreduce-1024-node-0-23.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-24 nccl-allreduce-1024-node-0-24.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-25 nccl-allreduce-1024-node-0-25.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-26 nccl-allreduce-1024-node-0-26.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-27 nccl-allreduce-1024-node-0-27.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-28 nccl-allreduce-1024-node-0-28.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-29 nccl-allreduce-1024-node-0-29.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-30 nccl-allreduce-1024-node-0-30.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-31 nccl-allreduce-1024-node-0-31.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-32 nccl-allreduce-1024-node-0-32.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-33 nccl-allreduce-1024-node-0-33.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-34 nccl-allreduce-1024-node-0-34.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-35 nccl-allreduce-1024-node-0-35.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-36 nccl-allreduce-1024-node-0-36.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-37 nccl-allreduce-1024-node-0-37.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-38 nccl-allreduce-1024-node-0-38.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-39 nccl-allreduce-1024-node-0-39.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-40 nccl-allreduce-1024-node-0-40.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-41 nccl-allreduce-1024-node-0-41.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-42 nccl-allreduce-1024-node-0-42.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-43 nccl-allreduce-1024-node-0-43.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-44 nccl-allreduce-1024-node-0-44.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-45 nccl-allreduce-1024-node-0-45.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-46 nccl-allreduce-1024-node-0-46.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-47 nccl-allreduce-1024-node-0-47.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-48 nccl-allreduce-1024-node-0-48.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-49 nccl-allreduce-1024-node-0-49.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-50 nccl-allreduce-1024-node-0-50.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-51 nccl-allreduce-1024-node-0-51.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-52 nccl-allreduce-1024-node-0-52.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-53 nccl-allreduce-1024-node-0-53.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-54 nccl-allreduce-1024-node-0-54.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-55 nccl-allreduce-1024-node-0-55.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-56 nccl-allreduce-1024-node-0-56.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-57 nccl-allreduce-1024-node-0-57.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-58 nccl-allreduce-1024-node-0-58.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-59 nccl-allreduce-1024-node-0-59.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-60 nccl-allreduce-1024-node-0-60.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-61 nccl-allreduce-1024-node-0-61.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-62 nccl-allreduce-1024-node-0-62.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-63 nccl-allreduce-1024-node-0-63.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-64 nccl-allreduce-1024-node-0-64.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-65 nccl-allreduce-1024-node-0-65.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-66 nccl-allreduce-1024-node-0-66.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-67 nccl-allreduce-1024-node-0-67.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-68 nccl-allreduce-1024-node-0-68.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-69 nccl-allreduce-1024-node-0-69.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-70 nccl-allreduce-1024-node-0-70.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-71 nccl-allreduce-1024-node-0-71.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-72 nccl-allreduce-1024-node-0-72.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-73 nccl-allreduce-1024-node-0-73.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-74 nccl-allreduce-1024-node-0-74.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-75 nccl-allreduce-1024-node-0-75.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-76 nccl-allreduce-1024-node-0-76.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-77 nccl-allreduce-1024-node-0-77.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-78 nccl-allreduce-1024-node-0-78.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-79 nccl-allreduce-1024-node-0-79.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-80 nccl-allreduce-1024-node-0-80.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-81 nccl-allreduce-1024-node-0-81.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-82 nccl-allreduce-1024-node-0-82.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-83 nccl-allreduce-1024-node-0-83.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-84 nccl-allreduce-1024-node-0-84.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-85 nccl-allreduce-1024-node-0-85.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-86 nccl-allreduce-1024-node-0-86.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-87 nccl-allreduce-1024-node-0-87.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-88 nccl-allreduce-1024-node-0-88.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-89 nccl-allreduce-1024-node-0-89.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-90 nccl-allreduce-1024-node-0-90.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-91 nccl-allreduce-1024-node-0-91.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-92 nccl-allreduce-1024-node-0-92.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-93 nccl-allreduce-1024-node-0-93.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-94 nccl-allreduce-1024-node-0-94.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-95 nccl-allreduce-1024-node-0-95.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-96 nccl-allreduce-1024-node-0-96.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-97 nccl-allreduce-1024-node-0-97.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-98 nccl-allreduce-1024-node-0-98.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-99 nccl-allreduce-1024-node-0-99.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-100 nccl-allreduce-1024-node-0-100.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-101 nccl-allreduce-1024-node-0-101.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-102 nccl-allreduce-1024-node-0-102.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-103 nccl-allreduce-1024-node-0-103.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-104 nccl-allreduce-1024-node-0-104.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-105 nccl-allreduce-1024-node-0-105.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-106 nccl-allreduce-1024-node-0-106.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-107 nccl-allreduce-1024-node-0-107.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-108 nccl-allreduce-1024-node-0-108.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-109 nccl-allreduce-1024-node-0-109.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-110 nccl-allreduce-1024-node-0-110.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-111 nccl-allreduce-1024-node-0-111.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-112 nccl-allreduce-1024-node-0-112.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-113 nccl-allreduce-1024-node-0-113.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-114 nccl-allreduce-1024-node-0-114.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-115 nccl-allreduce-1024-node-0-115.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-116 nccl-allreduce-1024-node-0-116.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-117 nccl-allreduce-1024-node-0-117.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-118 nccl-allreduce-1024-node-0-118.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-119 nccl-allreduce-1024-node-0-119.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-120 nccl-allreduce-1024-node-0-120.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-121 nccl-allreduce-1024-node-0-121.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-122 nccl-allreduce-1024-node-0-122.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-123 nccl-allreduce-1024-node-0-123.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-124 nccl-allreduce-1024-node-0-124.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-125 nccl-allreduce-1024-node-0-125.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-126 nccl-allreduce-1024-node-0-126.nccl-allreduce-1024
  "$@" nccl-allreduce-1024-node-0-127 nccl-allreduce-1024-node-0-127.nccl-allreduce-1024
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
