#include "launcher/coordinator/job_lint.h"

#include <set>

#include "libpai/enum_names.h"

namespace pai::launcher::coordinator {

namespace {

// The `more` lines a list cut at `max` ends with.
void cut(std::vector<std::string>& lines, std::size_t total, std::size_t max) {
  if (total > max) lines.push_back("and " + std::to_string(total - max) + " more");
}

}  // namespace

NodeFacts node_facts(const Node& node) {
  NodeFacts facts;
  for (const checks::CheckResult& r : node.checks) {
    for (const auto& [fact, value] : r.facts) {
      facts[r.name == "fingerprint" ? fact : r.name + "." + fact] = value;
    }
  }
  return facts;
}

std::vector<std::pair<std::string, NodeFacts>> facts_of(const CoordinatorState& state,
                                                        const std::vector<int>& nodes) {
  std::vector<std::pair<std::string, NodeFacts>> out;
  out.reserve(nodes.size());
  for (int node : nodes) {
    const Node& n = state.nodes.at(static_cast<std::size_t>(node));
    out.emplace_back(n.name, node_facts(n));
  }
  return out;
}

LintPlan lint_plan(const Plan& plan) {
  return LintPlan{.fabric = to_string(plan.fabric.type),
                  .gid_index = plan.fabric.gid_index,
                  .traffic_class = plan.fabric.traffic_class};
}

std::map<std::string, std::map<std::string, std::vector<std::string>>> disagreements(
    const std::vector<std::pair<std::string, NodeFacts>>& nodes, const LintReport& report) {
  std::set<std::string> decided;
  for (const LintFinding& f : report.outliers) decided.insert(f.key);
  std::map<std::string, std::map<std::string, std::vector<std::string>>> seen;
  for (const auto& [node, facts] : nodes) {
    for (const auto& [key, value] : facts) {
      if (decided.count(key) == 0) seen[key][value].push_back(node);
    }
  }
  for (auto it = seen.begin(); it != seen.end();) {
    it = it->second.size() < 2 ? seen.erase(it) : std::next(it);
  }
  return seen;
}

std::vector<std::string> lint_lines(
    const LintReport& report,
    const std::map<std::string, std::map<std::string, std::vector<std::string>>>& disagree,
    std::size_t max) {
  std::vector<std::string> lines;
  std::size_t total = 0;
  const auto add = [&](std::string line) {
    if (++total <= max) lines.push_back(std::move(line));
  };
  for (const LintFinding& f : report.outliers) {
    add("fabric lint: " + f.node + " " + f.key + " is " + f.value + ", the other nodes' " +
        f.majority);
  }
  for (const LintFinding& f : report.contradictions) {
    add("fabric lint: " + f.node + " " + f.key + " is " + f.value + ": " + f.why);
  }
  for (const auto& [key, values] : disagree) {
    std::string text;
    for (const auto& [value, names] : values) {
      if (!text.empty()) text += "; ";
      text += value + " on " + name_list(names);
    }
    add("fabric lint: " + key + " differs across nodes: " + text);
  }
  cut(lines, total, max);
  return lines;
}

std::string first_finding(const LintReport& report, const std::string& node) {
  for (const LintFinding& f : report.outliers) {
    if (f.node == node) return f.key + " is " + f.value + ", the other nodes' " + f.majority;
  }
  for (const LintFinding& f : report.contradictions) {
    if (f.node == node) return f.key + " is " + f.value + ": " + f.why;
  }
  return "";
}

std::vector<std::string> drift_lines(const std::vector<FactChange>& changes, std::size_t max) {
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < changes.size() && i < max; ++i) {
    const FactChange& c = changes[i];
    lines.push_back(c.node + ": " + c.key + " " + c.before + " -> " + c.after);
  }
  cut(lines, changes.size(), max);
  return lines;
}

}  // namespace pai::launcher::coordinator
