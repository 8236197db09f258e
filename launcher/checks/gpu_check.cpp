#include "launcher/checks/gpu_check.h"

#include <set>
#include <vector>

#include "launcher/checks/cuda_driver.h"
#include "launcher/checks/gpu_health.h"
#include "launcher/checks/isolated_check.h"
#include "launcher/checks/nvml.h"
#include "libpai/quantity.h"

namespace pai::checks {
namespace {

struct Gpu {
  std::string name;
  std::size_t memory = 0;
  int major = 0;
  int minor = 0;
  bool ecc = false;
};

void add_health_problems(const std::vector<GpuHealth>& health, std::vector<std::string>& problems,
                         std::string& detail) {
  for (const auto& h : health) {
    std::string who = gpu_label(h.index, h.pci_bus_id, h.serial);
    if (h.remap_failed) problems.push_back(who + ": a row remap failed (the GPU needs service)");
    if (h.remap_pending) problems.push_back(who + ": a row remap is pending (reset the GPU)");
    if (h.volatile_uncorrectable_ecc > 0)
      problems.push_back(who + ": " + std::to_string(h.volatile_uncorrectable_ecc) +
                         " uncorrectable ECC errors since the driver loaded");
    if (h.throttle_reasons)
      problems.push_back(who + ": throttled: " + describe_throttle_reasons(h.throttle_reasons));
    // The link generation drops on an idle GPU to save power; the width does not, so only a
    // narrower link than the slot supports points at a fault.
    if (h.pcie_width > 0 && h.pcie_max_width > 0 && h.pcie_width < h.pcie_max_width)
      problems.push_back(who + ": PCIe link x" + std::to_string(h.pcie_width) + ", expected x" +
                         std::to_string(h.pcie_max_width));
    if (h.pcie_generation > 0)
      detail += who + ": PCIe gen" + std::to_string(h.pcie_generation) + " x" +
                std::to_string(h.pcie_width) + "\n";
  }
}

CheckResult inspect(int expected, const CheckOptions& options) {
  CheckResult::Status status;
  std::string reason;
  auto driver = CudaDriver::open(options.cuda_library, &status, &reason);
  if (!driver) return make_result("gpu", status, reason);
  const CudaApi& api = driver->api();

  CheckResult result;
  result.name = "gpu";
  result.facts["cuda"] = cuda_version_text(driver->version());
  int count = 0;
  cuda::Result r = api.cuDeviceGetCount(&count);
  if (r != cuda::kSuccess)
    return make_result("gpu", CheckResult::Failed,
                       "cuDeviceGetCount failed: " + driver->describe(r));
  result.facts["gpu_count"] = std::to_string(count);

  std::vector<std::string> problems;
  if (count < expected)
    problems.push_back("the plan asks for " + std::to_string(expected) + " GPUs, the node has " +
                       std::to_string(count));
  std::vector<Gpu> gpus;
  for (int i = 0; i < count; ++i) {
    Gpu gpu;
    cuda::Device device = 0;
    char name[256] = {};
    if ((r = api.cuDeviceGet(&device, i)) != cuda::kSuccess ||
        (r = api.cuDeviceGetName(name, sizeof name, device)) ||
        (r = api.cuDeviceTotalMem(&gpu.memory, device)) ||
        (r = api.cuDeviceGetAttribute(&gpu.major, cuda::kAttrComputeCapabilityMajor, device)) ||
        (r = api.cuDeviceGetAttribute(&gpu.minor, cuda::kAttrComputeCapabilityMinor, device))) {
      problems.push_back("GPU " + std::to_string(i) +
                         ": cannot be queried: " + driver->describe(r));
      continue;
    }
    int ecc = 0;
    api.cuDeviceGetAttribute(&ecc, cuda::kAttrEccEnabled, device);
    gpu.name = name;
    gpu.ecc = ecc != 0;
    if (!gpu.ecc) problems.push_back("GPU " + std::to_string(i) + ": ECC is disabled");
    result.detail += "GPU " + std::to_string(i) + ": " + gpu.name + ", " +
                     human_bytes(static_cast<std::int64_t>(gpu.memory)) + ", sm_" +
                     std::to_string(gpu.major) + std::to_string(gpu.minor) + ", ECC " +
                     (gpu.ecc ? "on" : "off") + "\n";
    gpus.push_back(gpu);
  }
  std::set<std::string> models;
  for (const auto& g : gpus) models.insert(g.name);
  if (models.size() > 1) {
    std::string list;
    for (const auto& m : models) list += (list.empty() ? "" : ", ") + m;
    problems.push_back("mixed GPU models: " + list);
  }

  std::string nvml_reason;
  auto nvml = Nvml::open(options.nvml_library, &nvml_reason);
  if (nvml) {
    result.facts["driver"] = nvml->driver_version();
    std::string error;
    auto health = nvml->health(&error);
    if (!error.empty()) problems.push_back(error);
    add_health_problems(health, problems, result.detail);
  } else {
    result.detail += nvml_reason + ": health counters not checked\n";
  }

  if (!gpus.empty()) {
    result.facts["gpu_model"] = gpus.front().name;
    result.figure = std::to_string(gpus.size()) + "x " + gpus.front().name;
  }
  if (!problems.empty()) {
    result.status = CheckResult::Failed;
    result.summary = problems.front();
    if (problems.size() > 1)
      result.summary += " (and " + std::to_string(problems.size() - 1) + " more)";
    for (const auto& p : problems) result.detail += p + "\n";
  } else if (count == 0) {
    result.status = CheckResult::Skipped;
    result.summary = "no GPU on this node, and the plan asks for none";
  } else {
    result.status = CheckResult::Passed;
    const Gpu& g = gpus.front();
    result.summary = result.figure + ", " + human_bytes(static_cast<std::int64_t>(g.memory)) +
                     " each, sm_" + std::to_string(g.major) + std::to_string(g.minor) +
                     ", ECC on, CUDA " + result.facts["cuda"];
    if (result.facts.count("driver")) result.summary += ", driver " + result.facts["driver"];
  }
  return result;
}

}  // namespace

int expected_gpus(const Plan& plan, const Placement& placement) {
  if (placement.role_index >= 0 && placement.role_index < static_cast<int>(plan.roles.size()))
    return plan.roles[static_cast<std::size_t>(placement.role_index)].resources.gpu;
  const Role* role = find_role(plan, placement.role);
  return role ? role->resources.gpu : 0;
}

CheckResult run_gpu_check(const Plan& plan, const Placement& placement, const CheckOptions& options,
                          std::int64_t timeout_seconds) {
  int expected = expected_gpus(plan, placement);
  return run_isolated(
      "gpu", [&] { return inspect(expected, options); }, std::chrono::seconds(timeout_seconds),
      options.containment);
}

}  // namespace pai::checks
