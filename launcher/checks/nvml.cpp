#include "launcher/checks/nvml.h"

#include <dlfcn.h>

#include <chrono>
#include <cstdio>
#include <thread>

namespace pai::checks {
namespace {

using Return = int;                // nvmlReturn_t; 0 = NVML_SUCCESS
using DeviceHandle = NvmlDevice*;  // nvmlDevice_t
constexpr Return kSuccess = 0;
constexpr int kMemoryErrorUncorrected = 1;      // NVML_MEMORY_ERROR_TYPE_UNCORRECTED
constexpr int kMemoryErrorCorrected = 0;        // NVML_MEMORY_ERROR_TYPE_CORRECTED
constexpr int kVolatileEcc = 0;                 // NVML_VOLATILE_ECC
constexpr int kAggregateEcc = 1;                // NVML_AGGREGATE_ECC
constexpr int kTemperatureGpu = 0;              // NVML_TEMPERATURE_GPU
constexpr Return kTimeout = 10;                 // NVML_ERROR_TIMEOUT
constexpr unsigned long long kXidEvents = 0x8;  // nvmlEventTypeXidCriticalError
constexpr unsigned kSerialLength = 30;          // NVML_DEVICE_SERIAL_BUFFER_SIZE
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

// nvmlEventData_t as NVML's ABI lays it out.
struct EventData {
  DeviceHandle device;
  unsigned long long event_type;
  unsigned long long event_data;
  unsigned gpu_instance_id;
  unsigned compute_instance_id;
};
using EventSet = void*;  // nvmlEventSet_t

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
  Return (*serial)(DeviceHandle, char*, unsigned) = nullptr;
  Return (*temperature)(DeviceHandle, int, unsigned*) = nullptr;
  Return (*power)(DeviceHandle, unsigned*) = nullptr;
  Return (*event_set_create)(EventSet*) = nullptr;
  Return (*event_set_free)(EventSet) = nullptr;
  Return (*register_events)(DeviceHandle, unsigned long long, EventSet) = nullptr;
  Return (*event_set_wait)(EventSet, EventData*, unsigned) = nullptr;
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
  resolve(handle, "nvmlDeviceGetSerial", api.serial);
  resolve(handle, "nvmlDeviceGetTemperature", api.temperature);
  resolve(handle, "nvmlDeviceGetPowerUsage", api.power);
  resolve(handle, "nvmlEventSetCreate", api.event_set_create);
  resolve(handle, "nvmlEventSetFree", api.event_set_free);
  resolve(handle, "nvmlDeviceRegisterEvents", api.register_events);
  resolve(handle, "nvmlEventSetWait_v2", api.event_set_wait);
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
  if (event_set_ && api_->event_set_free) api_->event_set_free(event_set_);
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
    char serial[kSerialLength + 2] = {};
    if (api_->serial && api_->serial(device, serial, kSerialLength) == kSuccess) h.serial = serial;
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
    if (h.ecc_known && api_->total_ecc_errors(device, kMemoryErrorCorrected, kVolatileEcc,
                                              &h.volatile_correctable_ecc) != kSuccess)
      h.volatile_correctable_ecc = 0;
    if (api_->total_ecc_errors &&
        api_->total_ecc_errors(device, kMemoryErrorUncorrected, kAggregateEcc,
                               &h.aggregate_uncorrectable_ecc) == kSuccess)
      h.aggregate_ecc_known = true;
    unsigned long long reasons = 0;
    if (api_->throttle_reasons && api_->throttle_reasons(device, &reasons) == kSuccess) {
      h.throttle_known = true;
      h.throttle_reasons = reasons & kBadThrottleReasons;
      h.throttle_reasons_all = reasons;
    }
    unsigned value = 0;
    if (api_->temperature && api_->temperature(device, kTemperatureGpu, &value) == kSuccess &&
        value < 1000)
      h.temperature_c = static_cast<int>(value);
    if (api_->power && api_->power(device, &value) == kSuccess)
      h.power_w = static_cast<double>(value) / 1000.0;
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

bool Nvml::watch_xids(std::string* error) {
  if (event_set_) return true;
  if (!api_->event_set_create || !api_->event_set_free || !api_->register_events ||
      !api_->event_set_wait) {
    *error = "NVML lacks the event entry points: Xid events not watched";
    return false;
  }
  std::vector<DeviceHandle> devices = this->devices(error);
  if (!error->empty()) return false;
  EventSet set = nullptr;
  if (Return r = api_->event_set_create(&set); r != kSuccess) {
    *error = "nvmlEventSetCreate failed: error " + std::to_string(r);
    return false;
  }
  for (std::size_t i = 0; i < devices.size(); ++i) {
    if (Return r = api_->register_events(devices[i], kXidEvents, set); r != kSuccess) {
      api_->event_set_free(set);
      *error =
          "GPU " + std::to_string(i) + ": NVML cannot watch Xid events: error " + std::to_string(r);
      return false;
    }
  }
  event_set_ = set;
  watched_ = devices;
  return true;
}

std::vector<XidEvent> Nvml::wait_xids(unsigned timeout_ms) const {
  std::vector<XidEvent> events;
  if (!event_set_) {
    std::this_thread::sleep_for(std::chrono::milliseconds(timeout_ms));
    return events;
  }
  // The first wait blocks for the timeout; the rest only drain what has already arrived.
  for (unsigned wait = timeout_ms;; wait = 0) {
    EventData data{};
    Return r = api_->event_set_wait(event_set_, &data, wait);
    if (r == kTimeout) break;
    if (r != kSuccess) {
      // A broken event set must not turn the sampling loop into a busy loop.
      if (wait > 0) std::this_thread::sleep_for(std::chrono::milliseconds(wait));
      break;
    }
    if (!(data.event_type & kXidEvents)) continue;
    for (std::size_t i = 0; i < watched_.size(); ++i) {
      if (watched_[i] == data.device) events.push_back({static_cast<int>(i), data.event_data});
    }
  }
  return events;
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

std::string describe_benign_throttle_reasons(unsigned long long reasons) {
  std::string text;
  auto add = [&](const std::string& name) { text += (text.empty() ? "" : ", ") + name; };
  const std::pair<unsigned long long, const char*> names[] = {{0x1, "GPU idle"},
                                                              {0x2, "applications clocks setting"},
                                                              {0x4, "SW power cap"},
                                                              {0x10, "sync boost"},
                                                              {0x100, "display clock setting"}};
  unsigned long long rest = reasons & ~kBadThrottleReasons;
  for (const auto& [bit, name] : names) {
    if (rest & bit) add(name);
    rest &= ~bit;
  }
  for (unsigned long long bit = 1; rest; bit <<= 1) {
    if (!(rest & bit)) continue;
    char hex[24];
    std::snprintf(hex, sizeof hex, "0x%llx", bit);
    add(hex);
    rest &= ~bit;
  }
  return text;
}

}  // namespace pai::checks
