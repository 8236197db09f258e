#include "launcher/policy/fabric_rounds.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <set>
#include <utility>

namespace pai::launcher {

FabricRounds::FabricRounds(int nodes, FabricThresholds thresholds, bool all_nodes)
    : nodes_(nodes), thresholds_(thresholds), all_nodes_(all_nodes) {}

std::vector<FabricRequest> FabricRounds::start() {
  if (round_ != 0) throw FabricRoundsError("the fabric check already started");
  return begin(fabric_first_round(nodes_));
}

std::vector<FabricRequest> FabricRounds::begin(std::vector<FabricPair> pairs) {
  requests_.clear();
  reported_.clear();
  round_results_.clear();
  if (pairs.empty()) {
    done_ = true;
    return {};
  }
  ++round_;
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    requests_.push_back({round_, static_cast<int>(k), pairs[k]});
  }
  reported_.assign(requests_.size(), false);
  round_results_.resize(requests_.size());
  return requests_;
}

std::vector<FabricRequest> FabricRounds::result(int round, int pair, FabricPairResult figures) {
  if (done_ || round != round_ || pair < 0 || static_cast<std::size_t>(pair) >= requests_.size()) {
    throw FabricRoundsError("round " + std::to_string(round) + " pair " + std::to_string(pair) +
                            " was not asked for (running round " + std::to_string(round_) +
                            (done_ ? ", check over)" : ")"));
  }
  if (reported_[pair]) {
    throw FabricRoundsError("round " + std::to_string(round) + " pair " + std::to_string(pair) +
                            " was reported twice");
  }
  const FabricRequest& request = requests_[pair];
  figures.first = request.nodes.first;
  figures.second = request.nodes.second;
  figures.round = round;
  reported_[pair] = true;
  round_results_[pair] = std::move(figures);
  if (std::find(reported_.begin(), reported_.end(), false) != reported_.end()) return {};
  return round_over();
}

std::vector<FabricRequest> FabricRounds::expire(const std::string& why) {
  if (done_ || round_ == 0) return {};
  for (std::size_t k = 0; k < requests_.size(); ++k) {
    if (reported_[k]) continue;
    FabricPairResult r;
    r.first = requests_[k].nodes.first;
    r.second = requests_[k].nodes.second;
    r.round = round_;
    r.error = why;
    round_results_[k] = std::move(r);
    reported_[k] = true;
  }
  return round_over();
}

std::vector<FabricRequest> FabricRounds::round_over() {
  if (round_ == all_nodes_round_) {
    congestion_ = judge_congestion(round_results_, results_, verdict_);
    return begin({});
  }
  results_.insert(results_.end(), round_results_.begin(), round_results_.end());
  verdict_ = judge_fabric(results_, thresholds_);
  std::vector<FabricPair> next;
  if (round_ == 1) {
    next = fabric_second_round(nodes_, results_, verdict_);
  } else if (round_ == 2 && !verdict_.resolved()) {
    next = fabric_third_round(nodes_, results_, verdict_);
  }
  if (!next.empty()) return begin(std::move(next));
  pairs_done_ = true;
  if (all_nodes_) {
    const std::vector<int> out = excluded();
    std::vector<int> kept;
    for (int node = 0; node < nodes_; ++node) {
      if (!std::binary_search(out.begin(), out.end(), node)) kept.push_back(node);
    }
    next = fabric_all_nodes_round(kept);
    if (!next.empty()) all_nodes_round_ = round_ + 1;
  }
  return begin(std::move(next));
}

std::vector<FabricRequest> FabricRounds::outstanding() const {
  std::vector<FabricRequest> out;
  for (std::size_t k = 0; k < requests_.size(); ++k) {
    if (!reported_[k]) out.push_back(requests_[k]);
  }
  return out;
}

std::vector<int> FabricRounds::excluded() const {
  std::set<int> out;
  for (const FabricBadNode& b : verdict_.bad_nodes) out.insert(b.node);
  if (pairs_done_) out.insert(verdict_.suspects.begin(), verdict_.suspects.end());
  return {out.begin(), out.end()};
}

std::vector<std::string> fabric_table(const std::vector<FabricPairResult>& results,
                                      const FabricVerdict& verdict,
                                      const std::vector<std::string>& names) {
  auto name = [&](int node) {
    if (node >= 0 && static_cast<std::size_t>(node) < names.size()) return names[node];
    return "node " + std::to_string(node);
  };
  std::size_t width = 4;
  for (const FabricPairResult& r : results) {
    width = std::max(width, name(r.first).size() + name(r.second).size() + 5);
  }
  auto pad = [](std::string text, std::size_t to) {
    if (text.size() < to) text.append(to - text.size(), ' ');
    return text;
  };
  // The NCCL engine's column only where some pair ran it.
  const bool nccl = std::any_of(results.begin(), results.end(),
                                [](const FabricPairResult& r) { return r.bus_gbs.has_value(); });
  std::vector<std::string> lines;
  lines.push_back("round  " + pad("pair", width) + "  Gbit/s  latency  " +
                  (nccl ? "NCCL GB/s  " : "") + "verdict");
  for (std::size_t k = 0; k < results.size(); ++k) {
    const FabricPairResult& r = results[k];
    char figures[64];
    if (r.error.empty()) {
      std::snprintf(figures, sizeof figures, "%6.2f  %5.0fus", r.gbps, r.latency_us);
    } else {
      std::snprintf(figures, sizeof figures, "%6s  %7s", "-", "-");
    }
    if (nccl) {
      char bus[32];
      if (r.error.empty() && r.bus_gbs) {
        std::snprintf(bus, sizeof bus, "  %9.1f", *r.bus_gbs);
      } else {
        std::snprintf(bus, sizeof bus, "  %9s", "-");
      }
      std::strncat(figures, bus, sizeof figures - std::strlen(figures) - 1);
    }
    const FabricPairJudgement& j = verdict.pairs.at(k);
    lines.push_back(pad(std::to_string(r.round), 5) + "  " +
                    pad(name(r.first) + " <-> " + name(r.second), width) + "  " + figures + "  " +
                    (j.failed ? "FAIL: " + j.reason : "ok"));
  }
  return lines;
}

}  // namespace pai::launcher
