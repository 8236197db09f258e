// Judging what NVML reported about each GPU over a burn: throttling, Xid events, ECC errors,
// remapped rows, temperature and power. Pure: health_monitor.h collects the record.
#pragma once

#include <string>
#include <vector>

namespace pai::checks {

/// What NVML reported about one GPU from just before the burn to its end.
struct GpuHealthRecord {
  int index = 0;  ///< in NVML order
  std::string name;
  std::string pci_bus_id;
  std::string serial;
  bool throttle_known = false;
  unsigned long long throttle_seen = 0;  ///< every throttle reason any sample reported
  int max_temperature_c = -1;            ///< -1 = not known
  double max_power_w = -1;               ///< -1 = not known
  bool ecc_known = false;
  unsigned long long volatile_uncorrected = 0;  ///< at the end, since the driver loaded
  unsigned long long volatile_corrected = 0;    ///< at the end, since the driver loaded
  bool aggregate_ecc_known = false;
  unsigned long long aggregate_uncorrected_before = 0;  ///< lifetime count before the burn
  unsigned long long aggregate_uncorrected_after = 0;   ///< lifetime count after it
  bool remapped_rows_known = false;
  bool remap_pending = false;
  bool remap_failed = false;
  std::vector<unsigned long long> xids;  ///< Xid events during the burn, in order
};

/// One finding about a GPU. `fatal` findings fail it; the others are reported in the detail.
struct HealthFinding {
  bool fatal = false;
  std::string text;  ///< names the GPU: "GPU 2 (00000000:1A:00.0, serial 1654922001234): ..."
};

/// "GPU 2 (00000000:1A:00.0, serial 1654922001234)"; what is unknown is left out.
std::string gpu_label(int index, const std::string& pci_bus_id, const std::string& serial);

/// "Xid 79 (GPU has fallen off the bus)", or "Xid 1234" for one without a known meaning.
std::string describe_xid(unsigned long long xid);

/// The findings about `record`, each starting with `label`. Fatal: hardware slowdown, thermal
/// slowdown (software or hardware) and power brake throttling; any Xid event; volatile
/// uncorrected ECC errors; lifetime uncorrected ECC errors that rose during the burn; a pending
/// or failed row remap. Reported only: other throttle reasons (idle, power cap, ...), lifetime
/// uncorrected errors from before the burn (remapped rows are the authority on whether memory
/// is still sound), corrected errors, the hottest temperature and highest power draw.
std::vector<HealthFinding> judge_health(const GpuHealthRecord& record, const std::string& label);

/// PCI bus ids as CUDA ("0000:1a:00.0") and NVML ("00000000:1A:00.0") write them, in one form
/// ("0000:1a:00.0") so that the burn's GPUs and NVML's can be matched; "" stays "".
std::string normalize_bus_id(const std::string& bus_id);

}  // namespace pai::checks
