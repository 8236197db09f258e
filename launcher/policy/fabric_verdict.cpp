#include "launcher/policy/fabric_verdict.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>
#include <utility>

namespace pai::launcher {

namespace {

double median_of(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::string gbps_text(double gbps) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", gbps);
  return text;
}

std::string node_text(const std::vector<std::string>& names, int node) {
  if (node >= 0 && static_cast<std::size_t>(node) < names.size()) return names[node];
  return "node " + std::to_string(node);
}

// The median of `measured` and the relative floor under it (0 with too few figures).
std::pair<double, double> relative_floor(const std::vector<double>& measured,
                                         const FabricThresholds& thresholds) {
  const double median = median_of(measured);
  if (static_cast<int>(measured.size()) < thresholds.min_pairs_for_relative) return {median, 0};
  std::vector<double> deviations;
  for (double g : measured) deviations.push_back(std::fabs(g - median));
  const double spread = std::max(3 * median_of(deviations), thresholds.min_spread * median);
  return {median, std::max(0.0, median - spread)};
}

// Why `figure` fails the absolute floor or the relative one ("3 Gbit/s below the floor of
// 5", `what` naming its unit), "" when it passes.
std::string figure_problem(double figure, const char* what, double floor, double median,
                           double relative) {
  if (floor > 0 && figure < floor) {
    return gbps_text(figure) + " " + what + " below the floor of " + gbps_text(floor);
  }
  if (figure < relative) {
    return gbps_text(figure) + " " + what + " below the median of " + gbps_text(median) +
           " minus 3 MAD (" + gbps_text(relative) + ")";
  }
  return "";
}

}  // namespace

bool FabricVerdict::healthy() const {
  return std::none_of(pairs.begin(), pairs.end(),
                      [](const FabricPairJudgement& p) { return p.failed; });
}

bool fabric_cleared(const std::vector<FabricPairResult>& results, const FabricVerdict& verdict,
                    int node) {
  for (std::size_t k = 0; k < results.size(); ++k) {
    if (verdict.pairs[k].failed) continue;
    if (results[k].first == node || results[k].second == node) return true;
  }
  return false;
}

FabricVerdict judge_fabric(const std::vector<FabricPairResult>& results,
                           const FabricThresholds& thresholds) {
  FabricVerdict verdict;
  std::vector<double> measured;
  std::vector<double> measured_bus;
  for (const FabricPairResult& r : results) {
    if (!r.error.empty()) continue;
    measured.push_back(r.gbps);
    if (r.bus_gbs) measured_bus.push_back(*r.bus_gbs);
  }
  std::tie(verdict.median_gbps, verdict.relative_floor_gbps) =
      relative_floor(measured, thresholds);
  std::tie(verdict.median_bus_gbs, verdict.relative_floor_bus_gbs) =
      relative_floor(measured_bus, thresholds);

  for (const FabricPairResult& r : results) {
    FabricPairJudgement j;
    std::string problem = r.error;
    if (problem.empty()) {
      problem = figure_problem(r.gbps, "Gbit/s", thresholds.floor_gbps, verdict.median_gbps,
                               verdict.relative_floor_gbps);
    }
    if (problem.empty() && r.bus_gbs) {
      problem = figure_problem(*r.bus_gbs, "GB/s NCCL bus bandwidth", thresholds.floor_bus_gbs,
                               verdict.median_bus_gbs, verdict.relative_floor_bus_gbs);
    }
    if (!problem.empty()) j = {true, std::move(problem)};
    verdict.pairs.push_back(std::move(j));
  }

  // node -> partners it failed with that passed with someone (so the failure is not theirs).
  std::map<int, std::set<int>> failed_with_cleared;
  std::set<int> cleared;
  for (const FabricPairResult& r : results) {
    for (int node : {r.first, r.second}) {
      if (fabric_cleared(results, verdict, node)) cleared.insert(node);
    }
  }
  for (std::size_t k = 0; k < results.size(); ++k) {
    if (!verdict.pairs[k].failed) continue;
    const FabricPairResult& r = results[k];
    if (cleared.count(r.second) != 0) failed_with_cleared[r.first].insert(r.second);
    if (cleared.count(r.first) != 0) failed_with_cleared[r.second].insert(r.first);
  }
  std::set<int> bad;
  for (const auto& [node, partners] : failed_with_cleared) {
    if (partners.size() < 2) continue;
    bad.insert(node);
    verdict.bad_nodes.push_back({node, std::vector<int>(partners.begin(), partners.end())});
  }

  std::set<std::pair<int, int>> links;
  std::set<int> suspects;
  for (std::size_t k = 0; k < results.size(); ++k) {
    if (!verdict.pairs[k].failed) continue;
    const int a = results[k].first;
    const int b = results[k].second;
    if (bad.count(a) != 0 || bad.count(b) != 0) continue;
    if (cleared.count(a) != 0 && cleared.count(b) != 0) {
      links.insert({std::min(a, b), std::max(a, b)});
      continue;
    }
    if (cleared.count(a) == 0) suspects.insert(a);
    if (cleared.count(b) == 0) suspects.insert(b);
  }
  for (const auto& [a, b] : links) verdict.bad_links.push_back({a, b});
  verdict.suspects.assign(suspects.begin(), suspects.end());
  return verdict;
}

std::vector<std::string> fabric_findings(const FabricVerdict& verdict,
                                         const std::vector<std::string>& names) {
  std::vector<std::string> lines;
  for (const FabricBadNode& b : verdict.bad_nodes) {
    std::string line = node_text(names, b.node) + " is bad: failed with ";
    for (std::size_t k = 0; k < b.partners.size(); ++k) {
      if (k > 0) line += k + 1 == b.partners.size() ? " and " : ", ";
      line += node_text(names, b.partners[k]);
    }
    lines.push_back(line + ", which passed with others");
  }
  for (const FabricBadLink& l : verdict.bad_links) {
    lines.push_back("link " + node_text(names, l.first) + " <-> " + node_text(names, l.second) +
                    " is bad: both ends passed with other partners");
  }
  for (int s : verdict.suspects) {
    lines.push_back(node_text(names, s) +
                    " is suspect: it failed and never passed with a partner that could clear it");
  }
  return lines;
}

}  // namespace pai::launcher
