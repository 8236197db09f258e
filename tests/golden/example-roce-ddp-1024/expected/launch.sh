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
  "$@" gpu-001 10.0.0.1
  "$@" gpu-002 10.0.0.2
  "$@" gpu-003 10.0.0.3
  "$@" gpu-004 10.0.0.4
  "$@" gpu-005 10.0.0.5
  "$@" gpu-006 10.0.0.6
  "$@" gpu-007 10.0.0.7
  "$@" gpu-008 10.0.0.8
  "$@" gpu-009 10.0.0.9
  "$@" gpu-010 10.0.0.10
  "$@" gpu-011 10.0.0.11
  "$@" gpu-012 10.0.0.12
  "$@" gpu-013 10.0.0.13
  "$@" gpu-014 10.0.0.14
  "$@" gpu-015 10.0.0.15
  "$@" gpu-016 10.0.0.16
  "$@" gpu-017 10.0.0.17
  "$@" gpu-018 10.0.0.18
  "$@" gpu-019 10.0.0.19
  "$@" gpu-020 10.0.0.20
  "$@" gpu-021 10.0.0.21
  "$@" gpu-022 10.0.0.22
  "$@" gpu-023 10.0.0.23
  "$@" gpu-024 10.0.0.24
  "$@" gpu-025 10.0.0.25
  "$@" gpu-026 10.0.0.26
  "$@" gpu-027 10.0.0.27
  "$@" gpu-028 10.0.0.28
  "$@" gpu-029 10.0.0.29
  "$@" gpu-030 10.0.0.30
  "$@" gpu-031 10.0.0.31
  "$@" gpu-032 10.0.0.32
  "$@" gpu-033 10.0.0.33
  "$@" gpu-034 10.0.0.34
  "$@" gpu-035 10.0.0.35
  "$@" gpu-036 10.0.0.36
  "$@" gpu-037 10.0.0.37
  "$@" gpu-038 10.0.0.38
  "$@" gpu-039 10.0.0.39
  "$@" gpu-040 10.0.0.40
  "$@" gpu-041 10.0.0.41
  "$@" gpu-042 10.0.0.42
  "$@" gpu-043 10.0.0.43
  "$@" gpu-044 10.0.0.44
  "$@" gpu-045 10.0.0.45
  "$@" gpu-046 10.0.0.46
  "$@" gpu-047 10.0.0.47
  "$@" gpu-048 10.0.0.48
  "$@" gpu-049 10.0.0.49
  "$@" gpu-050 10.0.0.50
  "$@" gpu-051 10.0.0.51
  "$@" gpu-052 10.0.0.52
  "$@" gpu-053 10.0.0.53
  "$@" gpu-054 10.0.0.54
  "$@" gpu-055 10.0.0.55
  "$@" gpu-056 10.0.0.56
  "$@" gpu-057 10.0.0.57
  "$@" gpu-058 10.0.0.58
  "$@" gpu-059 10.0.0.59
  "$@" gpu-060 10.0.0.60
  "$@" gpu-061 10.0.0.61
  "$@" gpu-062 10.0.0.62
  "$@" gpu-063 10.0.0.63
  "$@" gpu-064 10.0.0.64
  "$@" gpu-065 10.0.0.65
  "$@" gpu-066 10.0.0.66
  "$@" gpu-067 10.0.0.67
  "$@" gpu-068 10.0.0.68
  "$@" gpu-069 10.0.0.69
  "$@" gpu-070 10.0.0.70
  "$@" gpu-071 10.0.0.71
  "$@" gpu-072 10.0.0.72
  "$@" gpu-073 10.0.0.73
  "$@" gpu-074 10.0.0.74
  "$@" gpu-075 10.0.0.75
  "$@" gpu-076 10.0.0.76
  "$@" gpu-077 10.0.0.77
  "$@" gpu-078 10.0.0.78
  "$@" gpu-079 10.0.0.79
  "$@" gpu-080 10.0.0.80
  "$@" gpu-081 10.0.0.81
  "$@" gpu-082 10.0.0.82
  "$@" gpu-083 10.0.0.83
  "$@" gpu-084 10.0.0.84
  "$@" gpu-085 10.0.0.85
  "$@" gpu-086 10.0.0.86
  "$@" gpu-087 10.0.0.87
  "$@" gpu-088 10.0.0.88
  "$@" gpu-089 10.0.0.89
  "$@" gpu-090 10.0.0.90
  "$@" gpu-091 10.0.0.91
  "$@" gpu-092 10.0.0.92
  "$@" gpu-093 10.0.0.93
  "$@" gpu-094 10.0.0.94
  "$@" gpu-095 10.0.0.95
  "$@" gpu-096 10.0.0.96
  "$@" gpu-097 10.0.0.97
  "$@" gpu-098 10.0.0.98
  "$@" gpu-099 10.0.0.99
  "$@" gpu-100 10.0.0.100
  "$@" gpu-101 10.0.0.101
  "$@" gpu-102 10.0.0.102
  "$@" gpu-103 10.0.0.103
  "$@" gpu-104 10.0.0.104
  "$@" gpu-105 10.0.0.105
  "$@" gpu-106 10.0.0.106
  "$@" gpu-107 10.0.0.107
  "$@" gpu-108 10.0.0.108
  "$@" gpu-109 10.0.0.109
  "$@" gpu-110 10.0.0.110
  "$@" gpu-111 10.0.0.111
  "$@" gpu-112 10.0.0.112
  "$@" gpu-113 10.0.0.113
  "$@" gpu-114 10.0.0.114
  "$@" gpu-115 10.0.0.115
  "$@" gpu-116 10.0.0.116
  "$@" gpu-117 10.0.0.117
  "$@" gpu-118 10.0.0.118
  "$@" gpu-119 10.0.0.119
  "$@" gpu-120 10.0.0.120
  "$@" gpu-121 10.0.0.121
  "$@" gpu-122 10.0.0.122
  "$@" gpu-123 10.0.0.123
  "$@" gpu-124 10.0.0.124
  "$@" gpu-125 10.0.0.125
  "$@" gpu-126 10.0.0.126
  "$@" gpu-127 10.0.0.127
  "$@" gpu-128 10.0.0.128
  "$@" gpu-spare-001 10.0.0.201
  "$@" gpu-spare-002 10.0.0.202
  "$@" gpu-spare-003 10.0.0.203
  "$@" gpu-spare-004 10.0.0.204
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
