// Which instance of the plan this node runs: by flag, by hostname, by interface address.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "libpai/plan.h"

namespace pai::launcher {

/// The node is not in the plan, or the flags name no instance. what() is the message.
class NodeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// What the user said on the command line.
struct NodeHints {
  std::optional<std::string> name;  ///< --node NAME: a host name of the plan
  std::optional<int> node_rank;     ///< --node-rank N: index into the plan's placements
};

/// What this machine says about itself.
struct LocalIdentity {
  std::string hostname;
  std::vector<std::string> addresses;  ///< numeric addresses of the local interfaces
};

/// This machine's hostname and interface addresses (getifaddrs).
LocalIdentity local_identity();

/// The placement this node runs. Order: --node, --node-rank, the hostname (or its part
/// before the first '.') equal to a host's name or address, then a host address among the
/// local interface addresses (when exactly one host matches). `*how` says which rule
/// matched ("--node gpu-001", "hostname gpu-001", "address 10.0.0.1"). Throws NodeError.
const Placement& identify_node(const Plan& plan, const NodeHints& hints, const LocalIdentity& local,
                               std::string* how);

/// The spare of the plan this node is, by --node NAME or by hostname (or its part before the
/// first '.'), or nullptr. Consulted in a multi-node job before identify_node, so a launcher on
/// a spare waits as standby.
const Host* identify_spare(const Plan& plan, const NodeHints& hints, const LocalIdentity& local);

}  // namespace pai::launcher
