#!/usr/bin/env bash
# Builds the libFuzzer harnesses with clang into build-fuzz/ and runs each for a while.
#   bash fuzz/run.sh [--seconds N]   (default 60 per harness; CI runs a short one)
# Exits non-zero when a harness finds a crash, a leak or a timeout (saved as crash-*/
# timeout-*/oom-* in the current folder).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=60
if [[ ${1:-} == --seconds ]]; then seconds=$2; fi
build=${FUZZ_BUILD_DIR:-$root/build-fuzz}
# -O1 with line tables only: what libFuzzer's documentation builds with; a crash still names
# file and line, and the build takes a fraction of -O2 -g's time.
CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DPAI_FUZZ=ON -DPAI_TESTS=OFF \
  -DPAI_GPU_KERNELS=OFF -DPAI_BENCH=OFF -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" -DCMAKE_C_FLAGS_DEBUG="-O1 -g1" >/dev/null
ninja -C "$build" -j"${JOBS:-2}" spec_fuzz plan_fuzz frame_fuzz rank_input_fuzz metrics_http_fuzz \
  store_fuzz takeover_state_fuzz
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/spec" "$work/plan" "$work/frame" "$work/rank_input" "$work/metrics_http" \
  "$work/store" "$work/takeover_state"
# run_fuzzer NAME ARGS...: runs one harness, shows its statistics, fails on a finding.
run_fuzzer() {
  local name=$1; shift
  echo "fuzz: $name for ${seconds}s"
  local rc=0
  "$build/fuzz/$name" -max_total_time="$seconds" -timeout=5 -print_final_stats=1 "$@" \
    >"$work/$name.log" 2>&1 || rc=$?
  grep -E '^stat::number_of_executed_units|^Done' "$work/$name.log" || true
  if ((rc != 0)); then
    tail -n 60 "$work/$name.log"
    echo "fuzz: $name found a problem (exit $rc)" >&2
    exit 1
  fi
}
run_fuzzer spec_fuzz -max_len=4096 -dict="$root/fuzz/spec.dict" "$work/spec" \
  "$root/fuzz/corpus/spec" "$root/examples"
run_fuzzer plan_fuzz -max_len=16384 "$work/plan" "$root/fuzz/corpus/plan"
run_fuzzer frame_fuzz -max_len=8192 "$work/frame" "$root/fuzz/corpus/frame"
run_fuzzer rank_input_fuzz -max_len=8192 "$work/rank_input" "$root/fuzz/corpus/rank_input"
run_fuzzer metrics_http_fuzz -max_len=8192 "$work/metrics_http" "$root/fuzz/corpus/metrics_http"
run_fuzzer store_fuzz -max_len=8192 "$work/store" "$root/fuzz/corpus/store"
run_fuzzer takeover_state_fuzz -max_len=4096 "$work/takeover_state" \
  "$root/fuzz/corpus/takeover_state"
