#!/usr/bin/env bash
# Configures and builds pai into BUILD_DIR (default build/). Extra args go to cmake.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
jobs=${JOBS:-2}
cmake -S "$root" -B "$build" -G Ninja -DPAI_WERROR=ON "$@" >/dev/null
ninja -C "$build" -j"$jobs"
