#include "launcher/coordinator/job_nic.h"

#include "libpai/nic_counter_kinds.h"

namespace pai::launcher::coordinator {

namespace {

constexpr auto kDecideEvery = std::chrono::seconds(1);

NicVerdictSettings settings_of(const NicDiagnosis& nic, bool diagnosis_enabled) {
  NicVerdictSettings s;
  s.enabled = diagnosis_enabled && nic.enabled;
  s.error_rate = nic.error_rate;
  s.congestion_factor = nic.congestion_factor;
  s.congestion_min_rate = nic.congestion_min_rate;
  s.slow_fraction = nic.slow_fraction;
  s.windows = nic.windows;
  return s;
}

}  // namespace

NicPortSample nic_sample(const net::NicPort& port) {
  NicPortSample s{.port = port.port,
                  .netdev = port.netdev,
                  .state = port.state,
                  .seconds = static_cast<double>(port.window_ms) / 1000.0,
                  .rates = {}};
  if (s.seconds <= 0) return s;
  for (const net::NicCounterDelta& c : port.counters) {
    const auto counter = find_nic_counter(c.counter);
    if (!counter) continue;
    // Byte counters are kept in their own units: the policy scales them (NicCounter::scale).
    s.rates[c.counter] = static_cast<double>(c.delta) / s.seconds;
  }
  return s;
}

JobNic::JobNic(const CoordinatorState& state)
    : state_(state),
      watch_(settings_of(state.plan.fault_tolerance.diagnosis.nic,
                         state.plan.fault_tolerance.diagnosis.enabled)) {}

std::vector<NicVerdict> JobNic::observe(int node, const std::vector<net::NicPort>& ports,
                                        bool in_collectives, Clock::time_point) {
  if (ports.empty()) return {};
  observed_ = true;
  std::vector<NicPortSample> samples;
  samples.reserve(ports.size());
  for (const net::NicPort& p : ports) samples.push_back(nic_sample(p));
  std::vector<NicVerdict> verdicts = watch_.observe(node, samples, in_collectives);
  for (const NicVerdict& v : verdicts) latest_[node] = v.evidence;
  return verdicts;
}

std::vector<NicVerdict> JobNic::decide(Clock::time_point now) {
  if (!observed_ || (last_decided_ && now < *last_decided_ + kDecideEvery)) return {};
  last_decided_ = now;
  std::vector<NicVerdict> verdicts = watch_.judge_job();
  for (const NicVerdict& v : verdicts) latest_[v.node] = v.evidence;
  return verdicts;
}

std::optional<Clock::time_point> JobNic::next_due() const {
  if (!observed_ || !watch_.settings().enabled) return std::nullopt;
  if (!last_decided_) return Clock::time_point{};
  return *last_decided_ + kDecideEvery;
}

void JobNic::forget(int node) {
  watch_.forget(node);
  latest_.erase(node);
}

std::string JobNic::evidence(int node) const {
  const auto it = latest_.find(node);
  if (it == latest_.end()) return "";
  return state_.nodes[static_cast<std::size_t>(node)].name + " " + it->second;
}

journal::Nic JobNic::record(const NicVerdict& v) const {
  return journal::Nic{.node = state_.nodes[static_cast<std::size_t>(v.node)].name,
                      .port = v.port,
                      .netdev = v.netdev,
                      .problem = to_string(v.problem),
                      .counter = v.counter,
                      .rate = v.rate,
                      .evidence = v.evidence,
                      .severity = v.critical ? "critical" : "warning"};
}

std::string JobNic::line(const NicVerdict& v) const {
  return std::string("nic (") + (v.critical ? "critical" : "warning") +
         "): " + state_.nodes[static_cast<std::size_t>(v.node)].name + " " + v.evidence;
}

}  // namespace pai::launcher::coordinator
