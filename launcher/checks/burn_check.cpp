#include "launcher/checks/burn_check.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <thread>
#include <vector>

#include "launcher/checks/burn_analysis.h"
#include "launcher/checks/burn_kernel_image.h"
#include "launcher/checks/cublaslt.h"
#include "launcher/checks/cuda_driver.h"
#include "launcher/checks/gpu_health.h"
#include "launcher/checks/health_monitor.h"
#include "launcher/checks/isolated_check.h"
#include "launcher/checks/nvml.h"

namespace pai::checks {
namespace {

// The NVML record of each burned GPU, matched by PCI bus id (CUDA and NVML may number GPUs
// differently), or by index when CUDA gives no bus id.
std::vector<const GpuHealthRecord*> match_records(const std::vector<GpuBurn>& gpus,
                                                  const std::vector<GpuHealthRecord>& records) {
  std::vector<const GpuHealthRecord*> matched(gpus.size(), nullptr);
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    std::string bus = normalize_bus_id(gpus[i].pci_bus_id);
    for (const auto& r : records) {
      bool same = bus.empty() ? r.index == gpus[i].gpu : normalize_bus_id(r.pci_bus_id) == bus;
      if (same) matched[i] = &r;
    }
  }
  return matched;
}

std::string join_first(const std::vector<std::string>& items) {
  std::string text = items.front();
  if (items.size() > 1) text += " (and " + std::to_string(items.size() - 1) + " more)";
  return text;
}

CheckResult burn(const SanityCheck& settings, const CheckOptions& options) {
  const double seconds = static_cast<double>(settings.burn_seconds);
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

  CheckResult result;
  result.name = "burn";
  std::string lt_reason;
  auto lt = CublasLt::open(options.burn.cublaslt_libraries, &lt_reason);
  if (lt) {
    result.detail += "engine: cuBLASLt (" + lt->library() + ", version " +
                     std::to_string(lt->version()) + "), embedded WMMA kernel as cross-check\n";
  } else {
    result.detail += "engine: the embedded WMMA kernel, as fallback: " + lt_reason + "\n";
  }
  result.facts["engine"] = lt ? "cuBLASLt" : "WMMA";

  std::string nvml_reason;
  auto nvml = Nvml::open(options.nvml_library, &nvml_reason);
  std::optional<HealthMonitor> monitor;
  if (nvml) {
    monitor.emplace(*nvml, std::chrono::milliseconds(static_cast<std::int64_t>(
                               options.burn.health_interval_seconds * 1000)));
  } else {
    result.detail += nvml_reason + ": health during the burn not watched\n";
  }

  GpuBurnPlan plan{seconds, lt.get(), settings.burn_fp8};
  std::vector<GpuBurn> gpus(static_cast<std::size_t>(count));
  std::vector<std::thread> threads;
  for (int i = 0; i < count; ++i) {
    threads.emplace_back(
        [&, i] { gpus[static_cast<std::size_t>(i)] = burn_gpu(*driver, i, plan); });
  }
  for (auto& t : threads) t.join();

  std::vector<std::string> fatal, notes;
  if (monitor) {
    std::string watch_notes, error;
    std::vector<GpuHealthRecord> records = monitor->finish(&watch_notes, &error);
    if (!error.empty()) fatal.push_back("NVML: " + error);
    result.detail += watch_notes;
    std::vector<const GpuHealthRecord*> matched = match_records(gpus, records);
    for (std::size_t i = 0; i < gpus.size(); ++i) {
      GpuBurn& g = gpus[i];
      const GpuHealthRecord* record = matched[i];
      if (!record) {
        notes.push_back(gpu_label(g.gpu, g.pci_bus_id, "") + ": not found in NVML: not watched");
        continue;
      }
      g.serial = record->serial;
      if (g.pci_bus_id.empty()) g.pci_bus_id = record->pci_bus_id;
      for (const auto& finding : judge_health(*record, gpu_label(g.gpu, g.pci_bus_id, g.serial)))
        (finding.fatal ? fatal : notes).push_back(finding.text);
    }
  }

  BurnLimits limits{settings.burn_warn_percent / 100, settings.burn_fail_percent / 100,
                    settings.burn_min_tflops, settings.burn_baselines};
  BurnVerdict verdict = analyse_burn(gpus, limits);
  result.figure = verdict.figure;
  result.detail += verdict.detail;
  for (const auto& n : notes) result.detail += n + "\n";
  std::vector<std::string> failures = verdict.failures;
  failures.insert(failures.end(), fatal.begin(), fatal.end());
  for (const auto& w : verdict.warnings) result.detail += "warning: " + w + "\n";
  if (!failures.empty()) {
    result.status = CheckResult::Failed;
    result.summary = join_first(failures);
    for (const auto& f : failures) result.detail += f + "\n";
    return result;
  }
  result.status = CheckResult::Passed;
  result.summary = verdict.summary;
  if (!lt) result.summary += "; no cuBLASLt: burned with the embedded WMMA kernel";
  if (!verdict.warnings.empty()) result.summary += "; warning: " + join_first(verdict.warnings);
  return result;
}

}  // namespace

CheckResult run_burn_check(const Plan& plan, const CheckOptions& options,
                           std::int64_t timeout_seconds) {
  std::int64_t limit = std::max(timeout_seconds, plan.sanity_check.burn_seconds + 30);
  return run_isolated(
      "burn", [&] { return burn(plan.sanity_check, options); }, std::chrono::seconds(limit),
      options.containment);
}

}  // namespace pai::checks
