#include "launcher/checks/burn_analysis.h"

#include <algorithm>
#include <cstdio>

#include "launcher/checks/corruption_vote.h"
#include "launcher/checks/gpu_health.h"

namespace pai::checks {
namespace {

std::string fixed1(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", value);
  return text;
}

std::string percent(double fraction) { return fixed1(fraction * 100) + "%"; }

std::string label_of(const GpuBurn& g) { return gpu_label(g.gpu, g.pci_bus_id, g.serial); }

std::string gpu_list(const std::vector<int>& gpus) {
  std::string text;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    if (i > 0) text += i + 1 == gpus.size() ? " and " : ", ";
    text += std::to_string(gpus[i]);
  }
  return text;
}

const BurnBaseline* find_baseline(const BurnLimits& limits, const std::string& model,
                                  const std::string& precision) {
  for (const auto& b : limits.baselines)
    if (b.model == model && b.precision == precision && b.tflops > 0) return &b;
  return nullptr;
}

// Judges `rate` against `reference`: a failure, a warning or nothing.
void judge_rate(const std::string& who, const std::string& precision, double rate, double reference,
                const std::string& what, const BurnLimits& limits, BurnVerdict& verdict) {
  if (reference <= 0) return;
  double shortfall = (reference - rate) / reference;
  std::string text = who + ": " + precision + " " + fixed1(rate) + " TFLOPS is " +
                     percent(shortfall) + " below " + what + " of " + fixed1(reference);
  if (shortfall >= limits.fail_fraction) {
    verdict.failures.push_back(text + " (fails at " + percent(limits.fail_fraction) + ")");
  } else if (shortfall >= limits.warn_fraction) {
    verdict.warnings.push_back(text + " (warns at " + percent(limits.warn_fraction) + ")");
  }
}

void vote_on(const std::vector<const GpuBurn*>& gpus, const std::string& precision,
             BurnVerdict& verdict) {
  std::vector<Ballot> ballots;
  for (const GpuBurn* g : gpus) {
    const GemmRun* run = g->run(precision);
    if (run && !run->hashes.empty()) ballots.push_back({g->gpu, run->hashes.front()});
  }
  VoteOutcome outcome = vote(ballots);
  auto label = [&](int gpu) {
    for (const GpuBurn* g : gpus)
      if (g->gpu == gpu) return label_of(*g);
    return "GPU " + std::to_string(gpu);
  };
  for (int gpu : outcome.outvoted) {
    verdict.failures.push_back(
        label(gpu) + ": " + precision + " results differ from the majority's (" +
        std::to_string(outcome.majority_size) + " of " + std::to_string(outcome.voters) +
        " GPUs agree): silent data corruption");
  }
  if (outcome.kind == VoteOutcome::NoMajority) {
    verdict.failures.push_back("GPUs " + gpu_list(outcome.undecided) + ": " + precision +
                               " results differ with no majority among " +
                               std::to_string(outcome.voters) +
                               " GPUs: silent data corruption on a GPU that cannot be told");
  }
}

}  // namespace

double GemmRun::tflops() const {
  if (gpu_seconds <= 0) return 0;
  return static_cast<double>(gemms) * flops_per_gemm / gpu_seconds / 1e12;
}

const GemmRun* GpuBurn::run(const std::string& precision) const {
  for (const auto& r : runs)
    if (r.precision == precision) return &r;
  return nullptr;
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

BurnVerdict analyse_burn(const std::vector<GpuBurn>& gpus, const BurnLimits& limits) {
  BurnVerdict verdict;
  if (gpus.empty()) verdict.failures.push_back("no GPU ran the burn");

  // Timed precisions in the order the GPUs ran them; the median of each over healthy GPUs.
  std::vector<std::string> precisions;
  std::vector<const GpuBurn*> healthy;
  for (const auto& g : gpus) {
    if (!g.error.empty()) continue;
    healthy.push_back(&g);
    for (const auto& r : g.runs)
      if (std::find(precisions.begin(), precisions.end(), r.precision) == precisions.end())
        precisions.push_back(r.precision);
  }
  for (const auto& p : precisions) {
    std::vector<double> rates;
    for (const GpuBurn* g : healthy) {
      const GemmRun* r = g->run(p);
      if (r && r->timed && r->gemms > 0) rates.push_back(r->tflops());
    }
    if (!rates.empty()) verdict.median_tflops[p] = median(rates);
  }
  verdict.headline = verdict.median_tflops.count(kBf16) ? kBf16 : kWmma;

  for (const auto& g : gpus) {
    std::string who = label_of(g);
    std::string line = who + " " + g.name + ":";
    if (!g.error.empty()) {
      verdict.failures.push_back(who + ": " + g.error);
      verdict.detail += line + " " + g.error + "\n";
      continue;
    }
    for (const auto& r : g.runs) {
      if (!r.timed) {
        line += " " + r.precision + " cross-check " + std::to_string(r.hashes.size()) + " GEMMs;";
      } else {
        line += " " + r.precision + " " + fixed1(r.tflops()) + " TFLOPS (" +
                std::to_string(r.gemms) + " GEMMs in " + fixed1(r.gpu_seconds) + "s);";
      }
      if (r.hashes.empty() || (r.timed && r.gemms == 0)) {
        verdict.failures.push_back(who + ": completed no " + r.precision + " GEMM");
        continue;
      }
      auto differing = static_cast<std::size_t>(
          std::count_if(r.hashes.begin(), r.hashes.end(),
                        [&](std::uint64_t h) { return h != r.hashes.front(); }));
      if (differing > 0) {
        verdict.failures.push_back(
            who + ": " + r.precision + " results differ between iterations in " +
            std::to_string(differing) + " of " + std::to_string(r.hashes.size()) +
            " GEMMs (silent data corruption)");
      }
      if (!r.timed) continue;
      double rate = r.tflops();
      if (healthy.size() > 1)
        judge_rate(who, r.precision, rate, verdict.median_tflops[r.precision], "the node median",
                   limits, verdict);
      if (const BurnBaseline* b = find_baseline(limits, g.name, r.precision))
        judge_rate(who, r.precision, rate, b->tflops, "the " + g.name + " baseline", limits,
                   verdict);
      if (limits.min_tflops > 0 && r.precision == verdict.headline && rate < limits.min_tflops)
        verdict.failures.push_back(who + ": " + r.precision + " " + fixed1(rate) +
                                   " TFLOPS is below the floor of " + fixed1(limits.min_tflops));
    }
    if (!line.empty() && line.back() == ';') line.pop_back();
    verdict.detail += line + "\n";
  }

  // The vote, per precision among GPUs of one model: other models run other algorithms.
  std::vector<std::string> models;
  for (const GpuBurn* g : healthy)
    if (std::find(models.begin(), models.end(), g->name) == models.end()) models.push_back(g->name);
  for (const auto& model : models) {
    std::vector<const GpuBurn*> same;
    for (const GpuBurn* g : healthy)
      if (g->name == model) same.push_back(g);
    for (const auto& p : precisions) vote_on(same, p, verdict);
  }

  if (verdict.median_tflops.count(verdict.headline))
    verdict.figure = fixed1(verdict.median_tflops[verdict.headline]) + " TFLOPS";
  std::string medians;
  for (const auto& p : precisions) {
    if (!verdict.median_tflops.count(p)) continue;
    medians += (medians.empty() ? "" : ", ") + p + " " + fixed1(verdict.median_tflops[p]);
  }
  std::string engine = gpus.empty() ? "" : gpus.front().engine;
  verdict.summary = std::to_string(gpus.size()) + " GPU" + (gpus.size() == 1 ? "" : "s") +
                    (engine.empty() ? "" : " (" + engine + ")") + ", median TFLOPS per GPU " +
                    medians + ", results bit-identical";
  return verdict;
}

}  // namespace pai::checks
