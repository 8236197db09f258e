#include "launcher/checks/nvml.h"

#include <dlfcn.h>

namespace pai::checks {
namespace {

using Return = int;  // nvmlReturn_t; 0 = NVML_SUCCESS
using DeviceHandle = NvmlDevice*;  // nvmlDevice_t
constexpr Return kSuccess = 0;
constexpr int kMemoryErrorUncorrected = 1;  // NVML_MEMORY_ERROR_TYPE_UNCORRECTED
constexpr int kVolatileEcc = 0;             // NVML_VOLATILE_ECC
// Bounds what a broken driver could claim, so it fits the protocol's 64-bit integers.
constexpr unsigned long long kMaxMemoryBytes = 1ull << 62;

// nvmlPciInfo_t as NVML's ABI lays it out (the v3 struct behind nvmlDeviceGetPciInfo_v3).
struct PciInfo {
  char bus_id_legacy[16];
  unsigned domain;
  unsigned bus;
  unsigned device;
  unsigned pci_device_id;
  unsigned pci_sub_system_id;
  char bus_id[32];
};

// nvmlUtilization_t and nvmlMemory_t (v1) as NVML's ABI lays them out.
struct Utilization {
  unsigned gpu;
  unsigned memory;
};
struct Memory {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

template <typename Fn>
void resolve(void* handle, const char* symbol, Fn*& slot) {
  slot = reinterpret_cast<Fn*>(dlsym(handle, symbol));
}

}  // namespace

struct Nvml::Api {
  Return (*init)() = nullptr;
  Return (*shutdown)() = nullptr;
  Return (*driver_version)(char*, unsigned) = nullptr;
  Return (*count)(unsigned*) = nullptr;
  Return (*handle_by_index)(unsigned, DeviceHandle*) = nullptr;
  Return (*name)(DeviceHandle, char*, unsigned) = nullptr;
  Return (*pci_info)(DeviceHandle, PciInfo*) = nullptr;
  Return (*remapped_rows)(DeviceHandle, unsigned*, unsigned*, unsigned*, unsigned*) = nullptr;
  Return (*total_ecc_errors)(DeviceHandle, int, int, unsigned long long*) = nullptr;
  Return (*throttle_reasons)(DeviceHandle, unsigned long long*) = nullptr;
  Return (*pcie_generation)(DeviceHandle, unsigned*) = nullptr;
  Return (*pcie_width)(DeviceHandle, unsigned*) = nullptr;
  Return (*pcie_max_generation)(DeviceHandle, unsigned*) = nullptr;
  Return (*pcie_max_width)(DeviceHandle, unsigned*) = nullptr;
  Return (*utilization)(DeviceHandle, Utilization*) = nullptr;
  Return (*memory)(DeviceHandle, Memory*) = nullptr;
};

Nvml::Nvml() : api_(std::make_unique<Api>()) {}

std::unique_ptr<Nvml> Nvml::open(const std::string& library, std::string* reason) {
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    *reason = std::string("no NVML (") + dlerror() + ")";
    return nullptr;
  }
  std::unique_ptr<Nvml> nvml(new Nvml);
  nvml->handle_ = handle;
  Api& api = *nvml->api_;
  resolve(handle, "nvmlInit_v2", api.init);
  resolve(handle, "nvmlShutdown", api.shutdown);
  resolve(handle, "nvmlSystemGetDriverVersion", api.driver_version);
  resolve(handle, "nvmlDeviceGetCount_v2", api.count);
  resolve(handle, "nvmlDeviceGetHandleByIndex_v2", api.handle_by_index);
  resolve(handle, "nvmlDeviceGetName", api.name);
  resolve(handle, "nvmlDeviceGetPciInfo_v3", api.pci_info);
  resolve(handle, "nvmlDeviceGetRemappedRows", api.remapped_rows);
  resolve(handle, "nvmlDeviceGetTotalEccErrors", api.total_ecc_errors);
  resolve(handle, "nvmlDeviceGetCurrentClocksThrottleReasons", api.throttle_reasons);
  resolve(handle, "nvmlDeviceGetCurrPcieLinkGeneration", api.pcie_generation);
  resolve(handle, "nvmlDeviceGetCurrPcieLinkWidth", api.pcie_width);
  resolve(handle, "nvmlDeviceGetMaxPcieLinkGeneration", api.pcie_max_generation);
  resolve(handle, "nvmlDeviceGetMaxPcieLinkWidth", api.pcie_max_width);
  resolve(handle, "nvmlDeviceGetUtilizationRates", api.utilization);
  resolve(handle, "nvmlDeviceGetMemoryInfo", api.memory);
  if (!api.init || !api.shutdown || !api.count || !api.handle_by_index) {
    *reason = library + " lacks the NVML device entry points";
    return nullptr;
  }
  Return r = api.init();
  if (r != kSuccess) {
    *reason = "NVML loads but nvmlInit failed: error " + std::to_string(r);
    api.shutdown = nullptr;  // nothing to shut down
    return nullptr;
  }
  return nvml;
}

Nvml::~Nvml() {
  if (api_ && api_->shutdown) api_->shutdown();
  if (handle_) dlclose(handle_);
}

std::string Nvml::driver_version() const {
  char text[96] = {};
  if (!api_->driver_version || api_->driver_version(text, sizeof text) != kSuccess) return "";
  return text;
}

std::vector<DeviceHandle> Nvml::devices(std::string* error) const {
  std::vector<DeviceHandle> devices;
  unsigned count = 0;
  if (Return r = api_->count(&count); r != kSuccess) {
    *error = "nvmlDeviceGetCount failed: error " + std::to_string(r);
    return devices;
  }
  for (unsigned i = 0; i < count; ++i) {
    DeviceHandle device = nullptr;
    if (api_->handle_by_index(i, &device) != kSuccess) {
      *error = "NVML cannot open GPU " + std::to_string(i);
      return devices;
    }
    devices.push_back(device);
  }
  return devices;
}

std::vector<GpuHealth> Nvml::health(std::string* error) const {
  std::vector<GpuHealth> gpus;
  const std::vector<DeviceHandle> devices = this->devices(error);
  for (std::size_t i = 0; i < devices.size(); ++i) {
    DeviceHandle device = devices[i];
    GpuHealth h;
    h.index = static_cast<int>(i);
    char name[96] = {};
    if (api_->name && api_->name(device, name, sizeof name) == kSuccess) h.name = name;
    PciInfo pci{};
    if (api_->pci_info && api_->pci_info(device, &pci) == kSuccess) h.pci_bus_id = pci.bus_id;
    unsigned corrected = 0, uncorrected = 0, pending = 0, failed = 0;
    if (api_->remapped_rows &&
        api_->remapped_rows(device, &corrected, &uncorrected, &pending, &failed) == kSuccess) {
      h.remapped_rows_known = true;
      h.remap_pending = pending != 0;
      h.remap_failed = failed != 0;
    }
    if (api_->total_ecc_errors &&
        api_->total_ecc_errors(device, kMemoryErrorUncorrected, kVolatileEcc,
                               &h.volatile_uncorrectable_ecc) == kSuccess)
      h.ecc_known = true;
    unsigned long long reasons = 0;
    if (api_->throttle_reasons && api_->throttle_reasons(device, &reasons) == kSuccess) {
      h.throttle_known = true;
      h.throttle_reasons = reasons & kBadThrottleReasons;
    }
    unsigned value = 0;
    if (api_->pcie_generation && api_->pcie_generation(device, &value) == kSuccess)
      h.pcie_generation = static_cast<int>(value);
    if (api_->pcie_width && api_->pcie_width(device, &value) == kSuccess)
      h.pcie_width = static_cast<int>(value);
    if (api_->pcie_max_generation && api_->pcie_max_generation(device, &value) == kSuccess)
      h.pcie_max_generation = static_cast<int>(value);
    if (api_->pcie_max_width && api_->pcie_max_width(device, &value) == kSuccess)
      h.pcie_max_width = static_cast<int>(value);
    gpus.push_back(h);
  }
  return gpus;
}

std::vector<GpuUsage> Nvml::usage(std::string* error) const {
  std::vector<GpuUsage> gpus;
  const std::vector<DeviceHandle> devices = this->devices(error);
  for (std::size_t i = 0; i < devices.size(); ++i) {
    DeviceHandle device = devices[i];
    GpuUsage u;
    u.index = static_cast<int>(i);
    Utilization rates{};
    // NVML reports a percentage; anything above 100 is not one.
    if (api_->utilization && api_->utilization(device, &rates) == kSuccess && rates.gpu <= 100)
      u.utilization = static_cast<int>(rates.gpu);
    Memory memory{};
    if (api_->memory && api_->memory(device, &memory) == kSuccess && memory.used <= memory.total &&
        memory.total <= kMaxMemoryBytes) {
      u.memory_used_bytes = static_cast<std::int64_t>(memory.used);
      u.memory_total_bytes = static_cast<std::int64_t>(memory.total);
    }
    gpus.push_back(u);
  }
  return gpus;
}

std::string describe_throttle_reasons(unsigned long long reasons) {
  std::string text;
  auto add = [&](unsigned long long bit, const char* name) {
    if (reasons & bit) text += (text.empty() ? "" : ", ") + std::string(name);
  };
  add(0x8, "HW slowdown");
  add(0x20, "SW thermal slowdown");
  add(0x40, "HW thermal slowdown");
  add(0x80, "HW power brake slowdown");
  return text;
}

}  // namespace pai::checks
