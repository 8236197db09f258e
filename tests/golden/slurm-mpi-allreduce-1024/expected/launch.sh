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
  "$@" slurm-0 slurm-0
  "$@" slurm-1 slurm-1
  "$@" slurm-2 slurm-2
  "$@" slurm-3 slurm-3
  "$@" slurm-4 slurm-4
  "$@" slurm-5 slurm-5
  "$@" slurm-6 slurm-6
  "$@" slurm-7 slurm-7
  "$@" slurm-8 slurm-8
  "$@" slurm-9 slurm-9
  "$@" slurm-10 slurm-10
  "$@" slurm-11 slurm-11
  "$@" slurm-12 slurm-12
  "$@" slurm-13 slurm-13
  "$@" slurm-14 slurm-14
  "$@" slurm-15 slurm-15
  "$@" slurm-16 slurm-16
  "$@" slurm-17 slurm-17
  "$@" slurm-18 slurm-18
  "$@" slurm-19 slurm-19
  "$@" slurm-20 slurm-20
  "$@" slurm-21 slurm-21
  "$@" slurm-22 slurm-22
  "$@" slurm-23 slurm-23
  "$@" slurm-24 slurm-24
  "$@" slurm-25 slurm-25
  "$@" slurm-26 slurm-26
  "$@" slurm-27 slurm-27
  "$@" slurm-28 slurm-28
  "$@" slurm-29 slurm-29
  "$@" slurm-30 slurm-30
  "$@" slurm-31 slurm-31
  "$@" slurm-32 slurm-32
  "$@" slurm-33 slurm-33
  "$@" slurm-34 slurm-34
  "$@" slurm-35 slurm-35
  "$@" slurm-36 slurm-36
  "$@" slurm-37 slurm-37
  "$@" slurm-38 slurm-38
  "$@" slurm-39 slurm-39
  "$@" slurm-40 slurm-40
  "$@" slurm-41 slurm-41
  "$@" slurm-42 slurm-42
  "$@" slurm-43 slurm-43
  "$@" slurm-44 slurm-44
  "$@" slurm-45 slurm-45
  "$@" slurm-46 slurm-46
  "$@" slurm-47 slurm-47
  "$@" slurm-48 slurm-48
  "$@" slurm-49 slurm-49
  "$@" slurm-50 slurm-50
  "$@" slurm-51 slurm-51
  "$@" slurm-52 slurm-52
  "$@" slurm-53 slurm-53
  "$@" slurm-54 slurm-54
  "$@" slurm-55 slurm-55
  "$@" slurm-56 slurm-56
  "$@" slurm-57 slurm-57
  "$@" slurm-58 slurm-58
  "$@" slurm-59 slurm-59
  "$@" slurm-60 slurm-60
  "$@" slurm-61 slurm-61
  "$@" slurm-62 slurm-62
  "$@" slurm-63 slurm-63
  "$@" slurm-64 slurm-64
  "$@" slurm-65 slurm-65
  "$@" slurm-66 slurm-66
  "$@" slurm-67 slurm-67
  "$@" slurm-68 slurm-68
  "$@" slurm-69 slurm-69
  "$@" slurm-70 slurm-70
  "$@" slurm-71 slurm-71
  "$@" slurm-72 slurm-72
  "$@" slurm-73 slurm-73
  "$@" slurm-74 slurm-74
  "$@" slurm-75 slurm-75
  "$@" slurm-76 slurm-76
  "$@" slurm-77 slurm-77
  "$@" slurm-78 slurm-78
  "$@" slurm-79 slurm-79
  "$@" slurm-80 slurm-80
  "$@" slurm-81 slurm-81
  "$@" slurm-82 slurm-82
  "$@" slurm-83 slurm-83
  "$@" slurm-84 slurm-84
  "$@" slurm-85 slurm-85
  "$@" slurm-86 slurm-86
  "$@" slurm-87 slurm-87
  "$@" slurm-88 slurm-88
  "$@" slurm-89 slurm-89
  "$@" slurm-90 slurm-90
  "$@" slurm-91 slurm-91
  "$@" slurm-92 slurm-92
  "$@" slurm-93 slurm-93
  "$@" slurm-94 slurm-94
  "$@" slurm-95 slurm-95
  "$@" slurm-96 slurm-96
  "$@" slurm-97 slurm-97
  "$@" slurm-98 slurm-98
  "$@" slurm-99 slurm-99
  "$@" slurm-100 slurm-100
  "$@" slurm-101 slurm-101
  "$@" slurm-102 slurm-102
  "$@" slurm-103 slurm-103
  "$@" slurm-104 slurm-104
  "$@" slurm-105 slurm-105
  "$@" slurm-106 slurm-106
  "$@" slurm-107 slurm-107
  "$@" slurm-108 slurm-108
  "$@" slurm-109 slurm-109
  "$@" slurm-110 slurm-110
  "$@" slurm-111 slurm-111
  "$@" slurm-112 slurm-112
  "$@" slurm-113 slurm-113
  "$@" slurm-114 slurm-114
  "$@" slurm-115 slurm-115
  "$@" slurm-116 slurm-116
  "$@" slurm-117 slurm-117
  "$@" slurm-118 slurm-118
  "$@" slurm-119 slurm-119
  "$@" slurm-120 slurm-120
  "$@" slurm-121 slurm-121
  "$@" slurm-122 slurm-122
  "$@" slurm-123 slurm-123
  "$@" slurm-124 slurm-124
  "$@" slurm-125 slurm-125
  "$@" slurm-126 slurm-126
  "$@" slurm-127 slurm-127
  "$@" slurm-128 slurm-128
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
