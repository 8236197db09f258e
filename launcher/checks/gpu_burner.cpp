#include "launcher/checks/gpu_burner.h"

#include <chrono>
#include <functional>

#include "launcher/checks/burn_kernel_image.h"

namespace pai::checks {
namespace {

using Clock = std::chrono::steady_clock;

// Digests are copied back once per batch; a batch is short enough to stop close to the deadline.
constexpr int kBatch = 8;
constexpr unsigned kSeedA = 0x5eed0001;
constexpr unsigned kSeedB = 0x5eed0002;
// What cuBLASLt may use as scratch: NVIDIA's recommendation for Hopper.
constexpr std::size_t kWorkspaceBytes = 32u << 20;

class GpuBurner {
 public:
  GpuBurner(const CudaDriver& driver, int index)
      : driver_(driver), api_(driver.api()), index_(index) {}
  ~GpuBurner() {
    if (!context_) return;
    api_.cuCtxSetCurrent(context_);
    lt_gemm_.reset();
    for (cuda::Event e : events_)
      if (e) api_.cuEventDestroy(e);
    if (stream_) api_.cuStreamDestroy(stream_);
    for (cuda::DevicePtr p : {a_, b_, c_, digests_, workspace_})
      if (p) api_.cuMemFree(p);
    if (module_) api_.cuModuleUnload(module_);
    api_.cuDevicePrimaryCtxRelease(device_);
  }
  GpuBurner(const GpuBurner&) = delete;
  GpuBurner& operator=(const GpuBurner&) = delete;

  GpuBurn run(const GpuBurnPlan& plan) {
    GpuBurn burn;
    burn.gpu = index_;
    burn.engine = plan.lt ? "cuBLASLt" : "WMMA";
    burn.error = prepare(burn, plan);
    if (!burn.error.empty()) return burn;
    if (!plan.lt) {
      burn.error = wmma(burn, plan.seconds, true);
      return burn;
    }
    if ((burn.error = wmma(burn, 0, false)).empty()) {
      bool fp8 = plan.fp8 && capability_ >= kMinFp8Capability;
      double share = fp8 ? plan.seconds / 2 : plan.seconds;
      burn.error = lt(burn, *plan.lt, LtPrecision::Bf16, share);
      if (burn.error.empty() && fp8) burn.error = lt(burn, *plan.lt, LtPrecision::Fp8, share);
    }
    return burn;
  }

 private:
  std::string failed(const char* what, cuda::Result r) {
    return std::string(what) + " failed: " + driver_.describe(r);
  }

  std::string prepare(GpuBurn& burn, const GpuBurnPlan& plan) {
    cuda::Result r;
    char name[256] = {};
    if ((r = api_.cuDeviceGet(&device_, index_)) ||
        (r = api_.cuDeviceGetName(name, sizeof name, device_)))
      return failed("cuDeviceGet", r);
    burn.name = name;
    char bus[32] = {};
    if (api_.cuDeviceGetPCIBusId &&
        api_.cuDeviceGetPCIBusId(bus, sizeof bus, device_) == cuda::kSuccess)
      burn.pci_bus_id = bus;
    int major = 0, minor = 0;
    if ((r = api_.cuDeviceGetAttribute(&major, cuda::kAttrComputeCapabilityMajor, device_)) ||
        (r = api_.cuDeviceGetAttribute(&minor, cuda::kAttrComputeCapabilityMinor, device_)))
      return failed("cuDeviceGetAttribute", r);
    capability_ = major * 10 + minor;
    if ((r = api_.cuDevicePrimaryCtxRetain(&context_, device_))) {
      context_ = nullptr;
      return failed("cuDevicePrimaryCtxRetain", r);
    }
    if ((r = api_.cuCtxSetCurrent(context_))) return failed("cuCtxSetCurrent", r);
    if ((r = api_.cuModuleLoadData(&module_, kBurnKernelImage)))
      return "cannot load the burn kernels (built for sm_80, sm_90 and compute_90 PTX): " +
             driver_.describe(r);
    if ((r = api_.cuModuleGetFunction(&fill_, module_, "pai_burn_fill")) ||
        (r = api_.cuModuleGetFunction(&fill_bf16_, module_, "pai_burn_fill_bf16")) ||
        (r = api_.cuModuleGetFunction(&fill_fp8_, module_, "pai_burn_fill_fp8")) ||
        (r = api_.cuModuleGetFunction(&gemm_, module_, "pai_burn_gemm")) ||
        (r = api_.cuModuleGetFunction(&digest_, module_, "pai_burn_digest")))
      return failed("cuModuleGetFunction", r);
    std::size_t n = kBurnMatrixSize;
    if ((r = api_.cuMemAlloc(&a_, n * n * 2)) || (r = api_.cuMemAlloc(&b_, n * n * 2)) ||
        (r = api_.cuMemAlloc(&c_, n * n * 4)) || (r = api_.cuMemAlloc(&digests_, kBatch * 8)))
      return failed("cuMemAlloc", r);
    if (plan.lt && (r = api_.cuMemAlloc(&workspace_, kWorkspaceBytes)))
      return failed("cuMemAlloc", r);
    if ((r = api_.cuStreamCreate(&stream_, 0))) return failed("cuStreamCreate", r);
    for (cuda::Event& e : events_)
      if ((r = api_.cuEventCreate(&e, 0))) {
        e = nullptr;
        return failed("cuEventCreate", r);
      }
    return "";
  }

  // Fills A and B with `fill` (the same seeds on every GPU, so every GPU multiplies the same
  // numbers).
  std::string fill(cuda::Function kernel, unsigned long long count) {
    unsigned seed_a = kSeedA, seed_b = kSeedB;
    void* fill_a[] = {&a_, &count, &seed_a};
    void* fill_b[] = {&b_, &count, &seed_b};
    cuda::Result r;
    if ((r = api_.cuLaunchKernel(kernel, 1024, 1, 1, 256, 1, 1, 0, stream_, fill_a, nullptr)) ||
        (r = api_.cuLaunchKernel(kernel, 1024, 1, 1, 256, 1, 1, 0, stream_, fill_b, nullptr)))
      return failed("launching the fill kernel", r);
    return "";
  }

  // `gemms` GEMMs, each timed by a pair of events and digested; the digests and (when `timed`)
  // the GPU time are added to `run`.
  std::string batch(GemmRun& run, int gemms, bool timed, unsigned long long words,
                    const std::function<std::string()>& enqueue) {
    cuda::Result r;
    if ((r = api_.cuMemsetD32(digests_, 0, kBatch * 2))) return failed("cuMemsetD32", r);
    for (int j = 0; j < gemms; ++j) {
      cuda::DevicePtr slot = digests_ + static_cast<cuda::DevicePtr>(j) * 8;
      if ((r = api_.cuEventRecord(events_[2 * j], stream_))) return failed("cuEventRecord", r);
      if (std::string error = enqueue(); !error.empty()) return error;
      if ((r = api_.cuEventRecord(events_[2 * j + 1], stream_))) return failed("cuEventRecord", r);
      void* digest_args[] = {&c_, &words, &slot};
      if ((r = api_.cuLaunchKernel(digest_, 1024, 1, 1, 256, 1, 1, 0, stream_, digest_args,
                                   nullptr)))
        return failed("launching the digest kernel", r);
    }
    if ((r = api_.cuStreamSynchronize(stream_)))
      return failed(("the " + run.precision + " GEMM").c_str(), r);
    std::uint64_t host[kBatch] = {};
    if ((r = api_.cuMemcpyDtoH(host, digests_, sizeof host))) return failed("cuMemcpyDtoH", r);
    run.hashes.insert(run.hashes.end(), host, host + gemms);
    if (!timed) return "";
    for (int j = 0; j < gemms; ++j) {
      float ms = 0;
      if ((r = api_.cuEventElapsedTime(&ms, events_[2 * j], events_[2 * j + 1])))
        return failed("cuEventElapsedTime", r);
      run.gpu_seconds += static_cast<double>(ms) / 1000.0;
    }
    run.gemms += static_cast<std::uint64_t>(gemms);
    return "";
  }

  // One untimed warm-up GEMM (module JIT, cuBLASLt's first launch and the clock ramp-up do not
  // count against throughput), then batches until `seconds` have passed.
  std::string timed_loop(GemmRun& run, double seconds, unsigned long long words,
                         const std::function<std::string()>& enqueue) {
    if (std::string error = batch(run, 1, false, words, enqueue); !error.empty()) return error;
    auto end = Clock::now() + std::chrono::duration<double>(seconds);
    do {
      if (std::string error = batch(run, kBatch, true, words, enqueue); !error.empty())
        return error;
    } while (Clock::now() < end);
    return "";
  }

  // The embedded kernel: the whole burn (`timed`), or kCrossCheckGemms GEMMs whose digests
  // only join the corruption vote.
  std::string wmma(GpuBurn& burn, double seconds, bool timed) {
    burn.runs.push_back({});
    GemmRun& run = burn.runs.back();
    run.precision = kWmma;
    run.timed = timed;
    int n = kBurnMatrixSize;
    unsigned long long count = static_cast<unsigned long long>(n) * static_cast<unsigned>(n);
    run.flops_per_gemm = 2.0 * n * static_cast<double>(n) * n;
    if (std::string error = fill(fill_, count); !error.empty()) return error;
    auto enqueue = [&]() -> std::string {
      void* gemm_args[] = {&a_, &b_, &c_, &n};
      unsigned tiles = static_cast<unsigned>(n / 64);
      cuda::Result r =
          api_.cuLaunchKernel(gemm_, tiles, tiles, 1, 128, 1, 1, 0, stream_, gemm_args, nullptr);
      return r ? failed("launching the GEMM kernel", r) : "";
    };
    // The kernel writes FP32: n * n words.
    if (timed) return timed_loop(run, seconds, count, enqueue);
    return batch(run, kCrossCheckGemms, false, count, enqueue);
  }

  std::string lt(GpuBurn& burn, const CublasLt& library, LtPrecision precision, double seconds) {
    burn.runs.push_back({});
    GemmRun& run = burn.runs.back();
    run.precision = to_string(precision);
    int n = kBurnMatrixSize;
    unsigned long long count = static_cast<unsigned long long>(n) * static_cast<unsigned>(n);
    run.flops_per_gemm = 2.0 * n * static_cast<double>(n) * n;
    if (std::string error = fill(precision == LtPrecision::Fp8 ? fill_fp8_ : fill_bf16_, count);
        !error.empty())
      return error;
    std::string error;
    lt_gemm_ = LtGemm::plan(library, precision, n, workspace_, kWorkspaceBytes, &error);
    if (!lt_gemm_) return error;
    auto enqueue = [&]() -> std::string {
      int status = lt_gemm_->run(a_, b_, c_, stream_);
      return status ? std::string("cublasLtMatmul (") + run.precision +
                          ") failed: " + describe_cublas_status(status)
                    : "";
    };
    // The output is BF16: n * n / 2 words.
    return timed_loop(run, seconds, count / 2, enqueue);
  }

  const CudaDriver& driver_;
  const CudaApi& api_;
  int index_;
  int capability_ = 0;
  cuda::Device device_ = 0;
  cuda::Context context_ = nullptr;
  cuda::Module module_ = nullptr;
  cuda::Function fill_ = nullptr, fill_bf16_ = nullptr, fill_fp8_ = nullptr, gemm_ = nullptr,
                 digest_ = nullptr;
  cuda::DevicePtr a_ = 0, b_ = 0, c_ = 0, digests_ = 0, workspace_ = 0;
  cuda::Stream stream_ = nullptr;
  cuda::Event events_[2 * kBatch] = {};
  std::unique_ptr<LtGemm> lt_gemm_;
};

}  // namespace

GpuBurn burn_gpu(const CudaDriver& driver, int index, const GpuBurnPlan& plan) {
  GpuBurner burner(driver, index);
  return burner.run(plan);
}

}  // namespace pai::checks
