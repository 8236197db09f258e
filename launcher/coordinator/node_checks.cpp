#include "launcher/coordinator/node_checks.h"

#include <map>
#include <utility>

#include "launcher/checks/check_result_json.h"
#include "launcher/net/frame.h"

namespace pai::launcher::coordinator {

std::vector<checks::CheckResult> parse_checks(const std::string& type, const std::string& array) {
  try {
    return checks::results_from_json(array);
  } catch (const checks::CheckResultError& e) {
    throw net::ProtocolError(type + ": checks: " + e.what());
  }
}

void apply_checks(Node& node, std::vector<checks::CheckResult> results) {
  node.checks = std::move(results);
  node.failed_checks.clear();
  node.check_summary.clear();
  for (const checks::CheckResult& r : node.checks) {
    if (r.status != checks::CheckResult::Failed) continue;
    if (node.failed_checks.empty()) {
      node.check_summary = r.summary;
    } else {
      node.failed_checks += ", ";
    }
    node.failed_checks += r.name;
  }
  node.health = node.failed_checks.empty() ? Health::Ready : Health::Failed;
}

std::string check_failure_line(const Node& node, int max_attempts) {
  std::string line = node.name + " " + node.failed_text();
  if (!node.check_summary.empty()) line += ": " + node.check_summary;
  return line + " (attempt " + std::to_string(node.check_attempt) + " of " +
         std::to_string(max_attempts) + ")";
}

void request_checks(CoordinatorState& state, int node, bool new_round) {
  Node& n = state.nodes.at(static_cast<std::size_t>(node));
  n.check_attempt = new_round ? 1 : n.check_attempt + 1;
  if (new_round) n.failed_checks.clear();
  n.health = Health::Checking;
  n.last_event = "running checks (attempt " + std::to_string(n.check_attempt) + ")";
  state.send_to_node(node, net::RunChecks{n.check_attempt});
}

void compare_facts(CoordinatorState& state, const std::vector<int>& nodes) {
  // check -> fact -> value -> nodes; std::map keeps the warnings in a stable order.
  std::map<std::string, std::map<std::string, std::map<std::string, std::vector<std::string>>>>
      seen;
  for (int node : nodes) {
    const Node& n = state.nodes.at(static_cast<std::size_t>(node));
    for (const checks::CheckResult& r : n.checks) {
      for (const auto& [fact, value] : r.facts) seen[r.name][fact][value].push_back(n.name);
    }
  }
  for (const auto& [check, facts] : seen) {
    for (const auto& [fact, values] : facts) {
      if (values.size() < 2) continue;
      std::string text;
      for (const auto& [value, names] : values) {
        if (!text.empty()) text += "; ";
        text += value + " on " + name_list(names);
      }
      state.record(journal::FactMismatch{.check = check, .fact = fact, .values = values},
                   "warning: " + check + " " + fact + " differs across nodes: " + text);
    }
  }
}

}  // namespace pai::launcher::coordinator
