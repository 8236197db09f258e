#!/bin/sh
# The single-node nccl check's bus bandwidth against an all_reduce_perf-style measurement
# (issue 16, target ratio >= 0.95). On a node with two or more NVIDIA GPUs:
#   1. `pai-launch check --only nccl --json` on a one-node plan using every GPU: a float32 sum
#      all-reduce of NCCL_BYTES per GPU (default 256 MiB, the check's default), verified, one
#      warm-up and 5 timed;
#   2. a small program compiled here with nvcc and NCCL does what nccl-tests' all_reduce_perf
#      does for one size: one process, ncclCommInitAll over every GPU, out-of-place float32 sum,
#      5 warm-ups, ITERS timed (default 20) between stream synchronisations;
#   3. prints both bus bandwidths (algbw x 2(n-1)/n, as nccl-tests) and the ratio check/direct.
# With fewer than two GPUs there is no all-reduce to measure: it says so and exits 0.
#   PAI_BUILD, NVCC  see bench/gpu_lib.sh
#   NCCL_HOME     folder with include/nccl.h and lib/libnccl.so (default: the CUDA toolkit's
#                 folder, else /usr)
#   NCCL_BYTES    bytes per GPU (default 268435456)
#   ITERS         timed all-reduces of the direct run (default 20)
NCCL_BYTES=${NCCL_BYTES:-268435456}
ITERS=${ITERS:-20}
. "$(dirname -- "$0")/gpu_lib.sh"
if [ "$GPUS" -lt 2 ]; then
  echo "one GPU: a single-node all-reduce needs two or more, nothing to measure"
  exit 0
fi
if [ -z "${NCCL_HOME:-}" ]; then
  NCCL_HOME=$(dirname "$(dirname "$NVCC")")
  [ -f "$NCCL_HOME/include/nccl.h" ] || NCCL_HOME=/usr
fi

cat > "$WORK/direct.cu" <<'CU'
#include <nccl.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
#define CUDA(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); std::exit(1); } } while (0)
#define NCCL(x) do { ncclResult_t r = (x); if (r != ncclSuccess) { std::fprintf(stderr, "%s: %s\n", #x, ncclGetErrorString(r)); std::exit(1); } } while (0)
int main(int argc, char** argv) {
  size_t bytes = std::strtoull(argv[1], nullptr, 10) / 4 * 4, count = bytes / 4;
  int iters = std::atoi(argv[2]), n = 0;
  CUDA(cudaGetDeviceCount(&n));
  std::vector<ncclComm_t> comms(n);
  NCCL(ncclCommInitAll(comms.data(), n, nullptr));
  std::vector<float*> send(n), receive(n);
  std::vector<cudaStream_t> streams(n);
  for (int g = 0; g < n; ++g) {
    CUDA(cudaSetDevice(g));
    CUDA(cudaMalloc(&send[g], bytes)); CUDA(cudaMalloc(&receive[g], bytes));
    CUDA(cudaMemset(send[g], 0, bytes));
    CUDA(cudaStreamCreate(&streams[g]));
  }
  auto all_reduce = [&](int times) {
    for (int i = 0; i < times; ++i) {
      NCCL(ncclGroupStart());
      for (int g = 0; g < n; ++g)
        NCCL(ncclAllReduce(send[g], receive[g], count, ncclFloat, ncclSum, comms[g], streams[g]));
      NCCL(ncclGroupEnd());
    }
    for (int g = 0; g < n; ++g) { CUDA(cudaSetDevice(g)); CUDA(cudaStreamSynchronize(streams[g])); }
  };
  all_reduce(5);
  auto start = std::chrono::steady_clock::now();
  all_reduce(iters);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / iters;
  double algbw = bytes / seconds / 1e9;
  std::printf("%d %.3f %.3f\n", n, algbw, algbw * 2.0 * (n - 1) / n);
  for (int g = 0; g < n; ++g) ncclCommDestroy(comms[g]);
}
CU
"$NVCC" -O2 -I "$NCCL_HOME/include" -L "$NCCL_HOME/lib64" -L "$NCCL_HOME/lib" \
  -o "$WORK/direct" "$WORK/direct.cu" -lnccl

gpu_check_plan nccl "  nccl: {size: $NCCL_BYTES}" nccl-bench
status=0
"$PAI_LAUNCH" check --plan "$WORK/nccl-bench/plan.json" --node localhost --only nccl --json \
  > "$WORK/nccl.json" || status=$?
LD_LIBRARY_PATH="$NCCL_HOME/lib64:$NCCL_HOME/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
  "$WORK/direct" "$NCCL_BYTES" "$ITERS" > "$WORK/direct.txt"

/usr/bin/python3 - "$WORK/nccl.json" "$WORK/direct.txt" "$status" <<'PY'
import json, re, sys
check = json.load(open(sys.argv[1]))["results"][0]
print(f"nccl check: {check['status']} (exit {sys.argv[3]}): {check['summary']}")
gpus, algbw, busbw = open(sys.argv[2]).read().split()
print(f"direct all_reduce_perf-style: {gpus} GPUs, algbw {float(algbw):.1f} GB/s, "
      f"busbw {float(busbw):.1f} GB/s")
found = re.search(r"busbw ([0-9.]+) GB/s", check["summary"] + " " + check.get("detail", ""))
if not found:
    sys.exit("the nccl check reported no bus bandwidth")
ratio = float(found.group(1)) / float(busbw)
verdict = "ok" if ratio >= 0.95 else "BELOW TARGET"
print(f"busbw: check {float(found.group(1)):.1f} GB/s, direct {float(busbw):.1f} GB/s: "
      f"ratio {ratio:.3f} (target >= 0.95: {verdict})")
PY
