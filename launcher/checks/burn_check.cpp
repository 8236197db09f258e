#include "launcher/checks/burn_check.h"

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include "launcher/checks/burn_analysis.h"
#include "launcher/checks/burn_kernel_image.h"
#include "launcher/checks/cuda_driver.h"
#include "launcher/checks/isolated_check.h"

namespace pai::checks {
namespace {

using Clock = std::chrono::steady_clock;

// Digests are copied back once per batch; a batch is short enough to stop close to the deadline.
constexpr int kBatch = 8;
constexpr unsigned kSeedA = 0x5eed0001;
constexpr unsigned kSeedB = 0x5eed0002;

// One GPU's burn: everything it allocated is released on every path out.
class GpuBurner {
 public:
  GpuBurner(const CudaDriver& driver, int index)
      : driver_(driver), api_(driver.api()), index_(index) {}
  ~GpuBurner() {
    if (!context_) return;
    api_.cuCtxSetCurrent(context_);
    if (stream_) api_.cuStreamDestroy(stream_);
    for (cuda::DevicePtr p : {a_, b_, c_, digests_})
      if (p) api_.cuMemFree(p);
    if (module_) api_.cuModuleUnload(module_);
    api_.cuDevicePrimaryCtxRelease(device_);
  }
  GpuBurner(const GpuBurner&) = delete;
  GpuBurner& operator=(const GpuBurner&) = delete;

  GpuBurn run(double seconds) {
    GpuBurn burn;
    burn.gpu = index_;
    std::string error = prepare(burn);
    if (error.empty()) error = loop(burn, seconds);
    burn.error = error;
    return burn;
  }

 private:
  std::string failed(const char* what, cuda::Result r) {
    return std::string(what) + " failed: " + driver_.describe(r);
  }

  std::string prepare(GpuBurn& burn) {
    cuda::Result r;
    char name[256] = {};
    if ((r = api_.cuDeviceGet(&device_, index_)) ||
        (r = api_.cuDeviceGetName(name, sizeof name, device_)))
      return failed("cuDeviceGet", r);
    burn.name = name;
    if ((r = api_.cuDevicePrimaryCtxRetain(&context_, device_))) {
      context_ = nullptr;
      return failed("cuDevicePrimaryCtxRetain", r);
    }
    if ((r = api_.cuCtxSetCurrent(context_))) return failed("cuCtxSetCurrent", r);
    if ((r = api_.cuModuleLoadData(&module_, kBurnKernelImage)))
      return "cannot load the burn kernels (built for sm_80, sm_90 and compute_90 PTX): " +
             driver_.describe(r);
    if ((r = api_.cuModuleGetFunction(&fill_, module_, "pai_burn_fill")) ||
        (r = api_.cuModuleGetFunction(&gemm_, module_, "pai_burn_gemm")) ||
        (r = api_.cuModuleGetFunction(&digest_, module_, "pai_burn_digest")))
      return failed("cuModuleGetFunction", r);
    std::size_t n = kBurnMatrixSize;
    if ((r = api_.cuMemAlloc(&a_, n * n * 2)) || (r = api_.cuMemAlloc(&b_, n * n * 2)) ||
        (r = api_.cuMemAlloc(&c_, n * n * 4)) || (r = api_.cuMemAlloc(&digests_, kBatch * 8)))
      return failed("cuMemAlloc", r);
    if ((r = api_.cuStreamCreate(&stream_, 0))) return failed("cuStreamCreate", r);
    unsigned long long count = n * n;
    unsigned seed_a = kSeedA, seed_b = kSeedB;
    void* fill_a[] = {&a_, &count, &seed_a};
    void* fill_b[] = {&b_, &count, &seed_b};
    if ((r = api_.cuLaunchKernel(fill_, 1024, 1, 1, 256, 1, 1, 0, stream_, fill_a, nullptr)) ||
        (r = api_.cuLaunchKernel(fill_, 1024, 1, 1, 256, 1, 1, 0, stream_, fill_b, nullptr)))
      return failed("launching the fill kernel", r);
    burn.flops_per_gemm =
        2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
    // One untimed GEMM: module JIT and clock ramp-up do not count against throughput.
    return batch(burn, 1);
  }

  std::string batch(GpuBurn& burn, int gemms) {
    cuda::Result r;
    int n = kBurnMatrixSize;
    unsigned long long words =
        static_cast<unsigned long long>(n) * static_cast<unsigned long long>(n);
    if ((r = api_.cuMemsetD32(digests_, 0, kBatch * 2))) return failed("cuMemsetD32", r);
    for (int j = 0; j < gemms; ++j) {
      cuda::DevicePtr slot = digests_ + static_cast<cuda::DevicePtr>(j) * 8;
      void* gemm_args[] = {&a_, &b_, &c_, &n};
      void* digest_args[] = {&c_, &words, &slot};
      unsigned tiles = static_cast<unsigned>(n / 64);
      if ((r = api_.cuLaunchKernel(gemm_, tiles, tiles, 1, 128, 1, 1, 0, stream_, gemm_args,
                                   nullptr)))
        return failed("launching the GEMM kernel", r);
      if ((r = api_.cuLaunchKernel(digest_, 1024, 1, 1, 256, 1, 1, 0, stream_, digest_args,
                                   nullptr)))
        return failed("launching the digest kernel", r);
    }
    if ((r = api_.cuStreamSynchronize(stream_))) return failed("the GEMM", r);
    std::uint64_t host[kBatch] = {};
    if ((r = api_.cuMemcpyDtoH(host, digests_, sizeof host))) return failed("cuMemcpyDtoH", r);
    burn.hashes.insert(burn.hashes.end(), host, host + gemms);
    return "";
  }

  std::string loop(GpuBurn& burn, double seconds) {
    auto start = Clock::now();
    auto end = start + std::chrono::duration<double>(seconds);
    while (Clock::now() < end) {
      std::string error = batch(burn, kBatch);
      if (!error.empty()) return error;
      burn.gemms += kBatch;
    }
    burn.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return "";
  }

  const CudaDriver& driver_;
  const CudaApi& api_;
  int index_;
  cuda::Device device_ = 0;
  cuda::Context context_ = nullptr;
  cuda::Module module_ = nullptr;
  cuda::Function fill_ = nullptr, gemm_ = nullptr, digest_ = nullptr;
  cuda::DevicePtr a_ = 0, b_ = 0, c_ = 0, digests_ = 0;
  cuda::Stream stream_ = nullptr;
};

CheckResult burn(double seconds, double min_tflops, const CheckOptions& options) {
  if (kBurnKernelImageSize == 0)
    return make_result("burn", CheckResult::Skipped, "built without GPU kernels");
  CheckResult::Status status;
  std::string reason;
  auto driver = CudaDriver::open(options.cuda_library, &status, &reason);
  if (!driver) return make_result("burn", status, reason);
  int count = 0;
  cuda::Result r = driver->api().cuDeviceGetCount(&count);
  if (r != cuda::kSuccess)
    return make_result("burn", CheckResult::Failed,
                       "cuDeviceGetCount failed: " + driver->describe(r));
  if (count == 0) return make_result("burn", CheckResult::Skipped, "no GPU on this node");

  std::vector<GpuBurn> gpus(static_cast<std::size_t>(count));
  std::vector<std::thread> threads;
  for (int i = 0; i < count; ++i) {
    threads.emplace_back([&, i] {
      GpuBurner burner(*driver, i);
      gpus[static_cast<std::size_t>(i)] = burner.run(seconds);
    });
  }
  for (auto& t : threads) t.join();

  BurnVerdict verdict = analyse_burn(gpus, min_tflops);
  CheckResult result = make_result(
      "burn", verdict.passed ? CheckResult::Passed : CheckResult::Failed, verdict.summary);
  result.figure = verdict.figure;
  result.detail = verdict.detail;
  return result;
}

}  // namespace

CheckResult run_burn_check(const Plan& plan, const CheckOptions& options,
                           std::int64_t timeout_seconds) {
  double seconds = static_cast<double>(plan.sanity_check.burn_seconds);
  double floor = plan.sanity_check.burn_min_tflops;
  std::int64_t limit = std::max(timeout_seconds, plan.sanity_check.burn_seconds + 30);
  return run_isolated(
      "burn", [&] { return burn(seconds, floor, options); }, std::chrono::seconds(limit));
}

}  // namespace pai::checks
