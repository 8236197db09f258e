#!/bin/sh
# Starts pai-launch on every host of job llama-7b-pretrain (written by pai-compile 0.1.0).
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
  "$@" llama-7b-pretrain-node-0-0 llama-7b-pretrain-node-0-0.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-1 llama-7b-pretrain-node-0-1.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-2 llama-7b-pretrain-node-0-2.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-3 llama-7b-pretrain-node-0-3.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-4 llama-7b-pretrain-node-0-4.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-5 llama-7b-pretrain-node-0-5.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-6 llama-7b-pretrain-node-0-6.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-7 llama-7b-pretrain-node-0-7.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-8 llama-7b-pretrain-node-0-8.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-9 llama-7b-pretrain-node-0-9.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-10 llama-7b-pretrain-node-0-10.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-11 llama-7b-pretrain-node-0-11.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-12 llama-7b-pretrain-node-0-12.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-13 llama-7b-pretrain-node-0-13.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-14 llama-7b-pretrain-node-0-14.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-15 llama-7b-pretrain-node-0-15.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-16 llama-7b-pretrain-node-0-16.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-17 llama-7b-pretrain-node-0-17.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-18 llama-7b-pretrain-node-0-18.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-19 llama-7b-pretrain-node-0-19.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-20 llama-7b-pretrain-node-0-20.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-21 llama-7b-pretrain-node-0-21.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-22 llama-7b-pretrain-node-0-22.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-23 llama-7b-pretrain-node-0-23.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-24 llama-7b-pretrain-node-0-24.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-25 llama-7b-pretrain-node-0-25.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-26 llama-7b-pretrain-node-0-26.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-27 llama-7b-pretrain-node-0-27.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-28 llama-7b-pretrain-node-0-28.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-29 llama-7b-pretrain-node-0-29.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-30 llama-7b-pretrain-node-0-30.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-31 llama-7b-pretrain-node-0-31.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-32 llama-7b-pretrain-node-0-32.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-33 llama-7b-pretrain-node-0-33.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-34 llama-7b-pretrain-node-0-34.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-35 llama-7b-pretrain-node-0-35.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-36 llama-7b-pretrain-node-0-36.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-37 llama-7b-pretrain-node-0-37.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-38 llama-7b-pretrain-node-0-38.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-39 llama-7b-pretrain-node-0-39.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-40 llama-7b-pretrain-node-0-40.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-41 llama-7b-pretrain-node-0-41.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-42 llama-7b-pretrain-node-0-42.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-43 llama-7b-pretrain-node-0-43.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-44 llama-7b-pretrain-node-0-44.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-45 llama-7b-pretrain-node-0-45.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-46 llama-7b-pretrain-node-0-46.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-47 llama-7b-pretrain-node-0-47.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-48 llama-7b-pretrain-node-0-48.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-49 llama-7b-pretrain-node-0-49.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-50 llama-7b-pretrain-node-0-50.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-51 llama-7b-pretrain-node-0-51.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-52 llama-7b-pretrain-node-0-52.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-53 llama-7b-pretrain-node-0-53.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-54 llama-7b-pretrain-node-0-54.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-55 llama-7b-pretrain-node-0-55.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-56 llama-7b-pretrain-node-0-56.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-57 llama-7b-pretrain-node-0-57.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-58 llama-7b-pretrain-node-0-58.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-59 llama-7b-pretrain-node-0-59.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-60 llama-7b-pretrain-node-0-60.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-61 llama-7b-pretrain-node-0-61.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-62 llama-7b-pretrain-node-0-62.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-63 llama-7b-pretrain-node-0-63.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-64 llama-7b-pretrain-node-0-64.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-65 llama-7b-pretrain-node-0-65.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-66 llama-7b-pretrain-node-0-66.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-67 llama-7b-pretrain-node-0-67.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-68 llama-7b-pretrain-node-0-68.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-69 llama-7b-pretrain-node-0-69.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-70 llama-7b-pretrain-node-0-70.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-71 llama-7b-pretrain-node-0-71.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-72 llama-7b-pretrain-node-0-72.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-73 llama-7b-pretrain-node-0-73.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-74 llama-7b-pretrain-node-0-74.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-75 llama-7b-pretrain-node-0-75.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-76 llama-7b-pretrain-node-0-76.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-77 llama-7b-pretrain-node-0-77.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-78 llama-7b-pretrain-node-0-78.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-79 llama-7b-pretrain-node-0-79.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-80 llama-7b-pretrain-node-0-80.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-81 llama-7b-pretrain-node-0-81.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-82 llama-7b-pretrain-node-0-82.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-83 llama-7b-pretrain-node-0-83.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-84 llama-7b-pretrain-node-0-84.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-85 llama-7b-pretrain-node-0-85.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-86 llama-7b-pretrain-node-0-86.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-87 llama-7b-pretrain-node-0-87.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-88 llama-7b-pretrain-node-0-88.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-89 llama-7b-pretrain-node-0-89.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-90 llama-7b-pretrain-node-0-90.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-91 llama-7b-pretrain-node-0-91.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-92 llama-7b-pretrain-node-0-92.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-93 llama-7b-pretrain-node-0-93.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-94 llama-7b-pretrain-node-0-94.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-95 llama-7b-pretrain-node-0-95.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-96 llama-7b-pretrain-node-0-96.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-97 llama-7b-pretrain-node-0-97.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-98 llama-7b-pretrain-node-0-98.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-99 llama-7b-pretrain-node-0-99.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-100 llama-7b-pretrain-node-0-100.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-101 llama-7b-pretrain-node-0-101.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-102 llama-7b-pretrain-node-0-102.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-103 llama-7b-pretrain-node-0-103.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-104 llama-7b-pretrain-node-0-104.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-105 llama-7b-pretrain-node-0-105.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-106 llama-7b-pretrain-node-0-106.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-107 llama-7b-pretrain-node-0-107.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-108 llama-7b-pretrain-node-0-108.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-109 llama-7b-pretrain-node-0-109.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-110 llama-7b-pretrain-node-0-110.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-111 llama-7b-pretrain-node-0-111.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-112 llama-7b-pretrain-node-0-112.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-113 llama-7b-pretrain-node-0-113.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-114 llama-7b-pretrain-node-0-114.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-115 llama-7b-pretrain-node-0-115.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-116 llama-7b-pretrain-node-0-116.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-117 llama-7b-pretrain-node-0-117.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-118 llama-7b-pretrain-node-0-118.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-119 llama-7b-pretrain-node-0-119.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-120 llama-7b-pretrain-node-0-120.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-121 llama-7b-pretrain-node-0-121.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-122 llama-7b-pretrain-node-0-122.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-123 llama-7b-pretrain-node-0-123.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-124 llama-7b-pretrain-node-0-124.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-125 llama-7b-pretrain-node-0-125.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-126 llama-7b-pretrain-node-0-126.llama-7b-pretrain
  "$@" llama-7b-pretrain-node-0-127 llama-7b-pretrain-node-0-127.llama-7b-pretrain
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
