#!/usr/bin/env bash
# Configures and builds pai into BUILD_DIR (default build/). Extra args go to cmake;
# TARGETS="pai-compile pai-launch" builds only those (default: everything, tests included).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
jobs=${JOBS:-2}
cmake -S "$root" -B "$build" -G Ninja -DPAI_WERROR=ON "$@" >/dev/null
# shellcheck disable=SC2086 # TARGETS is a list of names
ninja -C "$build" -j"$jobs" ${TARGETS:-}
