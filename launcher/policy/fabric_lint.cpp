#include "launcher/policy/fabric_lint.h"

#include <algorithm>
#include <set>

namespace pai::launcher {

namespace {

constexpr char kMissing[] = "(missing)";

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// What `value` of `key` contradicts in the plan; "" when nothing.
std::string contradiction(const std::string& key, const std::string& value, const LintPlan& plan) {
  if (key.rfind("port.", 0) != 0) return "";
  if (ends_with(key, ".state") && value != "ACTIVE") {
    return "a port the job uses is " + value + ", not ACTIVE";
  }
  if (ends_with(key, ".linkLayer")) {
    if (plan.fabric == "roce" && value != "Ethernet") return "the plan's fabric is RoCE";
    if (plan.fabric == "ib" && value != "InfiniBand") return "the plan's fabric is InfiniBand";
  }
  if (ends_with(key, ".gidType") && plan.fabric == "roce" && value != "RoCE v2") {
    return "the plan's GID index " + std::to_string(plan.gid_index) + " is " + value +
           " here, not RoCE v2 (NCCL_IB_GID_INDEX)";
  }
  const std::string tc = "the plan's traffic class " + std::to_string(plan.traffic_class) +
                         " (DSCP " + std::to_string(plan.traffic_class >> 2) + ")";
  if (ends_with(key, ".tcLossless") && value == "no") {
    return tc + " lands on a priority PFC does not make lossless";
  }
  if (ends_with(key, ".tcPriority") && value == "unmapped") {
    return tc + " is mapped to no priority by the port's DSCP trust table";
  }
  return "";
}

}  // namespace

LintReport lint_fabric(const std::vector<std::pair<std::string, NodeFacts>>& nodes,
                       const LintPlan& plan) {
  LintReport report;
  std::set<std::string> keys;
  for (const auto& [node, facts] : nodes) {
    for (const auto& [key, value] : facts) keys.insert(key);
  }
  // key -> the majority value, when there is one.
  std::map<std::string, std::string> majority;
  for (const std::string& key : keys) {
    std::map<std::string, int> counts;
    for (const auto& [node, facts] : nodes) {
      const auto it = facts.find(key);
      ++counts[it == facts.end() ? kMissing : it->second];
    }
    const auto best =
        std::max_element(counts.begin(), counts.end(),
                         [](const auto& a, const auto& b) { return a.second < b.second; });
    if (nodes.size() >= 3 && best->second * 2 > static_cast<int>(nodes.size())) {
      majority[key] = best->first;
    }
  }
  std::set<std::string> excludable;
  for (const auto& [node, facts] : nodes) {
    for (const std::string& key : keys) {
      const auto it = facts.find(key);
      const std::string value = it == facts.end() ? kMissing : it->second;
      const auto m = majority.find(key);
      if (m != majority.end() && m->second != value) {
        report.outliers.push_back({node, key, value, m->second, ""});
        excludable.insert(node);
      }
      if (it == facts.end()) continue;
      const std::string why = contradiction(key, value, plan);
      if (why.empty()) continue;
      report.contradictions.push_back({node, key, value, "", why});
      // Wrong where the majority is right: the node's own problem.
      if (m != majority.end() && m->second != value) excludable.insert(node);
    }
  }
  for (const auto& [node, facts] : nodes) {
    if (excludable.count(node) != 0) report.excludable.push_back(node);
  }
  return report;
}

std::vector<FactChange> fact_drift(const std::vector<std::pair<std::string, NodeFacts>>& before,
                                   const std::vector<std::pair<std::string, NodeFacts>>& after) {
  std::map<std::string, const NodeFacts*> old;
  for (const auto& [node, facts] : before) old[node] = &facts;
  std::vector<FactChange> out;
  for (const auto& [node, facts] : after) {
    const auto it = old.find(node);
    if (it == old.end()) continue;
    std::set<std::string> keys;
    for (const auto& [k, v] : facts) keys.insert(k);
    for (const auto& [k, v] : *it->second) keys.insert(k);
    for (const std::string& key : keys) {
      const auto a = it->second->find(key);
      const auto b = facts.find(key);
      const std::string was = a == it->second->end() ? kMissing : a->second;
      const std::string now = b == facts.end() ? kMissing : b->second;
      if (was != now) out.push_back({node, key, was, now});
    }
  }
  return out;
}

}  // namespace pai::launcher
