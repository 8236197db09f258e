// The burn kernels: a deterministic tiled FP16 GEMM on tensor cores (FP32 accumulation), the
// fixed inputs it multiplies (and those of the cuBLASLt BF16 and FP8 GEMMs), and a digest of
// any output. Compiled at build time to a fatbin
// (sm_80, sm_90 and compute_90 PTX) that pai-launch embeds and loads with cuModuleLoadData, so
// the names are extern "C" and the kernels use nothing from the CUDA runtime.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <mma.h>

namespace {

constexpr int kTile = 64;         // block tile: 64x64 outputs
constexpr int kStep = 32;         // K consumed per shared-memory stage
constexpr int kPadA = kStep + 8;  // padding keeps rows 32-byte aligned and spreads banks
constexpr int kPadB = kTile + 8;

__device__ unsigned mix32(unsigned x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

__device__ unsigned long long mix64(unsigned long long x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

}  // namespace

// Fills `count` halves with values in [-1, 1) on a 1/128 grid: exact in FP16, and small enough
// that FP32 sums over any K stay far from overflow.
extern "C" __global__ void pai_burn_fill(__half* data, unsigned long long count, unsigned seed) {
  for (unsigned long long i =
           blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
       i < count; i += static_cast<unsigned long long>(gridDim.x) * blockDim.x) {
    int v = static_cast<int>(mix32(static_cast<unsigned>(i) ^ seed) & 0xff) - 128;
    data[i] = __float2half(static_cast<float>(v) / 128.0f);
  }
}

// Fills `count` BF16 values with the same grid as pai_burn_fill: exact in BF16 (8 significant
// bits), so every GPU multiplies the same numbers.
extern "C" __global__ void pai_burn_fill_bf16(__nv_bfloat16* data, unsigned long long count,
                                              unsigned seed) {
  for (unsigned long long i =
           blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
       i < count; i += static_cast<unsigned long long>(gridDim.x) * blockDim.x) {
    int v = static_cast<int>(mix32(static_cast<unsigned>(i) ^ seed) & 0xff) - 128;
    data[i] = __float2bfloat16(static_cast<float>(v) / 128.0f);
  }
}

// Fills `count` FP8 (E4M3) values with multiples of 1/8 in [-1, 1): exact in E4M3 (4 significant
// bits).
extern "C" __global__ void pai_burn_fill_fp8(__nv_fp8_e4m3* data, unsigned long long count,
                                             unsigned seed) {
  for (unsigned long long i =
           blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
       i < count; i += static_cast<unsigned long long>(gridDim.x) * blockDim.x) {
    int v = static_cast<int>(mix32(static_cast<unsigned>(i) ^ seed) & 0xf) - 8;
    data[i] = __nv_fp8_e4m3(static_cast<float>(v) / 8.0f);
  }
}

// C = A x B for n x n row-major matrices, n a multiple of 64. Grid (n/64, n/64), 128 threads:
// four warps, each computing a 32x32 quarter of the block's tile as 2x2 16x16 fragments. The
// summation order is fixed by the code, so every run on every GPU of one model gives the same bits.
extern "C" __global__ void __launch_bounds__(128)
    pai_burn_gemm(const __half* a, const __half* b, float* c, int n) {
  using namespace nvcuda;
  __shared__ __align__(32) __half tile_a[kTile][kPadA];
  __shared__ __align__(32) __half tile_b[kStep][kPadB];

  const int warp = threadIdx.x / 32;
  const int warp_row = (warp / 2) * 32;
  const int warp_col = (warp % 2) * 32;
  const int block_row = blockIdx.y * kTile;
  const int block_col = blockIdx.x * kTile;

  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

  for (int k0 = 0; k0 < n; k0 += kStep) {
    // 64x32 halves of A and 32x64 of B, 16 bytes (8 halves) per load, two loads per thread each.
    for (int chunk = threadIdx.x; chunk < kTile * kStep / 8; chunk += blockDim.x) {
      int row = chunk / (kStep / 8);
      int col = (chunk % (kStep / 8)) * 8;
      *reinterpret_cast<uint4*>(&tile_a[row][col]) = *reinterpret_cast<const uint4*>(
          &a[static_cast<long long>(block_row + row) * n + k0 + col]);
    }
    for (int chunk = threadIdx.x; chunk < kStep * kTile / 8; chunk += blockDim.x) {
      int row = chunk / (kTile / 8);
      int col = (chunk % (kTile / 8)) * 8;
      *reinterpret_cast<uint4*>(&tile_b[row][col]) = *reinterpret_cast<const uint4*>(
          &b[static_cast<long long>(k0 + row) * n + block_col + col]);
    }
    __syncthreads();
    for (int kk = 0; kk < kStep; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> frag_a[2];
      wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> frag_b[2];
      for (int i = 0; i < 2; ++i)
        wmma::load_matrix_sync(frag_a[i], &tile_a[warp_row + 16 * i][kk], kPadA);
      for (int j = 0; j < 2; ++j)
        wmma::load_matrix_sync(frag_b[j], &tile_b[kk][warp_col + 16 * j], kPadB);
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], frag_a[i], frag_b[j], acc[i][j]);
    }
    __syncthreads();
  }
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      float* out = c + static_cast<long long>(block_row + warp_row + 16 * i) * n + block_col +
                   warp_col + 16 * j;
      wmma::store_matrix_sync(out, acc[i][j], n, wmma::mem_row_major);
    }
}

// Adds a position-dependent mix of every output word into *digest. Integer addition commutes,
// so the digest does not depend on scheduling: equal matrices give equal digests.
extern "C" __global__ void pai_burn_digest(const unsigned* words, unsigned long long count,
                                           unsigned long long* digest) {
  unsigned long long sum = 0;
  for (unsigned long long i =
           blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
       i < count; i += static_cast<unsigned long long>(gridDim.x) * blockDim.x) {
    sum += mix64((i << 32) ^ words[i]);
  }
  atomicAdd(digest, sum);
}
