#!/bin/sh
# The burn check's throughput against a direct cuBLASLt GEMM of the same shape (design §10: the
# burn within 5% of cuBLASLt, target ratio >= 0.95; issue 16). On a node with an NVIDIA GPU:
#   1. `pai-launch check --only burn --json` on a one-node plan (all GPUs, BURN_SECONDS, default
#      30) gives the median BF16 and FP8 TFLOPS per GPU;
#   2. a small cuBLASLt program compiled here with nvcc runs the burn's GEMM (8192^3, A^T x B,
#      BF16 or FP8 E4M3 in, BF16 out, FP32 accumulation, cuBLASLt's first heuristic, the burn's
#      own inputs) back to back on each GPU in turn, timed with CUDA events;
#   3. prints both and the ratio burn/direct per precision.
# Without a GPU it says "no GPU" and exits 0.
#   PAI_BUILD, NVCC  see bench/gpu_lib.sh
#   BURN_SECONDS  the burn's duration (default 30)
#   GEMMS         timed GEMMs per GPU and precision of the direct run (default 2000: seconds,
#                 like each phase of the burn, so that both reach the same clocks)
BURN_SECONDS=${BURN_SECONDS:-30}
GEMMS=${GEMMS:-2000}
. "$(dirname -- "$0")/gpu_lib.sh"

# The direct cuBLASLt GEMM: the same shape, layout, types and algorithm choice as the burn.
cat > "$WORK/direct.cu" <<'CU'
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cstdio>
#include <cstdlib>
#define CHECK(x) do { auto s = (x); if (s != 0) { std::fprintf(stderr, "%s failed: %d\n", #x, (int)s); std::exit(1); } } while (0)
// The burn's own fill kernels and seeds (gpu_burner.cpp): under a power cap the clocks depend on
// the data, so both sides multiply the same numbers.
#include "burn_kernel.cu"
const unsigned kSeedA = 0x5eed0001, kSeedB = 0x5eed0002;
static double run(int gpu, bool fp8, int gemms) {
  const int n = 8192;
  CHECK(cudaSetDevice(gpu));
  size_t in = (size_t)n * n * (fp8 ? 1 : 2), out = (size_t)n * n * 2, ws = 32u << 20;
  void *a, *b, *d, *w;
  CHECK(cudaMalloc(&a, in)); CHECK(cudaMalloc(&b, in)); CHECK(cudaMalloc(&d, out)); CHECK(cudaMalloc(&w, ws));
  unsigned long long count = (unsigned long long)n * n;
  if (fp8) {
    pai_burn_fill_fp8<<<1024, 256>>>((__nv_fp8_e4m3*)a, count, kSeedA);
    pai_burn_fill_fp8<<<1024, 256>>>((__nv_fp8_e4m3*)b, count, kSeedB);
  } else {
    pai_burn_fill_bf16<<<1024, 256>>>((__nv_bfloat16*)a, count, kSeedA);
    pai_burn_fill_bf16<<<1024, 256>>>((__nv_bfloat16*)b, count, kSeedB);
  }
  cublasLtHandle_t h; CHECK(cublasLtCreate(&h));
  cublasLtMatmulDesc_t op; CHECK(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  cublasOperation_t t = CUBLAS_OP_T, nn = CUBLAS_OP_N;
  CHECK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t));
  CHECK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &nn, sizeof nn));
  cudaDataType_t type = fp8 ? CUDA_R_8F_E4M3 : CUDA_R_16BF;
  cublasLtMatrixLayout_t la, lb, ld;
  CHECK(cublasLtMatrixLayoutCreate(&la, type, n, n, n)); CHECK(cublasLtMatrixLayoutCreate(&lb, type, n, n, n));
  CHECK(cublasLtMatrixLayoutCreate(&ld, CUDA_R_16BF, n, n, n));
  cublasLtMatmulPreference_t pref; CHECK(cublasLtMatmulPreferenceCreate(&pref));
  uint64_t wsb = ws;
  CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsb, sizeof wsb));
  cublasLtMatmulHeuristicResult_t best; int found = 0;
  CHECK(cublasLtMatmulAlgoGetHeuristic(h, op, la, lb, ld, ld, pref, 1, &best, &found));
  if (found < 1) { std::fprintf(stderr, "no algorithm\n"); std::exit(1); }
  float alpha = 1, beta = 0;
  cudaEvent_t start, stop; CHECK(cudaEventCreate(&start)); CHECK(cudaEventCreate(&stop));
  for (int i = 0; i < 20; ++i)
    CHECK(cublasLtMatmul(h, op, &alpha, a, la, b, lb, &beta, d, ld, d, ld, &best.algo, w, ws, 0));
  CHECK(cudaEventRecord(start));
  for (int i = 0; i < gemms; ++i)
    CHECK(cublasLtMatmul(h, op, &alpha, a, la, b, lb, &beta, d, ld, d, ld, &best.algo, w, ws, 0));
  CHECK(cudaEventRecord(stop)); CHECK(cudaEventSynchronize(stop));
  float ms = 0; CHECK(cudaEventElapsedTime(&ms, start, stop));
  cublasLtMatmulPreferenceDestroy(pref); cublasLtMatrixLayoutDestroy(la); cublasLtMatrixLayoutDestroy(lb);
  cublasLtMatrixLayoutDestroy(ld); cublasLtMatmulDescDestroy(op); cublasLtDestroy(h);
  cudaFree(a); cudaFree(b); cudaFree(d); cudaFree(w);
  return 2.0 * n * n * (double)n * gemms / (ms / 1e3) / 1e12;
}
int main(int argc, char** argv) {
  int gemms = argc > 1 ? std::atoi(argv[1]) : 2000, count = 0;
  CHECK(cudaGetDeviceCount(&count));
  for (int gpu = 0; gpu < count; ++gpu) {
    cudaDeviceProp p; CHECK(cudaGetDeviceProperties(&p, gpu));
    std::printf("%d bf16 %.1f\n", gpu, run(gpu, false, gemms));
    if (p.major * 10 + p.minor >= 89) std::printf("%d fp8 %.1f\n", gpu, run(gpu, true, gemms));
  }
}
CU
"$NVCC" -O2 -I "$ROOT/launcher/checks" -o "$WORK/direct" "$WORK/direct.cu" -lcublasLt

# The burn, through pai-launch as a node doctor runs it.
gpu_check_plan burn "  burn: {seconds: $BURN_SECONDS}" gpu-burn-bench
status=0
"$PAI_LAUNCH" check --plan "$WORK/gpu-burn-bench/plan.json" --node localhost --only burn --json \
  > "$WORK/burn.json" || status=$?
"$WORK/direct" "$GEMMS" > "$WORK/direct.txt"

/usr/bin/python3 - "$WORK/burn.json" "$WORK/direct.txt" "$status" <<'PY'
import json, re, statistics, sys
doc = json.load(open(sys.argv[1]))
burn = doc["results"][0]
print(f"burn: {burn['status']} (exit {sys.argv[3]}): {burn['summary']}")
direct = {}
for line in open(sys.argv[2]):
    gpu, precision, tflops = line.split()
    direct.setdefault(precision, []).append(float(tflops))
# The per-GPU lines of the detail: "GPU 0 (...) NAME: ... bf16 712.3 TFLOPS (...); fp8 ...".
burned = {}
for precision, tflops in re.findall(r"(bf16|fp8) ([0-9.]+) TFLOPS \(", burn["detail"]):
    burned.setdefault(precision, []).append(float(tflops))
for precision, rates in direct.items():
    d = statistics.median(rates)
    if precision not in burned:
        print(f"{precision}: direct cuBLASLt median {d:.1f} TFLOPS per GPU; the burn reported none")
        continue
    b = statistics.median(burned[precision])
    verdict = "ok" if b / d >= 0.95 else "BELOW TARGET"
    print(f"{precision}: burn median {b:.1f} TFLOPS per GPU, direct cuBLASLt median {d:.1f}: "
          f"ratio {b / d:.3f} (target >= 0.95: {verdict})")
PY
