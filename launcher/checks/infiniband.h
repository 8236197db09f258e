// RDMA devices (InfiniBand HCAs and RoCE NICs) as Linux lists them under /sys/class/infiniband:
//   <root>/<hca>/ports/<port>/state            "4: ACTIVE"
//   <root>/<hca>/ports/<port>/gids/<index>     "fe80:0000:...", all zeros when unset
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace pai::checks {

/// One port of an HCA.
struct RdmaPort {
  int number = 0;
  std::string state;  ///< the state's name, "ACTIVE", "DOWN", "INIT" ...
  bool active() const { return state == "ACTIVE"; }
};

/// One HCA and its ports, in port order.
struct RdmaDevice {
  std::string name;
  std::vector<RdmaPort> ports;
};

/// The HCA named `name` under `root`, or nullopt when there is no such directory.
std::optional<RdmaDevice> read_rdma_device(const std::string& root, const std::string& name);

/// The names of all HCAs under `root`, sorted; empty when `root` does not exist.
std::vector<std::string> list_rdma_devices(const std::string& root);

/// Whether GID `gid_index` of `port` of `hca` exists and is not all zeros (RoCE needs a
/// configured GID at NCCL_IB_GID_INDEX).
bool rdma_gid_configured(const std::string& root, const std::string& hca, int port, int gid_index);

}  // namespace pai::checks
