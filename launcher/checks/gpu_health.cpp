#include "launcher/checks/gpu_health.h"

#include <cctype>
#include <cstdio>

#include "launcher/checks/nvml.h"

namespace pai::checks {
namespace {

// The Xids a node doctor meets most, from NVIDIA's Xid catalog.
const char* xid_meaning(unsigned long long xid) {
  switch (xid) {
    case 13:
      return "graphics engine exception";
    case 31:
      return "GPU memory page fault";
    case 43:
      return "GPU stopped processing";
    case 45:
      return "preemptive cleanup";
    case 48:
      return "double-bit ECC error";
    case 61:
      return "internal micro-controller breakpoint";
    case 62:
      return "internal micro-controller halt";
    case 63:
      return "row remapping event";
    case 64:
      return "row remapping failure";
    case 74:
      return "NVLink error";
    case 79:
      return "GPU has fallen off the bus";
    case 92:
      return "high single-bit ECC error rate";
    case 94:
      return "contained ECC error";
    case 95:
      return "uncontained ECC error";
    case 119:
      return "GSP RPC timeout";
    case 120:
      return "GSP error";
    default:
      return nullptr;
  }
}

}  // namespace

std::string gpu_label(int index, const std::string& pci_bus_id, const std::string& serial) {
  std::string label = "GPU " + std::to_string(index);
  std::string extra = pci_bus_id;
  if (!serial.empty()) extra += (extra.empty() ? "" : ", ") + std::string("serial ") + serial;
  if (!extra.empty()) label += " (" + extra + ")";
  return label;
}

std::string describe_xid(unsigned long long xid) {
  std::string text = "Xid " + std::to_string(xid);
  if (const char* meaning = xid_meaning(xid)) text += std::string(" (") + meaning + ")";
  return text;
}

std::vector<HealthFinding> judge_health(const GpuHealthRecord& r, const std::string& label) {
  std::vector<HealthFinding> findings;
  auto fatal = [&](const std::string& text) { findings.push_back({true, label + ": " + text}); };
  auto note = [&](const std::string& text) { findings.push_back({false, label + ": " + text}); };

  if (r.throttle_known) {
    if (unsigned long long bad = r.throttle_seen & kBadThrottleReasons)
      fatal("throttled during the burn: " + describe_throttle_reasons(bad));
    if (unsigned long long benign = r.throttle_seen & ~kBadThrottleReasons & ~kIdleThrottleReason)
      note("clocks limited during the burn by: " + describe_benign_throttle_reasons(benign));
  }
  for (unsigned long long xid : r.xids) fatal(describe_xid(xid) + " during the burn");
  if (r.ecc_known && r.volatile_uncorrected > 0)
    fatal(std::to_string(r.volatile_uncorrected) +
          " uncorrected ECC errors since the driver loaded");
  if (r.aggregate_ecc_known) {
    if (r.aggregate_uncorrected_after > r.aggregate_uncorrected_before) {
      fatal(std::to_string(r.aggregate_uncorrected_after - r.aggregate_uncorrected_before) +
            " new uncorrected ECC errors during the burn (lifetime count " +
            std::to_string(r.aggregate_uncorrected_after) + ")");
    } else if (r.aggregate_uncorrected_after > 0) {
      note(std::to_string(r.aggregate_uncorrected_after) +
           " uncorrected ECC errors over the board's lifetime, none during the burn");
    }
  }
  if (r.ecc_known && r.volatile_corrected > 0)
    note(std::to_string(r.volatile_corrected) + " corrected ECC errors since the driver loaded");
  if (r.remapped_rows_known) {
    if (r.remap_failed) fatal("a row remap failed (the GPU needs service)");
    if (r.remap_pending) fatal("a row remap is pending (reset the GPU)");
  }
  std::string readings;
  if (r.max_temperature_c >= 0) readings = "max " + std::to_string(r.max_temperature_c) + " C";
  if (r.max_power_w >= 0) {
    char watts[32];
    std::snprintf(watts, sizeof watts, "%.0f W", r.max_power_w);
    readings += (readings.empty() ? "max " : ", ") + std::string(watts);
  }
  if (!readings.empty()) note(readings);
  return findings;
}

std::string normalize_bus_id(const std::string& bus_id) {
  std::string lower;
  for (char c : bus_id) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto colon = lower.find(':');
  if (colon == std::string::npos || colon < 4) return lower;
  // NVML pads the domain to 8 hex digits, CUDA to 4: keep the last 4.
  return lower.substr(colon - 4);
}

}  // namespace pai::checks
