// Fabric lint and drift (design §13): at the rendezvous, before any rank starts, the
// coordinator compares the nodes' fingerprints (facts gathered by every node's `fingerprint`
// check, launcher/checks/node_fingerprint.h, and the facts of its other checks): every node
// whose value of a fact differs from the majority's, and every setting that contradicts the
// plan (a RoCE plan on an InfiniBand port, a RoCE v1 GID at the plan's index, the plan's
// traffic class on a priority PFC does not protect, a port of fabric.hcas not ACTIVE). On a
// restart after a good attempt, what changed on each node since. Pure.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace pai::launcher {

/// A node's facts: "port.mlx5_0/1.mtu" -> "4200".
using NodeFacts = std::map<std::string, std::string>;

/// What the plan says that facts can contradict.
struct LintPlan {
  std::string fabric;      ///< "roce", "ib", "ethernet"; "" unknown
  int gid_index = -1;      ///< RoCE's NCCL_IB_GID_INDEX; -1 unset
  int traffic_class = -1;  ///< NCCL_IB_TC; -1 unset
};

/// One finding about one node.
struct LintFinding {
  std::string node;
  std::string key;       ///< the fact
  std::string value;     ///< the node's value; "(missing)" when it lacks the fact
  std::string majority;  ///< an outlier: the majority's value; "" for a contradiction
  std::string why;       ///< a contradiction: what it contradicts; "" for an outlier
  bool operator==(const LintFinding&) const = default;
};

/// The lint of a job's nodes.
struct LintReport {
  std::vector<LintFinding> outliers;        ///< in node order, then key order
  std::vector<LintFinding> contradictions;  ///< likewise
  /// Nodes to take out under `policy: exclude`: those with an outlier or a contradiction the
  /// majority does not share (a setting wrong everywhere warns; excluding every node would
  /// leave no job), in node order.
  std::vector<std::string> excludable;
};

/// Lints `nodes` (node name -> facts, in the plan's node order). A fact held by fewer than 3
/// nodes, or without a strict majority value, names no outlier: two nodes that differ cannot
/// say which one is wrong.
LintReport lint_fabric(const std::vector<std::pair<std::string, NodeFacts>>& nodes,
                       const LintPlan& plan);

/// One fact that changed on a node between two rounds of checks.
struct FactChange {
  std::string node;
  std::string key;
  std::string before;  ///< "(missing)" when it was not there
  std::string after;   ///< "(missing)" when it is gone
  bool operator==(const FactChange&) const = default;
};

/// What changed from `before` (the facts of the last good attempt) to `after`, for the nodes
/// in both, in `after`'s node order, then key order.
std::vector<FactChange> fact_drift(const std::vector<std::pair<std::string, NodeFacts>>& before,
                                   const std::vector<std::pair<std::string, NodeFacts>>& after);

}  // namespace pai::launcher
