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
  "$@" llama-7b-pretrain-master-0 llama-7b-pretrain-master-0
  "$@" llama-7b-pretrain-worker-0 llama-7b-pretrain-worker-0
  "$@" llama-7b-pretrain-worker-1 llama-7b-pretrain-worker-1
  "$@" llama-7b-pretrain-worker-2 llama-7b-pretrain-worker-2
  "$@" llama-7b-pretrain-worker-3 llama-7b-pretrain-worker-3
  "$@" llama-7b-pretrain-worker-4 llama-7b-pretrain-worker-4
  "$@" llama-7b-pretrain-worker-5 llama-7b-pretrain-worker-5
  "$@" llama-7b-pretrain-worker-6 llama-7b-pretrain-worker-6
  "$@" llama-7b-pretrain-worker-7 llama-7b-pretrain-worker-7
  "$@" llama-7b-pretrain-worker-8 llama-7b-pretrain-worker-8
  "$@" llama-7b-pretrain-worker-9 llama-7b-pretrain-worker-9
  "$@" llama-7b-pretrain-worker-10 llama-7b-pretrain-worker-10
  "$@" llama-7b-pretrain-worker-11 llama-7b-pretrain-worker-11
  "$@" llama-7b-pretrain-worker-12 llama-7b-pretrain-worker-12
  "$@" llama-7b-pretrain-worker-13 llama-7b-pretrain-worker-13
  "$@" llama-7b-pretrain-worker-14 llama-7b-pretrain-worker-14
  "$@" llama-7b-pretrain-worker-15 llama-7b-pretrain-worker-15
  "$@" llama-7b-pretrain-worker-16 llama-7b-pretrain-worker-16
  "$@" llama-7b-pretrain-worker-17 llama-7b-pretrain-worker-17
  "$@" llama-7b-pretrain-worker-18 llama-7b-pretrain-worker-18
  "$@" llama-7b-pretrain-worker-19 llama-7b-pretrain-worker-19
  "$@" llama-7b-pretrain-worker-20 llama-7b-pretrain-worker-20
  "$@" llama-7b-pretrain-worker-21 llama-7b-pretrain-worker-21
  "$@" llama-7b-pretrain-worker-22 llama-7b-pretrain-worker-22
  "$@" llama-7b-pretrain-worker-23 llama-7b-pretrain-worker-23
  "$@" llama-7b-pretrain-worker-24 llama-7b-pretrain-worker-24
  "$@" llama-7b-pretrain-worker-25 llama-7b-pretrain-worker-25
  "$@" llama-7b-pretrain-worker-26 llama-7b-pretrain-worker-26
  "$@" llama-7b-pretrain-worker-27 llama-7b-pretrain-worker-27
  "$@" llama-7b-pretrain-worker-28 llama-7b-pretrain-worker-28
  "$@" llama-7b-pretrain-worker-29 llama-7b-pretrain-worker-29
  "$@" llama-7b-pretrain-worker-30 llama-7b-pretrain-worker-30
  "$@" llama-7b-pretrain-worker-31 llama-7b-pretrain-worker-31
  "$@" llama-7b-pretrain-worker-32 llama-7b-pretrain-worker-32
  "$@" llama-7b-pretrain-worker-33 llama-7b-pretrain-worker-33
  "$@" llama-7b-pretrain-worker-34 llama-7b-pretrain-worker-34
  "$@" llama-7b-pretrain-worker-35 llama-7b-pretrain-worker-35
  "$@" llama-7b-pretrain-worker-36 llama-7b-pretrain-worker-36
  "$@" llama-7b-pretrain-worker-37 llama-7b-pretrain-worker-37
  "$@" llama-7b-pretrain-worker-38 llama-7b-pretrain-worker-38
  "$@" llama-7b-pretrain-worker-39 llama-7b-pretrain-worker-39
  "$@" llama-7b-pretrain-worker-40 llama-7b-pretrain-worker-40
  "$@" llama-7b-pretrain-worker-41 llama-7b-pretrain-worker-41
  "$@" llama-7b-pretrain-worker-42 llama-7b-pretrain-worker-42
  "$@" llama-7b-pretrain-worker-43 llama-7b-pretrain-worker-43
  "$@" llama-7b-pretrain-worker-44 llama-7b-pretrain-worker-44
  "$@" llama-7b-pretrain-worker-45 llama-7b-pretrain-worker-45
  "$@" llama-7b-pretrain-worker-46 llama-7b-pretrain-worker-46
  "$@" llama-7b-pretrain-worker-47 llama-7b-pretrain-worker-47
  "$@" llama-7b-pretrain-worker-48 llama-7b-pretrain-worker-48
  "$@" llama-7b-pretrain-worker-49 llama-7b-pretrain-worker-49
  "$@" llama-7b-pretrain-worker-50 llama-7b-pretrain-worker-50
  "$@" llama-7b-pretrain-worker-51 llama-7b-pretrain-worker-51
  "$@" llama-7b-pretrain-worker-52 llama-7b-pretrain-worker-52
  "$@" llama-7b-pretrain-worker-53 llama-7b-pretrain-worker-53
  "$@" llama-7b-pretrain-worker-54 llama-7b-pretrain-worker-54
  "$@" llama-7b-pretrain-worker-55 llama-7b-pretrain-worker-55
  "$@" llama-7b-pretrain-worker-56 llama-7b-pretrain-worker-56
  "$@" llama-7b-pretrain-worker-57 llama-7b-pretrain-worker-57
  "$@" llama-7b-pretrain-worker-58 llama-7b-pretrain-worker-58
  "$@" llama-7b-pretrain-worker-59 llama-7b-pretrain-worker-59
  "$@" llama-7b-pretrain-worker-60 llama-7b-pretrain-worker-60
  "$@" llama-7b-pretrain-worker-61 llama-7b-pretrain-worker-61
  "$@" llama-7b-pretrain-worker-62 llama-7b-pretrain-worker-62
  "$@" llama-7b-pretrain-worker-63 llama-7b-pretrain-worker-63
  "$@" llama-7b-pretrain-worker-64 llama-7b-pretrain-worker-64
  "$@" llama-7b-pretrain-worker-65 llama-7b-pretrain-worker-65
  "$@" llama-7b-pretrain-worker-66 llama-7b-pretrain-worker-66
  "$@" llama-7b-pretrain-worker-67 llama-7b-pretrain-worker-67
  "$@" llama-7b-pretrain-worker-68 llama-7b-pretrain-worker-68
  "$@" llama-7b-pretrain-worker-69 llama-7b-pretrain-worker-69
  "$@" llama-7b-pretrain-worker-70 llama-7b-pretrain-worker-70
  "$@" llama-7b-pretrain-worker-71 llama-7b-pretrain-worker-71
  "$@" llama-7b-pretrain-worker-72 llama-7b-pretrain-worker-72
  "$@" llama-7b-pretrain-worker-73 llama-7b-pretrain-worker-73
  "$@" llama-7b-pretrain-worker-74 llama-7b-pretrain-worker-74
  "$@" llama-7b-pretrain-worker-75 llama-7b-pretrain-worker-75
  "$@" llama-7b-pretrain-worker-76 llama-7b-pretrain-worker-76
  "$@" llama-7b-pretrain-worker-77 llama-7b-pretrain-worker-77
  "$@" llama-7b-pretrain-worker-78 llama-7b-pretrain-worker-78
  "$@" llama-7b-pretrain-worker-79 llama-7b-pretrain-worker-79
  "$@" llama-7b-pretrain-worker-80 llama-7b-pretrain-worker-80
  "$@" llama-7b-pretrain-worker-81 llama-7b-pretrain-worker-81
  "$@" llama-7b-pretrain-worker-82 llama-7b-pretrain-worker-82
  "$@" llama-7b-pretrain-worker-83 llama-7b-pretrain-worker-83
  "$@" llama-7b-pretrain-worker-84 llama-7b-pretrain-worker-84
  "$@" llama-7b-pretrain-worker-85 llama-7b-pretrain-worker-85
  "$@" llama-7b-pretrain-worker-86 llama-7b-pretrain-worker-86
  "$@" llama-7b-pretrain-worker-87 llama-7b-pretrain-worker-87
  "$@" llama-7b-pretrain-worker-88 llama-7b-pretrain-worker-88
  "$@" llama-7b-pretrain-worker-89 llama-7b-pretrain-worker-89
  "$@" llama-7b-pretrain-worker-90 llama-7b-pretrain-worker-90
  "$@" llama-7b-pretrain-worker-91 llama-7b-pretrain-worker-91
  "$@" llama-7b-pretrain-worker-92 llama-7b-pretrain-worker-92
  "$@" llama-7b-pretrain-worker-93 llama-7b-pretrain-worker-93
  "$@" llama-7b-pretrain-worker-94 llama-7b-pretrain-worker-94
  "$@" llama-7b-pretrain-worker-95 llama-7b-pretrain-worker-95
  "$@" llama-7b-pretrain-worker-96 llama-7b-pretrain-worker-96
  "$@" llama-7b-pretrain-worker-97 llama-7b-pretrain-worker-97
  "$@" llama-7b-pretrain-worker-98 llama-7b-pretrain-worker-98
  "$@" llama-7b-pretrain-worker-99 llama-7b-pretrain-worker-99
  "$@" llama-7b-pretrain-worker-100 llama-7b-pretrain-worker-100
  "$@" llama-7b-pretrain-worker-101 llama-7b-pretrain-worker-101
  "$@" llama-7b-pretrain-worker-102 llama-7b-pretrain-worker-102
  "$@" llama-7b-pretrain-worker-103 llama-7b-pretrain-worker-103
  "$@" llama-7b-pretrain-worker-104 llama-7b-pretrain-worker-104
  "$@" llama-7b-pretrain-worker-105 llama-7b-pretrain-worker-105
  "$@" llama-7b-pretrain-worker-106 llama-7b-pretrain-worker-106
  "$@" llama-7b-pretrain-worker-107 llama-7b-pretrain-worker-107
  "$@" llama-7b-pretrain-worker-108 llama-7b-pretrain-worker-108
  "$@" llama-7b-pretrain-worker-109 llama-7b-pretrain-worker-109
  "$@" llama-7b-pretrain-worker-110 llama-7b-pretrain-worker-110
  "$@" llama-7b-pretrain-worker-111 llama-7b-pretrain-worker-111
  "$@" llama-7b-pretrain-worker-112 llama-7b-pretrain-worker-112
  "$@" llama-7b-pretrain-worker-113 llama-7b-pretrain-worker-113
  "$@" llama-7b-pretrain-worker-114 llama-7b-pretrain-worker-114
  "$@" llama-7b-pretrain-worker-115 llama-7b-pretrain-worker-115
  "$@" llama-7b-pretrain-worker-116 llama-7b-pretrain-worker-116
  "$@" llama-7b-pretrain-worker-117 llama-7b-pretrain-worker-117
  "$@" llama-7b-pretrain-worker-118 llama-7b-pretrain-worker-118
  "$@" llama-7b-pretrain-worker-119 llama-7b-pretrain-worker-119
  "$@" llama-7b-pretrain-worker-120 llama-7b-pretrain-worker-120
  "$@" llama-7b-pretrain-worker-121 llama-7b-pretrain-worker-121
  "$@" llama-7b-pretrain-worker-122 llama-7b-pretrain-worker-122
  "$@" llama-7b-pretrain-worker-123 llama-7b-pretrain-worker-123
  "$@" llama-7b-pretrain-worker-124 llama-7b-pretrain-worker-124
  "$@" llama-7b-pretrain-worker-125 llama-7b-pretrain-worker-125
  "$@" llama-7b-pretrain-worker-126 llama-7b-pretrain-worker-126
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
