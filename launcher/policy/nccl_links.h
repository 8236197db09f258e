// A slow node from NCCL's own transfers (design §13): on RDMA fabrics no TCP connection carries
// the training traffic, so the ranks' per-peer transfer rates in the world communicator (pai's
// NCCL profiler plugin, launcher/supervisor/peer_traffic.h) are the link evidence. A node whose
// links, both the sends to it and its own sends, run at a fraction of the other links' median
// is the node common to the slow pairs. Pure.
#pragma once

#include <string>
#include <vector>

namespace pai::launcher {

/// One send link of a rank in a window: to the rank on node `peer_node`.
struct NcclSend {
  int node = 0;        ///< the sender's node (coordinator index)
  int peer_node = 0;   ///< the receiver's
  double bytes = 0;    ///< completed in the window
  double busy_us = 0;  ///< with a transfer in flight
};

/// A node whose NCCL links are slow.
struct NcclSlowNode {
  int node = 0;
  double rate = 0;    ///< the median of its links' rates, bytes per second
  double others = 0;  ///< the median of the other links' rates
  int links = 0;      ///< its links (sends to it and from it) that were measured
  bool operator==(const NcclSlowNode&) const = default;
};

/// The nodes whose links' median rate is at least `factor` times below the median of the
/// links that do not touch them. Links within a node and idle ones are left out; a node needs
/// two measured links and the others two, or it is not judged.
std::vector<NcclSlowNode> nccl_slow_nodes(const std::vector<NcclSend>& sends, double factor);

/// "NCCL transfers to and from node-3 run at 210 MB/s, 5.0x below the other links' median of
/// 1.1 GB/s (2 links)".
std::string nccl_evidence(const NcclSlowNode& slow, const std::string& node_name);

}  // namespace pai::launcher
