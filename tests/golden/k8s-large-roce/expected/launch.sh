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
  "$@" llama-70b-pretrain-master-0 llama-70b-pretrain-master-0
  "$@" llama-70b-pretrain-worker-0 llama-70b-pretrain-worker-0
  "$@" llama-70b-pretrain-worker-1 llama-70b-pretrain-worker-1
  "$@" llama-70b-pretrain-worker-2 llama-70b-pretrain-worker-2
  "$@" llama-70b-pretrain-worker-3 llama-70b-pretrain-worker-3
  "$@" llama-70b-pretrain-worker-4 llama-70b-pretrain-worker-4
  "$@" llama-70b-pretrain-worker-5 llama-70b-pretrain-worker-5
  "$@" llama-70b-pretrain-worker-6 llama-70b-pretrain-worker-6
  "$@" llama-70b-pretrain-worker-7 llama-70b-pretrain-worker-7
  "$@" llama-70b-pretrain-worker-8 llama-70b-pretrain-worker-8
  "$@" llama-70b-pretrain-worker-9 llama-70b-pretrain-worker-9
  "$@" llama-70b-pretrain-worker-10 llama-70b-pretrain-worker-10
  "$@" llama-70b-pretrain-worker-11 llama-70b-pretrain-worker-11
  "$@" llama-70b-pretrain-worker-12 llama-70b-pretrain-worker-12
  "$@" llama-70b-pretrain-worker-13 llama-70b-pretrain-worker-13
  "$@" llama-70b-pretrain-worker-14 llama-70b-pretrain-worker-14
  "$@" llama-70b-pretrain-worker-15 llama-70b-pretrain-worker-15
  "$@" llama-70b-pretrain-worker-16 llama-70b-pretrain-worker-16
  "$@" llama-70b-pretrain-worker-17 llama-70b-pretrain-worker-17
  "$@" llama-70b-pretrain-worker-18 llama-70b-pretrain-worker-18
  "$@" llama-70b-pretrain-worker-19 llama-70b-pretrain-worker-19
  "$@" llama-70b-pretrain-worker-20 llama-70b-pretrain-worker-20
  "$@" llama-70b-pretrain-worker-21 llama-70b-pretrain-worker-21
  "$@" llama-70b-pretrain-worker-22 llama-70b-pretrain-worker-22
  "$@" llama-70b-pretrain-worker-23 llama-70b-pretrain-worker-23
  "$@" llama-70b-pretrain-worker-24 llama-70b-pretrain-worker-24
  "$@" llama-70b-pretrain-worker-25 llama-70b-pretrain-worker-25
  "$@" llama-70b-pretrain-worker-26 llama-70b-pretrain-worker-26
  "$@" llama-70b-pretrain-worker-27 llama-70b-pretrain-worker-27
  "$@" llama-70b-pretrain-worker-28 llama-70b-pretrain-worker-28
  "$@" llama-70b-pretrain-worker-29 llama-70b-pretrain-worker-29
  "$@" llama-70b-pretrain-worker-30 llama-70b-pretrain-worker-30
  "$@" llama-70b-pretrain-worker-31 llama-70b-pretrain-worker-31
  "$@" llama-70b-pretrain-worker-32 llama-70b-pretrain-worker-32
  "$@" llama-70b-pretrain-worker-33 llama-70b-pretrain-worker-33
  "$@" llama-70b-pretrain-worker-34 llama-70b-pretrain-worker-34
  "$@" llama-70b-pretrain-worker-35 llama-70b-pretrain-worker-35
  "$@" llama-70b-pretrain-worker-36 llama-70b-pretrain-worker-36
  "$@" llama-70b-pretrain-worker-37 llama-70b-pretrain-worker-37
  "$@" llama-70b-pretrain-worker-38 llama-70b-pretrain-worker-38
  "$@" llama-70b-pretrain-worker-39 llama-70b-pretrain-worker-39
  "$@" llama-70b-pretrain-worker-40 llama-70b-pretrain-worker-40
  "$@" llama-70b-pretrain-worker-41 llama-70b-pretrain-worker-41
  "$@" llama-70b-pretrain-worker-42 llama-70b-pretrain-worker-42
  "$@" llama-70b-pretrain-worker-43 llama-70b-pretrain-worker-43
  "$@" llama-70b-pretrain-worker-44 llama-70b-pretrain-worker-44
  "$@" llama-70b-pretrain-worker-45 llama-70b-pretrain-worker-45
  "$@" llama-70b-pretrain-worker-46 llama-70b-pretrain-worker-46
  "$@" llama-70b-pretrain-worker-47 llama-70b-pretrain-worker-47
  "$@" llama-70b-pretrain-worker-48 llama-70b-pretrain-worker-48
  "$@" llama-70b-pretrain-worker-49 llama-70b-pretrain-worker-49
  "$@" llama-70b-pretrain-worker-50 llama-70b-pretrain-worker-50
  "$@" llama-70b-pretrain-worker-51 llama-70b-pretrain-worker-51
  "$@" llama-70b-pretrain-worker-52 llama-70b-pretrain-worker-52
  "$@" llama-70b-pretrain-worker-53 llama-70b-pretrain-worker-53
  "$@" llama-70b-pretrain-worker-54 llama-70b-pretrain-worker-54
  "$@" llama-70b-pretrain-worker-55 llama-70b-pretrain-worker-55
  "$@" llama-70b-pretrain-worker-56 llama-70b-pretrain-worker-56
  "$@" llama-70b-pretrain-worker-57 llama-70b-pretrain-worker-57
  "$@" llama-70b-pretrain-worker-58 llama-70b-pretrain-worker-58
  "$@" llama-70b-pretrain-worker-59 llama-70b-pretrain-worker-59
  "$@" llama-70b-pretrain-worker-60 llama-70b-pretrain-worker-60
  "$@" llama-70b-pretrain-worker-61 llama-70b-pretrain-worker-61
  "$@" llama-70b-pretrain-worker-62 llama-70b-pretrain-worker-62
  "$@" llama-70b-pretrain-worker-63 llama-70b-pretrain-worker-63
  "$@" llama-70b-pretrain-worker-64 llama-70b-pretrain-worker-64
  "$@" llama-70b-pretrain-worker-65 llama-70b-pretrain-worker-65
  "$@" llama-70b-pretrain-worker-66 llama-70b-pretrain-worker-66
  "$@" llama-70b-pretrain-worker-67 llama-70b-pretrain-worker-67
  "$@" llama-70b-pretrain-worker-68 llama-70b-pretrain-worker-68
  "$@" llama-70b-pretrain-worker-69 llama-70b-pretrain-worker-69
  "$@" llama-70b-pretrain-worker-70 llama-70b-pretrain-worker-70
  "$@" llama-70b-pretrain-worker-71 llama-70b-pretrain-worker-71
  "$@" llama-70b-pretrain-worker-72 llama-70b-pretrain-worker-72
  "$@" llama-70b-pretrain-worker-73 llama-70b-pretrain-worker-73
  "$@" llama-70b-pretrain-worker-74 llama-70b-pretrain-worker-74
  "$@" llama-70b-pretrain-worker-75 llama-70b-pretrain-worker-75
  "$@" llama-70b-pretrain-worker-76 llama-70b-pretrain-worker-76
  "$@" llama-70b-pretrain-worker-77 llama-70b-pretrain-worker-77
  "$@" llama-70b-pretrain-worker-78 llama-70b-pretrain-worker-78
  "$@" llama-70b-pretrain-worker-79 llama-70b-pretrain-worker-79
  "$@" llama-70b-pretrain-worker-80 llama-70b-pretrain-worker-80
  "$@" llama-70b-pretrain-worker-81 llama-70b-pretrain-worker-81
  "$@" llama-70b-pretrain-worker-82 llama-70b-pretrain-worker-82
  "$@" llama-70b-pretrain-worker-83 llama-70b-pretrain-worker-83
  "$@" llama-70b-pretrain-worker-84 llama-70b-pretrain-worker-84
  "$@" llama-70b-pretrain-worker-85 llama-70b-pretrain-worker-85
  "$@" llama-70b-pretrain-worker-86 llama-70b-pretrain-worker-86
  "$@" llama-70b-pretrain-worker-87 llama-70b-pretrain-worker-87
  "$@" llama-70b-pretrain-worker-88 llama-70b-pretrain-worker-88
  "$@" llama-70b-pretrain-worker-89 llama-70b-pretrain-worker-89
  "$@" llama-70b-pretrain-worker-90 llama-70b-pretrain-worker-90
  "$@" llama-70b-pretrain-worker-91 llama-70b-pretrain-worker-91
  "$@" llama-70b-pretrain-worker-92 llama-70b-pretrain-worker-92
  "$@" llama-70b-pretrain-worker-93 llama-70b-pretrain-worker-93
  "$@" llama-70b-pretrain-worker-94 llama-70b-pretrain-worker-94
  "$@" llama-70b-pretrain-worker-95 llama-70b-pretrain-worker-95
  "$@" llama-70b-pretrain-worker-96 llama-70b-pretrain-worker-96
  "$@" llama-70b-pretrain-worker-97 llama-70b-pretrain-worker-97
  "$@" llama-70b-pretrain-worker-98 llama-70b-pretrain-worker-98
  "$@" llama-70b-pretrain-worker-99 llama-70b-pretrain-worker-99
  "$@" llama-70b-pretrain-worker-100 llama-70b-pretrain-worker-100
  "$@" llama-70b-pretrain-worker-101 llama-70b-pretrain-worker-101
  "$@" llama-70b-pretrain-worker-102 llama-70b-pretrain-worker-102
  "$@" llama-70b-pretrain-worker-103 llama-70b-pretrain-worker-103
  "$@" llama-70b-pretrain-worker-104 llama-70b-pretrain-worker-104
  "$@" llama-70b-pretrain-worker-105 llama-70b-pretrain-worker-105
  "$@" llama-70b-pretrain-worker-106 llama-70b-pretrain-worker-106
  "$@" llama-70b-pretrain-worker-107 llama-70b-pretrain-worker-107
  "$@" llama-70b-pretrain-worker-108 llama-70b-pretrain-worker-108
  "$@" llama-70b-pretrain-worker-109 llama-70b-pretrain-worker-109
  "$@" llama-70b-pretrain-worker-110 llama-70b-pretrain-worker-110
  "$@" llama-70b-pretrain-worker-111 llama-70b-pretrain-worker-111
  "$@" llama-70b-pretrain-worker-112 llama-70b-pretrain-worker-112
  "$@" llama-70b-pretrain-worker-113 llama-70b-pretrain-worker-113
  "$@" llama-70b-pretrain-worker-114 llama-70b-pretrain-worker-114
  "$@" llama-70b-pretrain-worker-115 llama-70b-pretrain-worker-115
  "$@" llama-70b-pretrain-worker-116 llama-70b-pretrain-worker-116
  "$@" llama-70b-pretrain-worker-117 llama-70b-pretrain-worker-117
  "$@" llama-70b-pretrain-worker-118 llama-70b-pretrain-worker-118
  "$@" llama-70b-pretrain-worker-119 llama-70b-pretrain-worker-119
  "$@" llama-70b-pretrain-worker-120 llama-70b-pretrain-worker-120
  "$@" llama-70b-pretrain-worker-121 llama-70b-pretrain-worker-121
  "$@" llama-70b-pretrain-worker-122 llama-70b-pretrain-worker-122
  "$@" llama-70b-pretrain-worker-123 llama-70b-pretrain-worker-123
  "$@" llama-70b-pretrain-worker-124 llama-70b-pretrain-worker-124
  "$@" llama-70b-pretrain-worker-125 llama-70b-pretrain-worker-125
  "$@" llama-70b-pretrain-worker-126 llama-70b-pretrain-worker-126
  "$@" llama-70b-pretrain-worker-127 llama-70b-pretrain-worker-127
  "$@" llama-70b-pretrain-worker-128 llama-70b-pretrain-worker-128
  "$@" llama-70b-pretrain-worker-129 llama-70b-pretrain-worker-129
  "$@" llama-70b-pretrain-worker-130 llama-70b-pretrain-worker-130
  "$@" llama-70b-pretrain-worker-131 llama-70b-pretrain-worker-131
  "$@" llama-70b-pretrain-worker-132 llama-70b-pretrain-worker-132
  "$@" llama-70b-pretrain-worker-133 llama-70b-pretrain-worker-133
  "$@" llama-70b-pretrain-worker-134 llama-70b-pretrain-worker-134
  "$@" llama-70b-pretrain-worker-135 llama-70b-pretrain-worker-135
  "$@" llama-70b-pretrain-worker-136 llama-70b-pretrain-worker-136
  "$@" llama-70b-pretrain-worker-137 llama-70b-pretrain-worker-137
  "$@" llama-70b-pretrain-worker-138 llama-70b-pretrain-worker-138
  "$@" llama-70b-pretrain-worker-139 llama-70b-pretrain-worker-139
  "$@" llama-70b-pretrain-worker-140 llama-70b-pretrain-worker-140
  "$@" llama-70b-pretrain-worker-141 llama-70b-pretrain-worker-141
  "$@" llama-70b-pretrain-worker-142 llama-70b-pretrain-worker-142
  "$@" llama-70b-pretrain-worker-143 llama-70b-pretrain-worker-143
  "$@" llama-70b-pretrain-worker-144 llama-70b-pretrain-worker-144
  "$@" llama-70b-pretrain-worker-145 llama-70b-pretrain-worker-145
  "$@" llama-70b-pretrain-worker-146 llama-70b-pretrain-worker-146
  "$@" llama-70b-pretrain-worker-147 llama-70b-pretrain-worker-147
  "$@" llama-70b-pretrain-worker-148 llama-70b-pretrain-worker-148
  "$@" llama-70b-pretrain-worker-149 llama-70b-pretrain-worker-149
  "$@" llama-70b-pretrain-worker-150 llama-70b-pretrain-worker-150
  "$@" llama-70b-pretrain-worker-151 llama-70b-pretrain-worker-151
  "$@" llama-70b-pretrain-worker-152 llama-70b-pretrain-worker-152
  "$@" llama-70b-pretrain-worker-153 llama-70b-pretrain-worker-153
  "$@" llama-70b-pretrain-worker-154 llama-70b-pretrain-worker-154
  "$@" llama-70b-pretrain-worker-155 llama-70b-pretrain-worker-155
  "$@" llama-70b-pretrain-worker-156 llama-70b-pretrain-worker-156
  "$@" llama-70b-pretrain-worker-157 llama-70b-pretrain-worker-157
  "$@" llama-70b-pretrain-worker-158 llama-70b-pretrain-worker-158
  "$@" llama-70b-pretrain-worker-159 llama-70b-pretrain-worker-159
  "$@" llama-70b-pretrain-worker-160 llama-70b-pretrain-worker-160
  "$@" llama-70b-pretrain-worker-161 llama-70b-pretrain-worker-161
  "$@" llama-70b-pretrain-worker-162 llama-70b-pretrain-worker-162
  "$@" llama-70b-pretrain-worker-163 llama-70b-pretrain-worker-163
  "$@" llama-70b-pretrain-worker-164 llama-70b-pretrain-worker-164
  "$@" llama-70b-pretrain-worker-165 llama-70b-pretrain-worker-165
  "$@" llama-70b-pretrain-worker-166 llama-70b-pretrain-worker-166
  "$@" llama-70b-pretrain-worker-167 llama-70b-pretrain-worker-167
  "$@" llama-70b-pretrain-worker-168 llama-70b-pretrain-worker-168
  "$@" llama-70b-pretrain-worker-169 llama-70b-pretrain-worker-169
  "$@" llama-70b-pretrain-worker-170 llama-70b-pretrain-worker-170
  "$@" llama-70b-pretrain-worker-171 llama-70b-pretrain-worker-171
  "$@" llama-70b-pretrain-worker-172 llama-70b-pretrain-worker-172
  "$@" llama-70b-pretrain-worker-173 llama-70b-pretrain-worker-173
  "$@" llama-70b-pretrain-worker-174 llama-70b-pretrain-worker-174
  "$@" llama-70b-pretrain-worker-175 llama-70b-pretrain-worker-175
  "$@" llama-70b-pretrain-worker-176 llama-70b-pretrain-worker-176
  "$@" llama-70b-pretrain-worker-177 llama-70b-pretrain-worker-177
  "$@" llama-70b-pretrain-worker-178 llama-70b-pretrain-worker-178
  "$@" llama-70b-pretrain-worker-179 llama-70b-pretrain-worker-179
  "$@" llama-70b-pretrain-worker-180 llama-70b-pretrain-worker-180
  "$@" llama-70b-pretrain-worker-181 llama-70b-pretrain-worker-181
  "$@" llama-70b-pretrain-worker-182 llama-70b-pretrain-worker-182
  "$@" llama-70b-pretrain-worker-183 llama-70b-pretrain-worker-183
  "$@" llama-70b-pretrain-worker-184 llama-70b-pretrain-worker-184
  "$@" llama-70b-pretrain-worker-185 llama-70b-pretrain-worker-185
  "$@" llama-70b-pretrain-worker-186 llama-70b-pretrain-worker-186
  "$@" llama-70b-pretrain-worker-187 llama-70b-pretrain-worker-187
  "$@" llama-70b-pretrain-worker-188 llama-70b-pretrain-worker-188
  "$@" llama-70b-pretrain-worker-189 llama-70b-pretrain-worker-189
  "$@" llama-70b-pretrain-worker-190 llama-70b-pretrain-worker-190
  "$@" llama-70b-pretrain-worker-191 llama-70b-pretrain-worker-191
  "$@" llama-70b-pretrain-worker-192 llama-70b-pretrain-worker-192
  "$@" llama-70b-pretrain-worker-193 llama-70b-pretrain-worker-193
  "$@" llama-70b-pretrain-worker-194 llama-70b-pretrain-worker-194
  "$@" llama-70b-pretrain-worker-195 llama-70b-pretrain-worker-195
  "$@" llama-70b-pretrain-worker-196 llama-70b-pretrain-worker-196
  "$@" llama-70b-pretrain-worker-197 llama-70b-pretrain-worker-197
  "$@" llama-70b-pretrain-worker-198 llama-70b-pretrain-worker-198
  "$@" llama-70b-pretrain-worker-199 llama-70b-pretrain-worker-199
  "$@" llama-70b-pretrain-worker-200 llama-70b-pretrain-worker-200
  "$@" llama-70b-pretrain-worker-201 llama-70b-pretrain-worker-201
  "$@" llama-70b-pretrain-worker-202 llama-70b-pretrain-worker-202
  "$@" llama-70b-pretrain-worker-203 llama-70b-pretrain-worker-203
  "$@" llama-70b-pretrain-worker-204 llama-70b-pretrain-worker-204
  "$@" llama-70b-pretrain-worker-205 llama-70b-pretrain-worker-205
  "$@" llama-70b-pretrain-worker-206 llama-70b-pretrain-worker-206
  "$@" llama-70b-pretrain-worker-207 llama-70b-pretrain-worker-207
  "$@" llama-70b-pretrain-worker-208 llama-70b-pretrain-worker-208
  "$@" llama-70b-pretrain-worker-209 llama-70b-pretrain-worker-209
  "$@" llama-70b-pretrain-worker-210 llama-70b-pretrain-worker-210
  "$@" llama-70b-pretrain-worker-211 llama-70b-pretrain-worker-211
  "$@" llama-70b-pretrain-worker-212 llama-70b-pretrain-worker-212
  "$@" llama-70b-pretrain-worker-213 llama-70b-pretrain-worker-213
  "$@" llama-70b-pretrain-worker-214 llama-70b-pretrain-worker-214
  "$@" llama-70b-pretrain-worker-215 llama-70b-pretrain-worker-215
  "$@" llama-70b-pretrain-worker-216 llama-70b-pretrain-worker-216
  "$@" llama-70b-pretrain-worker-217 llama-70b-pretrain-worker-217
  "$@" llama-70b-pretrain-worker-218 llama-70b-pretrain-worker-218
  "$@" llama-70b-pretrain-worker-219 llama-70b-pretrain-worker-219
  "$@" llama-70b-pretrain-worker-220 llama-70b-pretrain-worker-220
  "$@" llama-70b-pretrain-worker-221 llama-70b-pretrain-worker-221
  "$@" llama-70b-pretrain-worker-222 llama-70b-pretrain-worker-222
  "$@" llama-70b-pretrain-worker-223 llama-70b-pretrain-worker-223
  "$@" llama-70b-pretrain-worker-224 llama-70b-pretrain-worker-224
  "$@" llama-70b-pretrain-worker-225 llama-70b-pretrain-worker-225
  "$@" llama-70b-pretrain-worker-226 llama-70b-pretrain-worker-226
  "$@" llama-70b-pretrain-worker-227 llama-70b-pretrain-worker-227
  "$@" llama-70b-pretrain-worker-228 llama-70b-pretrain-worker-228
  "$@" llama-70b-pretrain-worker-229 llama-70b-pretrain-worker-229
  "$@" llama-70b-pretrain-worker-230 llama-70b-pretrain-worker-230
  "$@" llama-70b-pretrain-worker-231 llama-70b-pretrain-worker-231
  "$@" llama-70b-pretrain-worker-232 llama-70b-pretrain-worker-232
  "$@" llama-70b-pretrain-worker-233 llama-70b-pretrain-worker-233
  "$@" llama-70b-pretrain-worker-234 llama-70b-pretrain-worker-234
  "$@" llama-70b-pretrain-worker-235 llama-70b-pretrain-worker-235
  "$@" llama-70b-pretrain-worker-236 llama-70b-pretrain-worker-236
  "$@" llama-70b-pretrain-worker-237 llama-70b-pretrain-worker-237
  "$@" llama-70b-pretrain-worker-238 llama-70b-pretrain-worker-238
  "$@" llama-70b-pretrain-worker-239 llama-70b-pretrain-worker-239
  "$@" llama-70b-pretrain-worker-240 llama-70b-pretrain-worker-240
  "$@" llama-70b-pretrain-worker-241 llama-70b-pretrain-worker-241
  "$@" llama-70b-pretrain-worker-242 llama-70b-pretrain-worker-242
  "$@" llama-70b-pretrain-worker-243 llama-70b-pretrain-worker-243
  "$@" llama-70b-pretrain-worker-244 llama-70b-pretrain-worker-244
  "$@" llama-70b-pretrain-worker-245 llama-70b-pretrain-worker-245
  "$@" llama-70b-pretrain-worker-246 llama-70b-pretrain-worker-246
  "$@" llama-70b-pretrain-worker-247 llama-70b-pretrain-worker-247
  "$@" llama-70b-pretrain-worker-248 llama-70b-pretrain-worker-248
  "$@" llama-70b-pretrain-worker-249 llama-70b-pretrain-worker-249
  "$@" llama-70b-pretrain-worker-250 llama-70b-pretrain-worker-250
  "$@" llama-70b-pretrain-worker-251 llama-70b-pretrain-worker-251
  "$@" llama-70b-pretrain-worker-252 llama-70b-pretrain-worker-252
  "$@" llama-70b-pretrain-worker-253 llama-70b-pretrain-worker-253
  "$@" llama-70b-pretrain-worker-254 llama-70b-pretrain-worker-254
  "$@" llama-70b-pretrain-worker-255 llama-70b-pretrain-worker-255
  "$@" llama-70b-pretrain-worker-256 llama-70b-pretrain-worker-256
  "$@" llama-70b-pretrain-worker-257 llama-70b-pretrain-worker-257
  "$@" llama-70b-pretrain-worker-258 llama-70b-pretrain-worker-258
  "$@" llama-70b-pretrain-worker-259 llama-70b-pretrain-worker-259
  "$@" llama-70b-pretrain-worker-260 llama-70b-pretrain-worker-260
  "$@" llama-70b-pretrain-worker-261 llama-70b-pretrain-worker-261
  "$@" llama-70b-pretrain-worker-262 llama-70b-pretrain-worker-262
  "$@" llama-70b-pretrain-worker-263 llama-70b-pretrain-worker-263
  "$@" llama-70b-pretrain-worker-264 llama-70b-pretrain-worker-264
  "$@" llama-70b-pretrain-worker-265 llama-70b-pretrain-worker-265
  "$@" llama-70b-pretrain-worker-266 llama-70b-pretrain-worker-266
  "$@" llama-70b-pretrain-worker-267 llama-70b-pretrain-worker-267
  "$@" llama-70b-pretrain-worker-268 llama-70b-pretrain-worker-268
  "$@" llama-70b-pretrain-worker-269 llama-70b-pretrain-worker-269
  "$@" llama-70b-pretrain-worker-270 llama-70b-pretrain-worker-270
  "$@" llama-70b-pretrain-worker-271 llama-70b-pretrain-worker-271
  "$@" llama-70b-pretrain-worker-272 llama-70b-pretrain-worker-272
  "$@" llama-70b-pretrain-worker-273 llama-70b-pretrain-worker-273
  "$@" llama-70b-pretrain-worker-274 llama-70b-pretrain-worker-274
  "$@" llama-70b-pretrain-worker-275 llama-70b-pretrain-worker-275
  "$@" llama-70b-pretrain-worker-276 llama-70b-pretrain-worker-276
  "$@" llama-70b-pretrain-worker-277 llama-70b-pretrain-worker-277
  "$@" llama-70b-pretrain-worker-278 llama-70b-pretrain-worker-278
  "$@" llama-70b-pretrain-worker-279 llama-70b-pretrain-worker-279
  "$@" llama-70b-pretrain-worker-280 llama-70b-pretrain-worker-280
  "$@" llama-70b-pretrain-worker-281 llama-70b-pretrain-worker-281
  "$@" llama-70b-pretrain-worker-282 llama-70b-pretrain-worker-282
  "$@" llama-70b-pretrain-worker-283 llama-70b-pretrain-worker-283
  "$@" llama-70b-pretrain-worker-284 llama-70b-pretrain-worker-284
  "$@" llama-70b-pretrain-worker-285 llama-70b-pretrain-worker-285
  "$@" llama-70b-pretrain-worker-286 llama-70b-pretrain-worker-286
  "$@" llama-70b-pretrain-worker-287 llama-70b-pretrain-worker-287
  "$@" llama-70b-pretrain-worker-288 llama-70b-pretrain-worker-288
  "$@" llama-70b-pretrain-worker-289 llama-70b-pretrain-worker-289
  "$@" llama-70b-pretrain-worker-290 llama-70b-pretrain-worker-290
  "$@" llama-70b-pretrain-worker-291 llama-70b-pretrain-worker-291
  "$@" llama-70b-pretrain-worker-292 llama-70b-pretrain-worker-292
  "$@" llama-70b-pretrain-worker-293 llama-70b-pretrain-worker-293
  "$@" llama-70b-pretrain-worker-294 llama-70b-pretrain-worker-294
  "$@" llama-70b-pretrain-worker-295 llama-70b-pretrain-worker-295
  "$@" llama-70b-pretrain-worker-296 llama-70b-pretrain-worker-296
  "$@" llama-70b-pretrain-worker-297 llama-70b-pretrain-worker-297
  "$@" llama-70b-pretrain-worker-298 llama-70b-pretrain-worker-298
  "$@" llama-70b-pretrain-worker-299 llama-70b-pretrain-worker-299
  "$@" llama-70b-pretrain-worker-300 llama-70b-pretrain-worker-300
  "$@" llama-70b-pretrain-worker-301 llama-70b-pretrain-worker-301
  "$@" llama-70b-pretrain-worker-302 llama-70b-pretrain-worker-302
  "$@" llama-70b-pretrain-worker-303 llama-70b-pretrain-worker-303
  "$@" llama-70b-pretrain-worker-304 llama-70b-pretrain-worker-304
  "$@" llama-70b-pretrain-worker-305 llama-70b-pretrain-worker-305
  "$@" llama-70b-pretrain-worker-306 llama-70b-pretrain-worker-306
  "$@" llama-70b-pretrain-worker-307 llama-70b-pretrain-worker-307
  "$@" llama-70b-pretrain-worker-308 llama-70b-pretrain-worker-308
  "$@" llama-70b-pretrain-worker-309 llama-70b-pretrain-worker-309
  "$@" llama-70b-pretrain-worker-310 llama-70b-pretrain-worker-310
  "$@" llama-70b-pretrain-worker-311 llama-70b-pretrain-worker-311
  "$@" llama-70b-pretrain-worker-312 llama-70b-pretrain-worker-312
  "$@" llama-70b-pretrain-worker-313 llama-70b-pretrain-worker-313
  "$@" llama-70b-pretrain-worker-314 llama-70b-pretrain-worker-314
  "$@" llama-70b-pretrain-worker-315 llama-70b-pretrain-worker-315
  "$@" llama-70b-pretrain-worker-316 llama-70b-pretrain-worker-316
  "$@" llama-70b-pretrain-worker-317 llama-70b-pretrain-worker-317
  "$@" llama-70b-pretrain-worker-318 llama-70b-pretrain-worker-318
  "$@" llama-70b-pretrain-worker-319 llama-70b-pretrain-worker-319
  "$@" llama-70b-pretrain-worker-320 llama-70b-pretrain-worker-320
  "$@" llama-70b-pretrain-worker-321 llama-70b-pretrain-worker-321
  "$@" llama-70b-pretrain-worker-322 llama-70b-pretrain-worker-322
  "$@" llama-70b-pretrain-worker-323 llama-70b-pretrain-worker-323
  "$@" llama-70b-pretrain-worker-324 llama-70b-pretrain-worker-324
  "$@" llama-70b-pretrain-worker-325 llama-70b-pretrain-worker-325
  "$@" llama-70b-pretrain-worker-326 llama-70b-pretrain-worker-326
  "$@" llama-70b-pretrain-worker-327 llama-70b-pretrain-worker-327
  "$@" llama-70b-pretrain-worker-328 llama-70b-pretrain-worker-328
  "$@" llama-70b-pretrain-worker-329 llama-70b-pretrain-worker-329
  "$@" llama-70b-pretrain-worker-330 llama-70b-pretrain-worker-330
  "$@" llama-70b-pretrain-worker-331 llama-70b-pretrain-worker-331
  "$@" llama-70b-pretrain-worker-332 llama-70b-pretrain-worker-332
  "$@" llama-70b-pretrain-worker-333 llama-70b-pretrain-worker-333
  "$@" llama-70b-pretrain-worker-334 llama-70b-pretrain-worker-334
  "$@" llama-70b-pretrain-worker-335 llama-70b-pretrain-worker-335
  "$@" llama-70b-pretrain-worker-336 llama-70b-pretrain-worker-336
  "$@" llama-70b-pretrain-worker-337 llama-70b-pretrain-worker-337
  "$@" llama-70b-pretrain-worker-338 llama-70b-pretrain-worker-338
  "$@" llama-70b-pretrain-worker-339 llama-70b-pretrain-worker-339
  "$@" llama-70b-pretrain-worker-340 llama-70b-pretrain-worker-340
  "$@" llama-70b-pretrain-worker-341 llama-70b-pretrain-worker-341
  "$@" llama-70b-pretrain-worker-342 llama-70b-pretrain-worker-342
  "$@" llama-70b-pretrain-worker-343 llama-70b-pretrain-worker-343
  "$@" llama-70b-pretrain-worker-344 llama-70b-pretrain-worker-344
  "$@" llama-70b-pretrain-worker-345 llama-70b-pretrain-worker-345
  "$@" llama-70b-pretrain-worker-346 llama-70b-pretrain-worker-346
  "$@" llama-70b-pretrain-worker-347 llama-70b-pretrain-worker-347
  "$@" llama-70b-pretrain-worker-348 llama-70b-pretrain-worker-348
  "$@" llama-70b-pretrain-worker-349 llama-70b-pretrain-worker-349
  "$@" llama-70b-pretrain-worker-350 llama-70b-pretrain-worker-350
  "$@" llama-70b-pretrain-worker-351 llama-70b-pretrain-worker-351
  "$@" llama-70b-pretrain-worker-352 llama-70b-pretrain-worker-352
  "$@" llama-70b-pretrain-worker-353 llama-70b-pretrain-worker-353
  "$@" llama-70b-pretrain-worker-354 llama-70b-pretrain-worker-354
  "$@" llama-70b-pretrain-worker-355 llama-70b-pretrain-worker-355
  "$@" llama-70b-pretrain-worker-356 llama-70b-pretrain-worker-356
  "$@" llama-70b-pretrain-worker-357 llama-70b-pretrain-worker-357
  "$@" llama-70b-pretrain-worker-358 llama-70b-pretrain-worker-358
  "$@" llama-70b-pretrain-worker-359 llama-70b-pretrain-worker-359
  "$@" llama-70b-pretrain-worker-360 llama-70b-pretrain-worker-360
  "$@" llama-70b-pretrain-worker-361 llama-70b-pretrain-worker-361
  "$@" llama-70b-pretrain-worker-362 llama-70b-pretrain-worker-362
  "$@" llama-70b-pretrain-worker-363 llama-70b-pretrain-worker-363
  "$@" llama-70b-pretrain-worker-364 llama-70b-pretrain-worker-364
  "$@" llama-70b-pretrain-worker-365 llama-70b-pretrain-worker-365
  "$@" llama-70b-pretrain-worker-366 llama-70b-pretrain-worker-366
  "$@" llama-70b-pretrain-worker-367 llama-70b-pretrain-worker-367
  "$@" llama-70b-pretrain-worker-368 llama-70b-pretrain-worker-368
  "$@" llama-70b-pretrain-worker-369 llama-70b-pretrain-worker-369
  "$@" llama-70b-pretrain-worker-370 llama-70b-pretrain-worker-370
  "$@" llama-70b-pretrain-worker-371 llama-70b-pretrain-worker-371
  "$@" llama-70b-pretrain-worker-372 llama-70b-pretrain-worker-372
  "$@" llama-70b-pretrain-worker-373 llama-70b-pretrain-worker-373
  "$@" llama-70b-pretrain-worker-374 llama-70b-pretrain-worker-374
  "$@" llama-70b-pretrain-worker-375 llama-70b-pretrain-worker-375
  "$@" llama-70b-pretrain-worker-376 llama-70b-pretrain-worker-376
  "$@" llama-70b-pretrain-worker-377 llama-70b-pretrain-worker-377
  "$@" llama-70b-pretrain-worker-378 llama-70b-pretrain-worker-378
  "$@" llama-70b-pretrain-worker-379 llama-70b-pretrain-worker-379
  "$@" llama-70b-pretrain-worker-380 llama-70b-pretrain-worker-380
  "$@" llama-70b-pretrain-worker-381 llama-70b-pretrain-worker-381
  "$@" llama-70b-pretrain-worker-382 llama-70b-pretrain-worker-382
  "$@" llama-70b-pretrain-worker-383 llama-70b-pretrain-worker-383
  "$@" llama-70b-pretrain-worker-384 llama-70b-pretrain-worker-384
  "$@" llama-70b-pretrain-worker-385 llama-70b-pretrain-worker-385
  "$@" llama-70b-pretrain-worker-386 llama-70b-pretrain-worker-386
  "$@" llama-70b-pretrain-worker-387 llama-70b-pretrain-worker-387
  "$@" llama-70b-pretrain-worker-388 llama-70b-pretrain-worker-388
  "$@" llama-70b-pretrain-worker-389 llama-70b-pretrain-worker-389
  "$@" llama-70b-pretrain-worker-390 llama-70b-pretrain-worker-390
  "$@" llama-70b-pretrain-worker-391 llama-70b-pretrain-worker-391
  "$@" llama-70b-pretrain-worker-392 llama-70b-pretrain-worker-392
  "$@" llama-70b-pretrain-worker-393 llama-70b-pretrain-worker-393
  "$@" llama-70b-pretrain-worker-394 llama-70b-pretrain-worker-394
  "$@" llama-70b-pretrain-worker-395 llama-70b-pretrain-worker-395
  "$@" llama-70b-pretrain-worker-396 llama-70b-pretrain-worker-396
  "$@" llama-70b-pretrain-worker-397 llama-70b-pretrain-worker-397
  "$@" llama-70b-pretrain-worker-398 llama-70b-pretrain-worker-398
  "$@" llama-70b-pretrain-worker-399 llama-70b-pretrain-worker-399
  "$@" llama-70b-pretrain-worker-400 llama-70b-pretrain-worker-400
  "$@" llama-70b-pretrain-worker-401 llama-70b-pretrain-worker-401
  "$@" llama-70b-pretrain-worker-402 llama-70b-pretrain-worker-402
  "$@" llama-70b-pretrain-worker-403 llama-70b-pretrain-worker-403
  "$@" llama-70b-pretrain-worker-404 llama-70b-pretrain-worker-404
  "$@" llama-70b-pretrain-worker-405 llama-70b-pretrain-worker-405
  "$@" llama-70b-pretrain-worker-406 llama-70b-pretrain-worker-406
  "$@" llama-70b-pretrain-worker-407 llama-70b-pretrain-worker-407
  "$@" llama-70b-pretrain-worker-408 llama-70b-pretrain-worker-408
  "$@" llama-70b-pretrain-worker-409 llama-70b-pretrain-worker-409
  "$@" llama-70b-pretrain-worker-410 llama-70b-pretrain-worker-410
  "$@" llama-70b-pretrain-worker-411 llama-70b-pretrain-worker-411
  "$@" llama-70b-pretrain-worker-412 llama-70b-pretrain-worker-412
  "$@" llama-70b-pretrain-worker-413 llama-70b-pretrain-worker-413
  "$@" llama-70b-pretrain-worker-414 llama-70b-pretrain-worker-414
  "$@" llama-70b-pretrain-worker-415 llama-70b-pretrain-worker-415
  "$@" llama-70b-pretrain-worker-416 llama-70b-pretrain-worker-416
  "$@" llama-70b-pretrain-worker-417 llama-70b-pretrain-worker-417
  "$@" llama-70b-pretrain-worker-418 llama-70b-pretrain-worker-418
  "$@" llama-70b-pretrain-worker-419 llama-70b-pretrain-worker-419
  "$@" llama-70b-pretrain-worker-420 llama-70b-pretrain-worker-420
  "$@" llama-70b-pretrain-worker-421 llama-70b-pretrain-worker-421
  "$@" llama-70b-pretrain-worker-422 llama-70b-pretrain-worker-422
  "$@" llama-70b-pretrain-worker-423 llama-70b-pretrain-worker-423
  "$@" llama-70b-pretrain-worker-424 llama-70b-pretrain-worker-424
  "$@" llama-70b-pretrain-worker-425 llama-70b-pretrain-worker-425
  "$@" llama-70b-pretrain-worker-426 llama-70b-pretrain-worker-426
  "$@" llama-70b-pretrain-worker-427 llama-70b-pretrain-worker-427
  "$@" llama-70b-pretrain-worker-428 llama-70b-pretrain-worker-428
  "$@" llama-70b-pretrain-worker-429 llama-70b-pretrain-worker-429
  "$@" llama-70b-pretrain-worker-430 llama-70b-pretrain-worker-430
  "$@" llama-70b-pretrain-worker-431 llama-70b-pretrain-worker-431
  "$@" llama-70b-pretrain-worker-432 llama-70b-pretrain-worker-432
  "$@" llama-70b-pretrain-worker-433 llama-70b-pretrain-worker-433
  "$@" llama-70b-pretrain-worker-434 llama-70b-pretrain-worker-434
  "$@" llama-70b-pretrain-worker-435 llama-70b-pretrain-worker-435
  "$@" llama-70b-pretrain-worker-436 llama-70b-pretrain-worker-436
  "$@" llama-70b-pretrain-worker-437 llama-70b-pretrain-worker-437
  "$@" llama-70b-pretrain-worker-438 llama-70b-pretrain-worker-438
  "$@" llama-70b-pretrain-worker-439 llama-70b-pretrain-worker-439
  "$@" llama-70b-pretrain-worker-440 llama-70b-pretrain-worker-440
  "$@" llama-70b-pretrain-worker-441 llama-70b-pretrain-worker-441
  "$@" llama-70b-pretrain-worker-442 llama-70b-pretrain-worker-442
  "$@" llama-70b-pretrain-worker-443 llama-70b-pretrain-worker-443
  "$@" llama-70b-pretrain-worker-444 llama-70b-pretrain-worker-444
  "$@" llama-70b-pretrain-worker-445 llama-70b-pretrain-worker-445
  "$@" llama-70b-pretrain-worker-446 llama-70b-pretrain-worker-446
  "$@" llama-70b-pretrain-worker-447 llama-70b-pretrain-worker-447
  "$@" llama-70b-pretrain-worker-448 llama-70b-pretrain-worker-448
  "$@" llama-70b-pretrain-worker-449 llama-70b-pretrain-worker-449
  "$@" llama-70b-pretrain-worker-450 llama-70b-pretrain-worker-450
  "$@" llama-70b-pretrain-worker-451 llama-70b-pretrain-worker-451
  "$@" llama-70b-pretrain-worker-452 llama-70b-pretrain-worker-452
  "$@" llama-70b-pretrain-worker-453 llama-70b-pretrain-worker-453
  "$@" llama-70b-pretrain-worker-454 llama-70b-pretrain-worker-454
  "$@" llama-70b-pretrain-worker-455 llama-70b-pretrain-worker-455
  "$@" llama-70b-pretrain-worker-456 llama-70b-pretrain-worker-456
  "$@" llama-70b-pretrain-worker-457 llama-70b-pretrain-worker-457
  "$@" llama-70b-pretrain-worker-458 llama-70b-pretrain-worker-458
  "$@" llama-70b-pretrain-worker-459 llama-70b-pretrain-worker-459
  "$@" llama-70b-pretrain-worker-460 llama-70b-pretrain-worker-460
  "$@" llama-70b-pretrain-worker-461 llama-70b-pretrain-worker-461
  "$@" llama-70b-pretrain-worker-462 llama-70b-pretrain-worker-462
  "$@" llama-70b-pretrain-worker-463 llama-70b-pretrain-worker-463
  "$@" llama-70b-pretrain-worker-464 llama-70b-pretrain-worker-464
  "$@" llama-70b-pretrain-worker-465 llama-70b-pretrain-worker-465
  "$@" llama-70b-pretrain-worker-466 llama-70b-pretrain-worker-466
  "$@" llama-70b-pretrain-worker-467 llama-70b-pretrain-worker-467
  "$@" llama-70b-pretrain-worker-468 llama-70b-pretrain-worker-468
  "$@" llama-70b-pretrain-worker-469 llama-70b-pretrain-worker-469
  "$@" llama-70b-pretrain-worker-470 llama-70b-pretrain-worker-470
  "$@" llama-70b-pretrain-worker-471 llama-70b-pretrain-worker-471
  "$@" llama-70b-pretrain-worker-472 llama-70b-pretrain-worker-472
  "$@" llama-70b-pretrain-worker-473 llama-70b-pretrain-worker-473
  "$@" llama-70b-pretrain-worker-474 llama-70b-pretrain-worker-474
  "$@" llama-70b-pretrain-worker-475 llama-70b-pretrain-worker-475
  "$@" llama-70b-pretrain-worker-476 llama-70b-pretrain-worker-476
  "$@" llama-70b-pretrain-worker-477 llama-70b-pretrain-worker-477
  "$@" llama-70b-pretrain-worker-478 llama-70b-pretrain-worker-478
  "$@" llama-70b-pretrain-worker-479 llama-70b-pretrain-worker-479
  "$@" llama-70b-pretrain-worker-480 llama-70b-pretrain-worker-480
  "$@" llama-70b-pretrain-worker-481 llama-70b-pretrain-worker-481
  "$@" llama-70b-pretrain-worker-482 llama-70b-pretrain-worker-482
  "$@" llama-70b-pretrain-worker-483 llama-70b-pretrain-worker-483
  "$@" llama-70b-pretrain-worker-484 llama-70b-pretrain-worker-484
  "$@" llama-70b-pretrain-worker-485 llama-70b-pretrain-worker-485
  "$@" llama-70b-pretrain-worker-486 llama-70b-pretrain-worker-486
  "$@" llama-70b-pretrain-worker-487 llama-70b-pretrain-worker-487
  "$@" llama-70b-pretrain-worker-488 llama-70b-pretrain-worker-488
  "$@" llama-70b-pretrain-worker-489 llama-70b-pretrain-worker-489
  "$@" llama-70b-pretrain-worker-490 llama-70b-pretrain-worker-490
  "$@" llama-70b-pretrain-worker-491 llama-70b-pretrain-worker-491
  "$@" llama-70b-pretrain-worker-492 llama-70b-pretrain-worker-492
  "$@" llama-70b-pretrain-worker-493 llama-70b-pretrain-worker-493
  "$@" llama-70b-pretrain-worker-494 llama-70b-pretrain-worker-494
  "$@" llama-70b-pretrain-worker-495 llama-70b-pretrain-worker-495
  "$@" llama-70b-pretrain-worker-496 llama-70b-pretrain-worker-496
  "$@" llama-70b-pretrain-worker-497 llama-70b-pretrain-worker-497
  "$@" llama-70b-pretrain-worker-498 llama-70b-pretrain-worker-498
  "$@" llama-70b-pretrain-worker-499 llama-70b-pretrain-worker-499
  "$@" llama-70b-pretrain-worker-500 llama-70b-pretrain-worker-500
  "$@" llama-70b-pretrain-worker-501 llama-70b-pretrain-worker-501
  "$@" llama-70b-pretrain-worker-502 llama-70b-pretrain-worker-502
  "$@" llama-70b-pretrain-worker-503 llama-70b-pretrain-worker-503
  "$@" llama-70b-pretrain-worker-504 llama-70b-pretrain-worker-504
  "$@" llama-70b-pretrain-worker-505 llama-70b-pretrain-worker-505
  "$@" llama-70b-pretrain-worker-506 llama-70b-pretrain-worker-506
  "$@" llama-70b-pretrain-worker-507 llama-70b-pretrain-worker-507
  "$@" llama-70b-pretrain-worker-508 llama-70b-pretrain-worker-508
  "$@" llama-70b-pretrain-worker-509 llama-70b-pretrain-worker-509
  "$@" llama-70b-pretrain-worker-510 llama-70b-pretrain-worker-510
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
