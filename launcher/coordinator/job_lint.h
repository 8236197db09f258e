// The fabric lint and drift as the coordinator runs them (design §13): the nodes' facts are
// those of their latest checks (the `fingerprint` check's as they are, every other check's as
// "<check>.<fact>"), linted once the rendezvous completes (launcher/policy/fabric_lint.h) and,
// on every start after the first, compared with the facts of the attempt that last ran. The
// hub records the findings (`fabric-lint`, `fabric-drift`) and applies `sanityCheck.lint`.
// Internal to launcher/coordinator/.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "launcher/coordinator/coordinator_state.h"
#include "launcher/policy/fabric_lint.h"

namespace pai::launcher::coordinator {

/// Node `node`'s facts from its latest checks.
NodeFacts node_facts(const Node& node);

/// The facts of `nodes` (indexes), in that order, named.
std::vector<std::pair<std::string, NodeFacts>> facts_of(const CoordinatorState& state,
                                                        const std::vector<int>& nodes);

/// What the plan says that facts can contradict.
LintPlan lint_plan(const Plan& plan);

/// Facts whose values differ across `nodes` without a majority to name an outlier by: fact ->
/// value -> the nodes that have it (what two nodes that disagree leave undecided).
std::map<std::string, std::map<std::string, std::vector<std::string>>> disagreements(
    const std::vector<std::pair<std::string, NodeFacts>>& nodes, const LintReport& report);

/// The terminal lines of a lint: one per finding (at most `max`, then "and N more").
std::vector<std::string> lint_lines(
    const LintReport& report,
    const std::map<std::string, std::map<std::string, std::vector<std::string>>>& disagree,
    std::size_t max = 20);

/// The first finding about node `node`: "port.mlx5_0/1.mtu is 1500, the other nodes' 4200";
/// "" when there is none.
std::string first_finding(const LintReport& report, const std::string& node);

/// The terminal lines of a drift: "node-2: port.mlx5_0/1.mtu 4200 -> 1500".
std::vector<std::string> drift_lines(const std::vector<FactChange>& changes, std::size_t max = 20);

}  // namespace pai::launcher::coordinator
