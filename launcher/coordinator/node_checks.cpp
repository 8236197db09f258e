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

}  // namespace pai::launcher::coordinator
