#include "launcher/commands/drill_burn_command.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>

#include "launcher/checks/burn_kernel_image.h"
#include "launcher/checks/check_options.h"
#include "launcher/checks/cublaslt.h"
#include "launcher/checks/cuda_driver.h"
#include "launcher/checks/gpu_burner.h"
#include "launcher/supervisor/gpu_load.h"
#include "libpai/drill_fault.h"
#include "libpai/whole_number.h"
#include "libpai/write_all.h"

namespace pai::launcher {
namespace {

using Clock = std::chrono::steady_clock;

// The first GEMMs, after which the burn says it burns: the driver, the GPU, its memory and
// the kernels all work.
constexpr double kFirstSeconds = 0.2;
// The burn runs in rounds of this many seconds, each allocating and releasing its matrices,
// so that what it keeps of its GEMMs stays small however long the fault.
constexpr double kRoundSeconds = 30;

int failed(const std::string& text) {
  write_all(2, "pai-launch drill-burn: " + text + "\n");
  return 1;
}

}  // namespace

int drill_burn_command(const std::vector<std::string>& args) {
  const bool sized = args.size() == 2 || args.size() == 3;
  const auto gpu = sized ? parse_whole_number(args[0], 0, 1023) : std::nullopt;
  const auto seconds = sized ? parse_whole_number(args[1], 1, kMaxFaultSeconds + 60) : std::nullopt;
  if (!gpu || !seconds) {
    write_all(2,
              "pai-launch drill-burn: usage: pai-launch drill-burn GPU SECONDS [LIBCUDA] (started "
              "by a drill's slow-gpu, not by hand)\n");
    return 2;
  }
  const auto until = Clock::now() + std::chrono::seconds(*seconds);
  if (checks::kBurnKernelImageSize == 0) return failed("built without GPU kernels");
  checks::CheckResult::Status status;
  std::string reason;
  const auto driver =
      checks::CudaDriver::open(args.size() == 3 ? args[2] : "libcuda.so.1", &status, &reason);
  if (!driver) return failed(reason);
  int count = 0;
  if (const checks::cuda::Result r = driver->api().cuDeviceGetCount(&count);
      r != checks::cuda::kSuccess) {
    return failed("cuDeviceGetCount failed: " + driver->describe(r));
  }
  if (*gpu >= count) {
    return failed("no GPU " + std::to_string(*gpu) + " on this node (" + std::to_string(count) +
                  " GPUs)");
  }
  std::string lt_reason;
  const auto lt = checks::CublasLt::open(checks::BurnOptions{}.cublaslt_libraries, &lt_reason);
  const int index = static_cast<int>(*gpu);
  checks::GpuBurn first = checks::burn_gpu(*driver, index, {kFirstSeconds, lt.get(), true});
  if (!first.error.empty()) return failed("GPU " + std::to_string(index) + ": " + first.error);
  write_all(1, std::string(kGpuBurningLine) + std::to_string(index) + " (" + first.name + ") for " +
                   std::to_string(*seconds) + " s\n");
  for (;;) {
    const double left = std::chrono::duration<double>(until - Clock::now()).count();
    if (left <= 0) return 0;
    const checks::GpuBurn round =
        checks::burn_gpu(*driver, index, {std::min(left, kRoundSeconds), lt.get(), true});
    if (!round.error.empty()) return failed("GPU " + std::to_string(index) + ": " + round.error);
  }
}

}  // namespace pai::launcher
