#include "launcher/node/system_node_faults.h"

#include <utility>

namespace pai::launcher {

SystemNodeFaults::SystemNodeFaults(std::string coordinator_address, int coordinator_port,
                                   std::string output_dir)
    : link_(std::move(coordinator_address), coordinator_port), disk_(std::move(output_dir)) {}

std::string SystemNodeFaults::put(DrillFault fault, int seconds) {
  if (!carried_by_node(fault)) return std::string(to_string(fault)) + " is not the node's own";
  if (std::string failed = remove(); !failed.empty()) return failed;
  return fault == DrillFault::DiskFull ? disk_.fill(seconds) : link_.shape(fault, seconds);
}

std::string SystemNodeFaults::remove() {
  std::string failed = link_.unshape();
  const std::string disk = disk_.empty();
  if (!disk.empty()) failed += (failed.empty() ? "" : "; ") + disk;
  return failed;
}

std::string SystemNodeFaults::place() const {
  return link_.interface().empty() ? disk_.file() : link_.interface();
}

}  // namespace pai::launcher
