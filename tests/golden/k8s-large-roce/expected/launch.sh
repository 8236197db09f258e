#!/bin/sh
# Starts pai-launch on every host of job llama-70b-pretrain (written by pai-compile 0.1.0).
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
  "$@" llama-70b-pretrain-node-0-0 llama-70b-pretrain-node-0-0.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-1 llama-70b-pretrain-node-0-1.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-2 llama-70b-pretrain-node-0-2.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-3 llama-70b-pretrain-node-0-3.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-4 llama-70b-pretrain-node-0-4.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-5 llama-70b-pretrain-node-0-5.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-6 llama-70b-pretrain-node-0-6.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-7 llama-70b-pretrain-node-0-7.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-8 llama-70b-pretrain-node-0-8.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-9 llama-70b-pretrain-node-0-9.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-10 llama-70b-pretrain-node-0-10.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-11 llama-70b-pretrain-node-0-11.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-12 llama-70b-pretrain-node-0-12.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-13 llama-70b-pretrain-node-0-13.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-14 llama-70b-pretrain-node-0-14.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-15 llama-70b-pretrain-node-0-15.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-16 llama-70b-pretrain-node-0-16.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-17 llama-70b-pretrain-node-0-17.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-18 llama-70b-pretrain-node-0-18.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-19 llama-70b-pretrain-node-0-19.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-20 llama-70b-pretrain-node-0-20.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-21 llama-70b-pretrain-node-0-21.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-22 llama-70b-pretrain-node-0-22.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-23 llama-70b-pretrain-node-0-23.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-24 llama-70b-pretrain-node-0-24.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-25 llama-70b-pretrain-node-0-25.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-26 llama-70b-pretrain-node-0-26.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-27 llama-70b-pretrain-node-0-27.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-28 llama-70b-pretrain-node-0-28.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-29 llama-70b-pretrain-node-0-29.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-30 llama-70b-pretrain-node-0-30.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-31 llama-70b-pretrain-node-0-31.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-32 llama-70b-pretrain-node-0-32.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-33 llama-70b-pretrain-node-0-33.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-34 llama-70b-pretrain-node-0-34.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-35 llama-70b-pretrain-node-0-35.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-36 llama-70b-pretrain-node-0-36.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-37 llama-70b-pretrain-node-0-37.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-38 llama-70b-pretrain-node-0-38.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-39 llama-70b-pretrain-node-0-39.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-40 llama-70b-pretrain-node-0-40.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-41 llama-70b-pretrain-node-0-41.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-42 llama-70b-pretrain-node-0-42.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-43 llama-70b-pretrain-node-0-43.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-44 llama-70b-pretrain-node-0-44.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-45 llama-70b-pretrain-node-0-45.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-46 llama-70b-pretrain-node-0-46.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-47 llama-70b-pretrain-node-0-47.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-48 llama-70b-pretrain-node-0-48.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-49 llama-70b-pretrain-node-0-49.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-50 llama-70b-pretrain-node-0-50.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-51 llama-70b-pretrain-node-0-51.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-52 llama-70b-pretrain-node-0-52.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-53 llama-70b-pretrain-node-0-53.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-54 llama-70b-pretrain-node-0-54.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-55 llama-70b-pretrain-node-0-55.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-56 llama-70b-pretrain-node-0-56.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-57 llama-70b-pretrain-node-0-57.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-58 llama-70b-pretrain-node-0-58.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-59 llama-70b-pretrain-node-0-59.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-60 llama-70b-pretrain-node-0-60.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-61 llama-70b-pretrain-node-0-61.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-62 llama-70b-pretrain-node-0-62.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-63 llama-70b-pretrain-node-0-63.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-64 llama-70b-pretrain-node-0-64.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-65 llama-70b-pretrain-node-0-65.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-66 llama-70b-pretrain-node-0-66.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-67 llama-70b-pretrain-node-0-67.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-68 llama-70b-pretrain-node-0-68.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-69 llama-70b-pretrain-node-0-69.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-70 llama-70b-pretrain-node-0-70.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-71 llama-70b-pretrain-node-0-71.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-72 llama-70b-pretrain-node-0-72.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-73 llama-70b-pretrain-node-0-73.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-74 llama-70b-pretrain-node-0-74.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-75 llama-70b-pretrain-node-0-75.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-76 llama-70b-pretrain-node-0-76.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-77 llama-70b-pretrain-node-0-77.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-78 llama-70b-pretrain-node-0-78.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-79 llama-70b-pretrain-node-0-79.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-80 llama-70b-pretrain-node-0-80.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-81 llama-70b-pretrain-node-0-81.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-82 llama-70b-pretrain-node-0-82.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-83 llama-70b-pretrain-node-0-83.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-84 llama-70b-pretrain-node-0-84.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-85 llama-70b-pretrain-node-0-85.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-86 llama-70b-pretrain-node-0-86.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-87 llama-70b-pretrain-node-0-87.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-88 llama-70b-pretrain-node-0-88.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-89 llama-70b-pretrain-node-0-89.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-90 llama-70b-pretrain-node-0-90.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-91 llama-70b-pretrain-node-0-91.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-92 llama-70b-pretrain-node-0-92.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-93 llama-70b-pretrain-node-0-93.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-94 llama-70b-pretrain-node-0-94.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-95 llama-70b-pretrain-node-0-95.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-96 llama-70b-pretrain-node-0-96.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-97 llama-70b-pretrain-node-0-97.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-98 llama-70b-pretrain-node-0-98.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-99 llama-70b-pretrain-node-0-99.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-100 llama-70b-pretrain-node-0-100.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-101 llama-70b-pretrain-node-0-101.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-102 llama-70b-pretrain-node-0-102.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-103 llama-70b-pretrain-node-0-103.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-104 llama-70b-pretrain-node-0-104.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-105 llama-70b-pretrain-node-0-105.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-106 llama-70b-pretrain-node-0-106.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-107 llama-70b-pretrain-node-0-107.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-108 llama-70b-pretrain-node-0-108.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-109 llama-70b-pretrain-node-0-109.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-110 llama-70b-pretrain-node-0-110.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-111 llama-70b-pretrain-node-0-111.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-112 llama-70b-pretrain-node-0-112.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-113 llama-70b-pretrain-node-0-113.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-114 llama-70b-pretrain-node-0-114.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-115 llama-70b-pretrain-node-0-115.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-116 llama-70b-pretrain-node-0-116.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-117 llama-70b-pretrain-node-0-117.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-118 llama-70b-pretrain-node-0-118.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-119 llama-70b-pretrain-node-0-119.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-120 llama-70b-pretrain-node-0-120.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-121 llama-70b-pretrain-node-0-121.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-122 llama-70b-pretrain-node-0-122.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-123 llama-70b-pretrain-node-0-123.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-124 llama-70b-pretrain-node-0-124.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-125 llama-70b-pretrain-node-0-125.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-126 llama-70b-pretrain-node-0-126.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-127 llama-70b-pretrain-node-0-127.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-128 llama-70b-pretrain-node-0-128.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-129 llama-70b-pretrain-node-0-129.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-130 llama-70b-pretrain-node-0-130.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-131 llama-70b-pretrain-node-0-131.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-132 llama-70b-pretrain-node-0-132.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-133 llama-70b-pretrain-node-0-133.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-134 llama-70b-pretrain-node-0-134.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-135 llama-70b-pretrain-node-0-135.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-136 llama-70b-pretrain-node-0-136.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-137 llama-70b-pretrain-node-0-137.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-138 llama-70b-pretrain-node-0-138.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-139 llama-70b-pretrain-node-0-139.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-140 llama-70b-pretrain-node-0-140.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-141 llama-70b-pretrain-node-0-141.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-142 llama-70b-pretrain-node-0-142.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-143 llama-70b-pretrain-node-0-143.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-144 llama-70b-pretrain-node-0-144.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-145 llama-70b-pretrain-node-0-145.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-146 llama-70b-pretrain-node-0-146.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-147 llama-70b-pretrain-node-0-147.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-148 llama-70b-pretrain-node-0-148.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-149 llama-70b-pretrain-node-0-149.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-150 llama-70b-pretrain-node-0-150.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-151 llama-70b-pretrain-node-0-151.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-152 llama-70b-pretrain-node-0-152.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-153 llama-70b-pretrain-node-0-153.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-154 llama-70b-pretrain-node-0-154.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-155 llama-70b-pretrain-node-0-155.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-156 llama-70b-pretrain-node-0-156.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-157 llama-70b-pretrain-node-0-157.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-158 llama-70b-pretrain-node-0-158.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-159 llama-70b-pretrain-node-0-159.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-160 llama-70b-pretrain-node-0-160.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-161 llama-70b-pretrain-node-0-161.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-162 llama-70b-pretrain-node-0-162.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-163 llama-70b-pretrain-node-0-163.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-164 llama-70b-pretrain-node-0-164.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-165 llama-70b-pretrain-node-0-165.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-166 llama-70b-pretrain-node-0-166.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-167 llama-70b-pretrain-node-0-167.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-168 llama-70b-pretrain-node-0-168.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-169 llama-70b-pretrain-node-0-169.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-170 llama-70b-pretrain-node-0-170.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-171 llama-70b-pretrain-node-0-171.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-172 llama-70b-pretrain-node-0-172.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-173 llama-70b-pretrain-node-0-173.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-174 llama-70b-pretrain-node-0-174.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-175 llama-70b-pretrain-node-0-175.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-176 llama-70b-pretrain-node-0-176.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-177 llama-70b-pretrain-node-0-177.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-178 llama-70b-pretrain-node-0-178.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-179 llama-70b-pretrain-node-0-179.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-180 llama-70b-pretrain-node-0-180.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-181 llama-70b-pretrain-node-0-181.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-182 llama-70b-pretrain-node-0-182.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-183 llama-70b-pretrain-node-0-183.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-184 llama-70b-pretrain-node-0-184.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-185 llama-70b-pretrain-node-0-185.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-186 llama-70b-pretrain-node-0-186.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-187 llama-70b-pretrain-node-0-187.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-188 llama-70b-pretrain-node-0-188.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-189 llama-70b-pretrain-node-0-189.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-190 llama-70b-pretrain-node-0-190.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-191 llama-70b-pretrain-node-0-191.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-192 llama-70b-pretrain-node-0-192.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-193 llama-70b-pretrain-node-0-193.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-194 llama-70b-pretrain-node-0-194.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-195 llama-70b-pretrain-node-0-195.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-196 llama-70b-pretrain-node-0-196.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-197 llama-70b-pretrain-node-0-197.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-198 llama-70b-pretrain-node-0-198.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-199 llama-70b-pretrain-node-0-199.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-200 llama-70b-pretrain-node-0-200.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-201 llama-70b-pretrain-node-0-201.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-202 llama-70b-pretrain-node-0-202.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-203 llama-70b-pretrain-node-0-203.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-204 llama-70b-pretrain-node-0-204.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-205 llama-70b-pretrain-node-0-205.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-206 llama-70b-pretrain-node-0-206.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-207 llama-70b-pretrain-node-0-207.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-208 llama-70b-pretrain-node-0-208.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-209 llama-70b-pretrain-node-0-209.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-210 llama-70b-pretrain-node-0-210.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-211 llama-70b-pretrain-node-0-211.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-212 llama-70b-pretrain-node-0-212.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-213 llama-70b-pretrain-node-0-213.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-214 llama-70b-pretrain-node-0-214.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-215 llama-70b-pretrain-node-0-215.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-216 llama-70b-pretrain-node-0-216.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-217 llama-70b-pretrain-node-0-217.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-218 llama-70b-pretrain-node-0-218.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-219 llama-70b-pretrain-node-0-219.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-220 llama-70b-pretrain-node-0-220.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-221 llama-70b-pretrain-node-0-221.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-222 llama-70b-pretrain-node-0-222.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-223 llama-70b-pretrain-node-0-223.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-224 llama-70b-pretrain-node-0-224.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-225 llama-70b-pretrain-node-0-225.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-226 llama-70b-pretrain-node-0-226.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-227 llama-70b-pretrain-node-0-227.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-228 llama-70b-pretrain-node-0-228.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-229 llama-70b-pretrain-node-0-229.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-230 llama-70b-pretrain-node-0-230.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-231 llama-70b-pretrain-node-0-231.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-232 llama-70b-pretrain-node-0-232.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-233 llama-70b-pretrain-node-0-233.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-234 llama-70b-pretrain-node-0-234.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-235 llama-70b-pretrain-node-0-235.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-236 llama-70b-pretrain-node-0-236.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-237 llama-70b-pretrain-node-0-237.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-238 llama-70b-pretrain-node-0-238.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-239 llama-70b-pretrain-node-0-239.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-240 llama-70b-pretrain-node-0-240.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-241 llama-70b-pretrain-node-0-241.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-242 llama-70b-pretrain-node-0-242.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-243 llama-70b-pretrain-node-0-243.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-244 llama-70b-pretrain-node-0-244.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-245 llama-70b-pretrain-node-0-245.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-246 llama-70b-pretrain-node-0-246.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-247 llama-70b-pretrain-node-0-247.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-248 llama-70b-pretrain-node-0-248.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-249 llama-70b-pretrain-node-0-249.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-250 llama-70b-pretrain-node-0-250.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-251 llama-70b-pretrain-node-0-251.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-252 llama-70b-pretrain-node-0-252.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-253 llama-70b-pretrain-node-0-253.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-254 llama-70b-pretrain-node-0-254.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-255 llama-70b-pretrain-node-0-255.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-256 llama-70b-pretrain-node-0-256.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-257 llama-70b-pretrain-node-0-257.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-258 llama-70b-pretrain-node-0-258.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-259 llama-70b-pretrain-node-0-259.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-260 llama-70b-pretrain-node-0-260.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-261 llama-70b-pretrain-node-0-261.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-262 llama-70b-pretrain-node-0-262.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-263 llama-70b-pretrain-node-0-263.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-264 llama-70b-pretrain-node-0-264.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-265 llama-70b-pretrain-node-0-265.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-266 llama-70b-pretrain-node-0-266.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-267 llama-70b-pretrain-node-0-267.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-268 llama-70b-pretrain-node-0-268.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-269 llama-70b-pretrain-node-0-269.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-270 llama-70b-pretrain-node-0-270.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-271 llama-70b-pretrain-node-0-271.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-272 llama-70b-pretrain-node-0-272.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-273 llama-70b-pretrain-node-0-273.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-274 llama-70b-pretrain-node-0-274.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-275 llama-70b-pretrain-node-0-275.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-276 llama-70b-pretrain-node-0-276.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-277 llama-70b-pretrain-node-0-277.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-278 llama-70b-pretrain-node-0-278.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-279 llama-70b-pretrain-node-0-279.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-280 llama-70b-pretrain-node-0-280.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-281 llama-70b-pretrain-node-0-281.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-282 llama-70b-pretrain-node-0-282.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-283 llama-70b-pretrain-node-0-283.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-284 llama-70b-pretrain-node-0-284.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-285 llama-70b-pretrain-node-0-285.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-286 llama-70b-pretrain-node-0-286.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-287 llama-70b-pretrain-node-0-287.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-288 llama-70b-pretrain-node-0-288.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-289 llama-70b-pretrain-node-0-289.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-290 llama-70b-pretrain-node-0-290.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-291 llama-70b-pretrain-node-0-291.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-292 llama-70b-pretrain-node-0-292.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-293 llama-70b-pretrain-node-0-293.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-294 llama-70b-pretrain-node-0-294.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-295 llama-70b-pretrain-node-0-295.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-296 llama-70b-pretrain-node-0-296.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-297 llama-70b-pretrain-node-0-297.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-298 llama-70b-pretrain-node-0-298.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-299 llama-70b-pretrain-node-0-299.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-300 llama-70b-pretrain-node-0-300.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-301 llama-70b-pretrain-node-0-301.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-302 llama-70b-pretrain-node-0-302.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-303 llama-70b-pretrain-node-0-303.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-304 llama-70b-pretrain-node-0-304.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-305 llama-70b-pretrain-node-0-305.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-306 llama-70b-pretrain-node-0-306.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-307 llama-70b-pretrain-node-0-307.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-308 llama-70b-pretrain-node-0-308.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-309 llama-70b-pretrain-node-0-309.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-310 llama-70b-pretrain-node-0-310.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-311 llama-70b-pretrain-node-0-311.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-312 llama-70b-pretrain-node-0-312.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-313 llama-70b-pretrain-node-0-313.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-314 llama-70b-pretrain-node-0-314.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-315 llama-70b-pretrain-node-0-315.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-316 llama-70b-pretrain-node-0-316.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-317 llama-70b-pretrain-node-0-317.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-318 llama-70b-pretrain-node-0-318.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-319 llama-70b-pretrain-node-0-319.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-320 llama-70b-pretrain-node-0-320.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-321 llama-70b-pretrain-node-0-321.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-322 llama-70b-pretrain-node-0-322.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-323 llama-70b-pretrain-node-0-323.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-324 llama-70b-pretrain-node-0-324.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-325 llama-70b-pretrain-node-0-325.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-326 llama-70b-pretrain-node-0-326.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-327 llama-70b-pretrain-node-0-327.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-328 llama-70b-pretrain-node-0-328.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-329 llama-70b-pretrain-node-0-329.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-330 llama-70b-pretrain-node-0-330.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-331 llama-70b-pretrain-node-0-331.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-332 llama-70b-pretrain-node-0-332.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-333 llama-70b-pretrain-node-0-333.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-334 llama-70b-pretrain-node-0-334.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-335 llama-70b-pretrain-node-0-335.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-336 llama-70b-pretrain-node-0-336.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-337 llama-70b-pretrain-node-0-337.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-338 llama-70b-pretrain-node-0-338.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-339 llama-70b-pretrain-node-0-339.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-340 llama-70b-pretrain-node-0-340.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-341 llama-70b-pretrain-node-0-341.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-342 llama-70b-pretrain-node-0-342.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-343 llama-70b-pretrain-node-0-343.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-344 llama-70b-pretrain-node-0-344.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-345 llama-70b-pretrain-node-0-345.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-346 llama-70b-pretrain-node-0-346.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-347 llama-70b-pretrain-node-0-347.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-348 llama-70b-pretrain-node-0-348.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-349 llama-70b-pretrain-node-0-349.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-350 llama-70b-pretrain-node-0-350.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-351 llama-70b-pretrain-node-0-351.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-352 llama-70b-pretrain-node-0-352.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-353 llama-70b-pretrain-node-0-353.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-354 llama-70b-pretrain-node-0-354.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-355 llama-70b-pretrain-node-0-355.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-356 llama-70b-pretrain-node-0-356.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-357 llama-70b-pretrain-node-0-357.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-358 llama-70b-pretrain-node-0-358.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-359 llama-70b-pretrain-node-0-359.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-360 llama-70b-pretrain-node-0-360.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-361 llama-70b-pretrain-node-0-361.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-362 llama-70b-pretrain-node-0-362.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-363 llama-70b-pretrain-node-0-363.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-364 llama-70b-pretrain-node-0-364.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-365 llama-70b-pretrain-node-0-365.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-366 llama-70b-pretrain-node-0-366.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-367 llama-70b-pretrain-node-0-367.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-368 llama-70b-pretrain-node-0-368.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-369 llama-70b-pretrain-node-0-369.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-370 llama-70b-pretrain-node-0-370.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-371 llama-70b-pretrain-node-0-371.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-372 llama-70b-pretrain-node-0-372.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-373 llama-70b-pretrain-node-0-373.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-374 llama-70b-pretrain-node-0-374.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-375 llama-70b-pretrain-node-0-375.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-376 llama-70b-pretrain-node-0-376.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-377 llama-70b-pretrain-node-0-377.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-378 llama-70b-pretrain-node-0-378.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-379 llama-70b-pretrain-node-0-379.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-380 llama-70b-pretrain-node-0-380.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-381 llama-70b-pretrain-node-0-381.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-382 llama-70b-pretrain-node-0-382.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-383 llama-70b-pretrain-node-0-383.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-384 llama-70b-pretrain-node-0-384.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-385 llama-70b-pretrain-node-0-385.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-386 llama-70b-pretrain-node-0-386.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-387 llama-70b-pretrain-node-0-387.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-388 llama-70b-pretrain-node-0-388.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-389 llama-70b-pretrain-node-0-389.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-390 llama-70b-pretrain-node-0-390.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-391 llama-70b-pretrain-node-0-391.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-392 llama-70b-pretrain-node-0-392.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-393 llama-70b-pretrain-node-0-393.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-394 llama-70b-pretrain-node-0-394.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-395 llama-70b-pretrain-node-0-395.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-396 llama-70b-pretrain-node-0-396.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-397 llama-70b-pretrain-node-0-397.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-398 llama-70b-pretrain-node-0-398.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-399 llama-70b-pretrain-node-0-399.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-400 llama-70b-pretrain-node-0-400.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-401 llama-70b-pretrain-node-0-401.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-402 llama-70b-pretrain-node-0-402.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-403 llama-70b-pretrain-node-0-403.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-404 llama-70b-pretrain-node-0-404.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-405 llama-70b-pretrain-node-0-405.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-406 llama-70b-pretrain-node-0-406.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-407 llama-70b-pretrain-node-0-407.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-408 llama-70b-pretrain-node-0-408.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-409 llama-70b-pretrain-node-0-409.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-410 llama-70b-pretrain-node-0-410.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-411 llama-70b-pretrain-node-0-411.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-412 llama-70b-pretrain-node-0-412.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-413 llama-70b-pretrain-node-0-413.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-414 llama-70b-pretrain-node-0-414.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-415 llama-70b-pretrain-node-0-415.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-416 llama-70b-pretrain-node-0-416.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-417 llama-70b-pretrain-node-0-417.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-418 llama-70b-pretrain-node-0-418.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-419 llama-70b-pretrain-node-0-419.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-420 llama-70b-pretrain-node-0-420.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-421 llama-70b-pretrain-node-0-421.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-422 llama-70b-pretrain-node-0-422.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-423 llama-70b-pretrain-node-0-423.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-424 llama-70b-pretrain-node-0-424.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-425 llama-70b-pretrain-node-0-425.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-426 llama-70b-pretrain-node-0-426.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-427 llama-70b-pretrain-node-0-427.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-428 llama-70b-pretrain-node-0-428.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-429 llama-70b-pretrain-node-0-429.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-430 llama-70b-pretrain-node-0-430.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-431 llama-70b-pretrain-node-0-431.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-432 llama-70b-pretrain-node-0-432.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-433 llama-70b-pretrain-node-0-433.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-434 llama-70b-pretrain-node-0-434.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-435 llama-70b-pretrain-node-0-435.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-436 llama-70b-pretrain-node-0-436.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-437 llama-70b-pretrain-node-0-437.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-438 llama-70b-pretrain-node-0-438.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-439 llama-70b-pretrain-node-0-439.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-440 llama-70b-pretrain-node-0-440.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-441 llama-70b-pretrain-node-0-441.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-442 llama-70b-pretrain-node-0-442.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-443 llama-70b-pretrain-node-0-443.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-444 llama-70b-pretrain-node-0-444.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-445 llama-70b-pretrain-node-0-445.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-446 llama-70b-pretrain-node-0-446.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-447 llama-70b-pretrain-node-0-447.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-448 llama-70b-pretrain-node-0-448.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-449 llama-70b-pretrain-node-0-449.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-450 llama-70b-pretrain-node-0-450.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-451 llama-70b-pretrain-node-0-451.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-452 llama-70b-pretrain-node-0-452.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-453 llama-70b-pretrain-node-0-453.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-454 llama-70b-pretrain-node-0-454.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-455 llama-70b-pretrain-node-0-455.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-456 llama-70b-pretrain-node-0-456.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-457 llama-70b-pretrain-node-0-457.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-458 llama-70b-pretrain-node-0-458.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-459 llama-70b-pretrain-node-0-459.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-460 llama-70b-pretrain-node-0-460.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-461 llama-70b-pretrain-node-0-461.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-462 llama-70b-pretrain-node-0-462.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-463 llama-70b-pretrain-node-0-463.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-464 llama-70b-pretrain-node-0-464.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-465 llama-70b-pretrain-node-0-465.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-466 llama-70b-pretrain-node-0-466.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-467 llama-70b-pretrain-node-0-467.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-468 llama-70b-pretrain-node-0-468.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-469 llama-70b-pretrain-node-0-469.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-470 llama-70b-pretrain-node-0-470.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-471 llama-70b-pretrain-node-0-471.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-472 llama-70b-pretrain-node-0-472.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-473 llama-70b-pretrain-node-0-473.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-474 llama-70b-pretrain-node-0-474.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-475 llama-70b-pretrain-node-0-475.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-476 llama-70b-pretrain-node-0-476.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-477 llama-70b-pretrain-node-0-477.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-478 llama-70b-pretrain-node-0-478.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-479 llama-70b-pretrain-node-0-479.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-480 llama-70b-pretrain-node-0-480.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-481 llama-70b-pretrain-node-0-481.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-482 llama-70b-pretrain-node-0-482.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-483 llama-70b-pretrain-node-0-483.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-484 llama-70b-pretrain-node-0-484.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-485 llama-70b-pretrain-node-0-485.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-486 llama-70b-pretrain-node-0-486.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-487 llama-70b-pretrain-node-0-487.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-488 llama-70b-pretrain-node-0-488.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-489 llama-70b-pretrain-node-0-489.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-490 llama-70b-pretrain-node-0-490.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-491 llama-70b-pretrain-node-0-491.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-492 llama-70b-pretrain-node-0-492.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-493 llama-70b-pretrain-node-0-493.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-494 llama-70b-pretrain-node-0-494.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-495 llama-70b-pretrain-node-0-495.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-496 llama-70b-pretrain-node-0-496.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-497 llama-70b-pretrain-node-0-497.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-498 llama-70b-pretrain-node-0-498.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-499 llama-70b-pretrain-node-0-499.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-500 llama-70b-pretrain-node-0-500.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-501 llama-70b-pretrain-node-0-501.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-502 llama-70b-pretrain-node-0-502.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-503 llama-70b-pretrain-node-0-503.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-504 llama-70b-pretrain-node-0-504.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-505 llama-70b-pretrain-node-0-505.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-506 llama-70b-pretrain-node-0-506.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-507 llama-70b-pretrain-node-0-507.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-508 llama-70b-pretrain-node-0-508.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-509 llama-70b-pretrain-node-0-509.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-510 llama-70b-pretrain-node-0-510.llama-70b-pretrain
  "$@" llama-70b-pretrain-node-0-511 llama-70b-pretrain-node-0-511.llama-70b-pretrain
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
