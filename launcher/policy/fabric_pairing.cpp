#include "launcher/policy/fabric_pairing.h"

#include <algorithm>
#include <limits>
#include <set>
#include <utility>

namespace pai::launcher {

namespace {

// Figures of nodes that never got one sort below every measured figure; failed pairs sort
// below passed ones.
constexpr double kUnmeasured = -2;
constexpr double kFailed = -1;

/// Each node's best figure so far: the highest bandwidth of a pair it passed in, kFailed when
/// it only failed, kUnmeasured when it was never paired.
std::vector<double> node_figures(int nodes, const std::vector<FabricPairResult>& results,
                                 const FabricVerdict& verdict) {
  std::vector<double> figure(static_cast<std::size_t>(nodes), kUnmeasured);
  for (std::size_t k = 0; k < results.size(); ++k) {
    const double f = verdict.pairs[k].failed ? kFailed : results[k].gbps;
    for (int node : {results[k].first, results[k].second}) {
      if (node < 0 || node >= nodes) continue;
      figure[node] = std::max(figure[node], f);
    }
  }
  return figure;
}

std::set<std::pair<int, int>> measured_pairs(const std::vector<FabricPairResult>& results) {
  std::set<std::pair<int, int>> met;
  for (const FabricPairResult& r : results) {
    met.insert({std::min(r.first, r.second), std::max(r.first, r.second)});
  }
  return met;
}

bool have_met(const std::set<std::pair<int, int>>& met, int a, int b) {
  return met.count({std::min(a, b), std::max(a, b)}) != 0;
}

}  // namespace

std::vector<FabricPair> fabric_first_round(int nodes) {
  std::vector<FabricPair> round;
  for (int k = 0; k + 1 < nodes; k += 2) round.push_back({k, k + 1});
  return round;
}

std::vector<FabricPair> fabric_second_round(int nodes, const std::vector<FabricPairResult>& results,
                                            const FabricVerdict& verdict) {
  const std::vector<double> figure = node_figures(nodes, results, verdict);
  // Slowest first; ties in node order, so the pairing is the same on every run.
  std::vector<int> order;
  for (int k = 0; k < nodes; ++k) order.push_back(k);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return figure[a] < figure[b]; });
  if (nodes % 2 == 1 && !order.empty()) {
    // The fastest node that passed sits out: it is already cleared. (With no pass at all the
    // fastest failed one does.)
    order.pop_back();
  }
  const std::set<std::pair<int, int>> met = measured_pairs(results);
  // The k-th slowest with the k-th fastest. Both ends of a round-1 pair share its figure, so
  // they sort next to each other and may meet again in the middle: such a pair swaps its
  // fast end with another pair's when neither new pair met before, else it sits out.
  const std::size_t half = order.size() / 2;
  std::vector<std::pair<int, int>> slow_fast;
  for (std::size_t k = 0; k < half; ++k) {
    slow_fast.push_back({order[k], order[order.size() - 1 - k]});
  }
  for (std::size_t k = 0; k < slow_fast.size(); ++k) {
    auto& [slow, fast] = slow_fast[k];
    if (!have_met(met, slow, fast)) continue;
    for (std::size_t j = 0; j < slow_fast.size(); ++j) {
      auto& other = slow_fast[j];
      if (j == k || have_met(met, slow, other.second) || have_met(met, other.first, fast)) {
        continue;
      }
      std::swap(fast, other.second);
      break;
    }
  }
  std::vector<FabricPair> round;
  for (const auto& [slow, fast] : slow_fast) {
    // The faster node listens: the slow one's connect is the part that may fail.
    if (!have_met(met, slow, fast)) round.push_back({fast, slow});
  }
  return round;
}

std::vector<FabricPair> fabric_third_round(int nodes, const std::vector<FabricPairResult>& results,
                                           const FabricVerdict& verdict) {
  const std::vector<double> figure = node_figures(nodes, results, verdict);
  const std::set<std::pair<int, int>> met = measured_pairs(results);
  std::set<int> bad;
  for (const FabricBadNode& b : verdict.bad_nodes) bad.insert(b.node);
  const std::set<int> suspects(verdict.suspects.begin(), verdict.suspects.end());

  // Partners by preference: cleared nodes (fastest first), then the unsuspected rest, then
  // suspects.
  auto rank = [&](int node) {
    if (figure[node] >= 0) return 0;
    return suspects.count(node) == 0 ? 1 : 2;
  };
  std::vector<int> partners;
  for (int k = 0; k < nodes; ++k) {
    if (bad.count(k) == 0) partners.push_back(k);
  }
  std::stable_sort(partners.begin(), partners.end(), [&](int a, int b) {
    if (rank(a) != rank(b)) return rank(a) < rank(b);
    return figure[a] > figure[b];
  });

  std::vector<FabricPair> round;
  std::vector<bool> taken(static_cast<std::size_t>(nodes), false);
  for (int suspect : verdict.suspects) {
    if (suspect < 0 || suspect >= nodes || taken[suspect]) continue;
    for (int partner : partners) {
      if (partner == suspect || taken[partner] || have_met(met, suspect, partner)) continue;
      taken[suspect] = taken[partner] = true;
      round.push_back({partner, suspect});
      break;
    }
  }
  return round;
}

std::vector<int> fabric_sitting_out(int nodes, const std::vector<FabricPair>& round) {
  std::vector<bool> in(static_cast<std::size_t>(std::max(nodes, 0)), false);
  for (const FabricPair& p : round) {
    if (p.first >= 0 && p.first < nodes) in[p.first] = true;
    if (p.second >= 0 && p.second < nodes) in[p.second] = true;
  }
  std::vector<int> out;
  for (int k = 0; k < nodes; ++k) {
    if (!in[k]) out.push_back(k);
  }
  return out;
}

}  // namespace pai::launcher
