#include "launcher/coordinator/job_metrics.h"

#include <algorithm>
#include <cstdlib>

#include "launcher/policy/failure_classifier.h"

namespace pai::launcher::coordinator {

namespace {

// Label values from the outside (patterns, check names) are cut here: a label is for grouping.
constexpr std::size_t kMaxLabelBytes = 64;

std::string label_text(std::string text) {
  if (text.size() > kMaxLabelBytes) text.resize(kMaxLabelBytes);
  return text;
}

// "SIGKILL" for "9" (the number itself, as written, when it has no common name).
std::string signal_label(const std::string& number) {
  char* end = nullptr;
  const long n = std::strtol(number.c_str(), &end, 10);
  if (end == number.c_str() || *end != '\0' || n <= 0 || n > 64) return label_text(number);
  const std::string name = signal_name(static_cast<int>(n));
  return name.rfind("SIG", 0) == 0 ? name : label_text(number);
}

// Adds `n` to `key` in `counts`, or to `overflow` once the map holds kMaxLabelSets keys.
template <class Key>
void count(std::map<Key, std::uint64_t>& counts, const Key& key, const Key& overflow,
           std::uint64_t n = 1) {
  auto it = counts.find(key);
  if (it != counts.end()) {
    it->second += n;
  } else if (counts.size() < kMaxLabelSets) {
    counts.emplace(key, n);
  } else {
    counts[overflow] += n;
  }
}

const std::string* string_field(const nlohmann::json& fields, const char* key) {
  if (!fields.is_object()) return nullptr;
  auto it = fields.find(key);
  if (it == fields.end() || !it->is_string()) return nullptr;
  return it->get_ptr<const std::string*>();
}

}  // namespace

RestartCause restart_cause(const std::string& signature) {
  if (signature.empty()) return {"unknown", ""};
  const std::size_t colon = signature.find(':');
  if (colon == std::string::npos) return {label_text(signature), ""};
  const std::string kind = signature.substr(0, colon);
  const std::string rest = signature.substr(colon + 1);
  if (kind == "exit") return {"exit-code", label_text(rest)};
  if (kind == "signal") return {"signal", signal_label(rest)};
  if (kind == "pattern") return {"log-pattern", label_text(rest)};
  return {label_text(kind), label_text(rest)};
}

void JobMetrics::recorded(const journal::Event& event) {
  if (const auto* restart = std::get_if<journal::Restart>(&event)) {
    RestartCause cause = restart_cause(restart->signature.value_or(""));
    RestartCause overflow{cause.reason, "other"};
    count(restarts_, cause, overflow);
    ++restarts_total_;
    job_restarts_.add(*restart);
  } else if (const auto* join = std::get_if<journal::Join>(&event)) {
    count_checks(join->checks);
  } else if (const auto* checks = std::get_if<journal::Checks>(&event)) {
    count_checks(checks->checks);
  } else if (const auto* verdict = std::get_if<journal::Diagnosis>(&event)) {
    count(verdicts_, std::make_pair(label_text(verdict->cls), label_text(verdict->severity)),
          std::make_pair(std::string("other"), label_text(verdict->severity)));
  } else if (const auto* idle = std::get_if<journal::GpuIdle>(&event)) {
    count(gpu_idle_verdicts_, label_text(idle->node), std::string("other"));
  } else if (const auto* nic = std::get_if<journal::Nic>(&event)) {
    count(nic_verdicts_, std::make_pair(label_text(nic->node), label_text(nic->problem)),
          std::make_pair(std::string("other"), label_text(nic->problem)));
  }
}

void JobMetrics::count_checks(const journal::RawJson& checks) {
  // The protocol checked them; a journal event made by hand may hold anything.
  const nlohmann::json list = nlohmann::json::parse(checks.text, nullptr, false);
  if (!list.is_array()) return;
  for (const auto& check : list) {
    const std::string* name = string_field(check, "name");
    const std::string* status = string_field(check, "status");
    if (name == nullptr || status == nullptr) continue;
    count(check_runs_, std::make_pair(label_text(*name), label_text(*status)),
          std::make_pair(std::string("other"), label_text(*status)));
  }
}

void JobMetrics::alive(int node, Clock::time_point now) {
  if (node < 0) return;
  const auto k = static_cast<std::size_t>(node);
  if (heartbeats_.size() <= k) heartbeats_.resize(k + 1);
  heartbeats_[k] = now;
}

void JobMetrics::heartbeat(const net::NodeHeartbeat& message) {
  for (const net::HeartbeatInstance& instance : message.instances) {
    if (instance.instance < 0) continue;
    const auto i = static_cast<std::size_t>(instance.instance);
    if (instance_steps_.size() <= i) instance_steps_.resize(i + 1);
    // A launcher says -1 until the instance reported progress.
    if (instance.step >= 0) instance_steps_[i] = instance.step;
    for (const net::RankTelemetry& t : instance.telemetry) {
      if (t.rank < 0) continue;
      const auto r = static_cast<std::size_t>(t.rank);
      if (ranks_.size() <= r) ranks_.resize(r + 1);
      RankSteps& rank = ranks_[r];
      rank.reported = true;
      rank.step = t.step;
      rank.comm_us += t.comm_us;
      if (t.steps <= 0) continue;
      // A window says how many steps ended and their summed time, not each step's: they are
      // counted in the bucket of their mean (exact when a window holds one step).
      const double mean_seconds =
          static_cast<double>(t.step_us) / 1e6 / static_cast<double>(t.steps);
      const auto bound = std::lower_bound(kStepBuckets.begin(), kStepBuckets.end(), mean_seconds);
      rank.buckets[static_cast<std::size_t>(bound - kStepBuckets.begin())] +=
          static_cast<std::uint64_t>(t.steps);
      rank.count += static_cast<std::uint64_t>(t.steps);
      rank.step_us += t.step_us;
      step_us_total_ += t.step_us;
    }
  }
}

std::optional<std::int64_t> JobMetrics::instance_step(int i) const {
  if (i < 0 || static_cast<std::size_t>(i) >= instance_steps_.size()) return std::nullopt;
  return instance_steps_[static_cast<std::size_t>(i)];
}

std::optional<JobMetrics::Clock::time_point> JobMetrics::last_heartbeat(int node) const {
  if (node < 0 || static_cast<std::size_t>(node) >= heartbeats_.size()) return std::nullopt;
  return heartbeats_[static_cast<std::size_t>(node)];
}

}  // namespace pai::launcher::coordinator
