// RDMA ports (InfiniBand HCAs and RoCE NICs) as Linux lists them under class/infiniband
// (Documentation/ABI/stable/sysfs-class-infiniband), read through a SysfsRoot:
//   class/infiniband/<dev>/fw_ver                            firmware version
//   class/infiniband/<dev>/device                            -> the PCI function
//   class/infiniband/<dev>/ports/<p>/state                   "4: ACTIVE"
//   class/infiniband/<dev>/ports/<p>/phys_state              "5: LinkUp"
//   class/infiniband/<dev>/ports/<p>/rate                    "200 Gb/sec (4X HDR)"
//   class/infiniband/<dev>/ports/<p>/link_layer              "InfiniBand" or "Ethernet"
//   class/infiniband/<dev>/ports/<p>/gids/<i>                "fe80:0000:...", zeros when unset
//   class/infiniband/<dev>/ports/<p>/gid_attrs/types/<i>     "RoCE v2" or "IB/RoCE v1"
//   class/infiniband/<dev>/ports/<p>/gid_attrs/ndevs/<i>     the netdev behind a RoCE GID
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "launcher/checks/sysfs_root.h"

namespace pai::checks {

/// One port of an RDMA device.
struct RdmaPort {
  std::string device;           ///< "mlx5_0"
  int port = 0;                 ///< 1-based
  std::string state;            ///< the state's name: "ACTIVE", "DOWN", "INIT"...; "" unknown
  std::string phys_state;       ///< "LinkUp", "Polling"...; "" unknown
  std::string link_layer;       ///< "InfiniBand", "Ethernet"; "" unknown
  std::string rate;             ///< as the kernel writes it, "200 Gb/sec (4X HDR)"; "" unknown
  double rate_gbps = 0;         ///< its leading number; 0 unknown
  std::string netdev;           ///< the netdev behind the port ("eth2"); "" none or unknown
  bool gid_configured = false;  ///< the GID at the job's index exists and is not zeros
  std::string gid_type;         ///< "RoCE v2", "IB/RoCE v1" at that index; "" unknown
  std::string firmware;         ///< the device's fw_ver; "" unknown
  std::string pci;              ///< the PCI function, "0000:17:00.0"; "" unknown
  int numa_node = -1;           ///< of the PCI function; -1 unknown

  bool active() const { return state == "ACTIVE"; }
  /// "mlx5_0/1".
  std::string name() const;
};

/// The class/infiniband folder below the root, "class/infiniband".
inline constexpr char kInfinibandClass[] = "class/infiniband";

/// The names of all RDMA devices, sorted; empty when there are none.
std::vector<std::string> list_rdma_devices(const SysfsRoot& sys);

/// The ports of `device` in port order, each with the GID at `gid_index` (-1: none looked at);
/// nullopt when there is no such device.
std::optional<std::vector<RdmaPort>> read_rdma_ports(const SysfsRoot& sys,
                                                     const std::string& device, int gid_index);

/// The ports NCCL is told to use: those of `hcas` (fabric.hcas, in NCCL_IB_HCA's "mlx5_0" or
/// "mlx5_0:1" form; a device whose ports cannot be read is left out), else every ACTIVE port of
/// every device. In that order.
std::vector<RdmaPort> job_rdma_ports(const SysfsRoot& sys, const std::vector<std::string>& hcas,
                                     int gid_index);

/// "4: ACTIVE" -> "ACTIVE"; a kernel that writes only the name is read the same way.
std::string sysfs_state_name(const std::string& text);

}  // namespace pai::checks
