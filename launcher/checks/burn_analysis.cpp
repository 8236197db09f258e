#include "launcher/checks/burn_analysis.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace pai::checks {
namespace {

std::string tflops_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", value);
  return text;
}

// The digest most GPUs agree on; ties go to the lowest-numbered GPU's.
std::uint64_t reference_digest(const std::vector<GpuBurn>& gpus) {
  std::map<std::uint64_t, int> votes;
  for (const auto& g : gpus)
    if (g.error.empty() && !g.hashes.empty()) ++votes[g.hashes.front()];
  std::uint64_t best = 0;
  int best_votes = 0;
  for (const auto& g : gpus) {
    if (!g.error.empty() || g.hashes.empty()) continue;
    int v = votes[g.hashes.front()];
    if (v > best_votes) {
      best = g.hashes.front();
      best_votes = v;
    }
  }
  return best;
}

}  // namespace

double GpuBurn::tflops() const {
  if (seconds <= 0) return 0;
  return static_cast<double>(gemms) * flops_per_gemm / seconds / 1e12;
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

BurnVerdict analyse_burn(const std::vector<GpuBurn>& gpus, double min_tflops) {
  BurnVerdict verdict;
  std::vector<std::string> problems;
  if (gpus.empty()) problems.push_back("no GPU ran the burn");

  std::vector<double> rates;
  for (const auto& g : gpus)
    if (g.error.empty()) rates.push_back(g.tflops());
  verdict.median_tflops = median(rates);
  std::uint64_t reference = reference_digest(gpus);
  bool several = gpus.size() > 1;

  for (const auto& g : gpus) {
    std::string who = "GPU " + std::to_string(g.gpu);
    if (!g.error.empty()) {
      problems.push_back(who + ": " + g.error);
      verdict.detail += who + " " + g.name + ": " + g.error + "\n";
      continue;
    }
    double rate = g.tflops();
    verdict.detail += who + " " + g.name + ": " + tflops_text(rate) + " TFLOPS, " +
                      std::to_string(g.gemms) + " GEMMs in " + tflops_text(g.seconds) + "s\n";
    if (g.hashes.empty() || g.gemms == 0) {
      problems.push_back(who + ": completed no GEMM");
      continue;
    }
    auto differing = static_cast<std::size_t>(std::count_if(
        g.hashes.begin(), g.hashes.end(), [&](std::uint64_t h) { return h != g.hashes.front(); }));
    if (differing > 0) {
      problems.push_back(who + ": results differ between iterations in " +
                         std::to_string(differing) + " of " + std::to_string(g.hashes.size()) +
                         " GEMMs (silent data corruption)");
    } else if (several && g.hashes.front() != reference) {
      problems.push_back(who + ": results differ from the other GPUs' (silent data corruption)");
    }
    if (several && rate < kSlowFraction * verdict.median_tflops) {
      problems.push_back(who + ": slow, " + tflops_text(rate) +
                         " TFLOPS is below 0.9x the node median of " +
                         tflops_text(verdict.median_tflops));
    }
    if (min_tflops > 0 && rate < min_tflops) {
      problems.push_back(who + ": " + tflops_text(rate) + " TFLOPS is below the floor of " +
                         tflops_text(min_tflops));
    }
  }

  verdict.passed = problems.empty();
  if (!rates.empty()) verdict.figure = tflops_text(verdict.median_tflops) + " TFLOPS";
  if (verdict.passed) {
    verdict.summary = std::to_string(gpus.size()) + " GPU" + (gpus.size() == 1 ? "" : "s") +
                      ", results bit-identical, median " + tflops_text(verdict.median_tflops) +
                      " TFLOPS per GPU";
  } else {
    verdict.summary = problems.front();
    if (problems.size() > 1)
      verdict.summary += " (and " + std::to_string(problems.size() - 1) + " more)";
    for (const auto& p : problems) verdict.detail += p + "\n";
  }
  return verdict;
}

}  // namespace pai::checks
