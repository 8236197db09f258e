#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, runs the whole test suite.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/deps.sh"
bash "$root/scripts/build.sh"
build=${BUILD_DIR:-$root/build}
ctest --test-dir "$build" --output-on-failure -j"${JOBS:-2}"
