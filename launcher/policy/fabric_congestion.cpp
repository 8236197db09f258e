#include "launcher/policy/fabric_congestion.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace pai::launcher {

namespace {

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

std::string gbps_text(double gbps) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", gbps);
  return text;
}

}  // namespace

std::vector<FabricPair> fabric_all_nodes_round(const std::vector<int>& nodes) {
  std::vector<FabricPair> pairs;
  const std::size_t half = nodes.size() / 2;
  for (std::size_t i = 0; i < half; ++i) pairs.push_back({nodes[i], nodes[i + half]});
  return pairs;
}

FabricCongestion judge_congestion(const std::vector<FabricPairResult>& round,
                                  const std::vector<FabricPairResult>& pairs,
                                  const FabricVerdict& verdict) {
  // What each node reached in pairs: the median of its pairs that passed (not the best,
  // which noise lifts).
  std::map<int, std::vector<double>> passed;
  for (std::size_t k = 0; k < pairs.size() && k < verdict.pairs.size(); ++k) {
    const FabricPairResult& p = pairs[k];
    if (!p.error.empty() || verdict.pairs[k].failed) continue;
    for (int node : {p.first, p.second}) passed[node].push_back(p.gbps);
  }
  std::map<int, double> alone;
  for (const auto& [node, figures] : passed) alone[node] = median(figures);
  FabricCongestion c;
  c.results = round;
  std::vector<double> figures;
  std::vector<double> ratios;
  for (std::size_t k = 0; k < round.size(); ++k) {
    const FabricPairResult& r = round[k];
    const auto a = alone.find(r.first);
    const auto b = alone.find(r.second);
    const double expected =
        a == alone.end() || b == alone.end() ? 0 : std::min(a->second, b->second);
    c.expected_gbps.push_back(expected);
    if (!r.error.empty()) {
      c.slow.push_back(static_cast<int>(k));
      continue;
    }
    figures.push_back(r.gbps);
    if (expected <= 0) continue;
    ratios.push_back(r.gbps / expected);
    if (r.gbps < FabricCongestion::kSlowBelow * expected) c.slow.push_back(static_cast<int>(k));
  }
  c.median_gbps = median(figures);
  c.median_ratio = median(ratios);
  return c;
}

std::string congestion_line(const FabricCongestion& c, const std::vector<std::string>& names) {
  auto name = [&](int node) {
    if (node >= 0 && static_cast<std::size_t>(node) < names.size()) return names[node];
    return "node " + std::to_string(node);
  };
  std::string line = "all nodes at once: " + std::to_string(c.results.size()) + " pairs, median " +
                     gbps_text(c.median_gbps) + " Gbit/s";
  if (c.median_ratio > 0) {
    line += ", " + std::to_string(static_cast<int>(c.median_ratio * 100 + 0.5)) +
            "% of what their nodes reached in pairs";
  }
  line += c.congested() ? ": the fabric is congested" : "";
  std::string slow;
  for (std::size_t shown = 0; shown < c.slow.size(); ++shown) {
    if (shown == 4) {
      slow += ", ...";
      break;
    }
    const int k = c.slow[shown];
    const FabricPairResult& r = c.results[static_cast<std::size_t>(k)];
    slow += (slow.empty() ? "" : ", ") + name(r.first) + " <-> " + name(r.second) + " (" +
            (r.error.empty() ? gbps_text(r.gbps) + " of " +
                                   gbps_text(c.expected_gbps[static_cast<std::size_t>(k)])
                             : r.error) +
            ")";
  }
  if (!slow.empty()) line += "; slow under load: " + slow;
  return line;
}

}  // namespace pai::launcher
