#include "launcher/policy/nic_verdict.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "libpai/nic_counter_kinds.h"

namespace pai::launcher {

namespace {

std::string rate_text(double rate) {
  char buf[32];
  if (rate >= 100) {
    std::snprintf(buf, sizeof buf, "%.0f", rate);
  } else {
    std::snprintf(buf, sizeof buf, "%.3g", rate);
  }
  return buf;
}

std::string bytes_text(double bytes_per_second) {
  char buf[32];
  if (bytes_per_second >= 1e9) {
    std::snprintf(buf, sizeof buf, "%.1f GB/s", bytes_per_second / 1e9);
  } else if (bytes_per_second >= 1e6) {
    std::snprintf(buf, sizeof buf, "%.1f MB/s", bytes_per_second / 1e6);
  } else {
    std::snprintf(buf, sizeof buf, "%.0f B/s", bytes_per_second);
  }
  return buf;
}

std::string port_name(const NicPortSample& s) {
  return s.netdev.empty() ? s.port : s.port + " (" + s.netdev + ")";
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// The port's bytes per second, both ways: the port's own data counters when it has them
// (RoCE traffic bypasses the kernel, so its netdev may not count it), else the netdev's.
std::optional<double> bytes_rate(const NicPortSample& s) {
  double port = 0;
  double netdev = 0;
  bool has_port = false;
  bool has_netdev = false;
  for (const auto& [key, rate] : s.rates) {
    const auto counter = find_nic_counter(key);
    if (!counter ||
        (counter->kind != NicCounterKind::TxBytes && counter->kind != NicCounterKind::RxBytes)) {
      continue;
    }
    if (counter->source == "netdev") {
      netdev += rate * counter->scale;
      has_netdev = true;
    } else {
      port += rate * counter->scale;
      has_port = true;
    }
  }
  if (has_port) return port;
  if (has_netdev) return netdev;
  return std::nullopt;
}

}  // namespace

std::optional<NicVerdict> NicWatch::sighting(int node, PortState& p, NicProblem problem, bool seen,
                                             int needed, const std::string& counter, double rate,
                                             const std::string& what) {
  int& run = p.runs[problem];
  bool& named = p.named[problem];
  if (!seen) {
    run = 0;
    named = false;  // seen clear: the episode is over
    return std::nullopt;
  }
  ++run;
  if (named || run < needed) return std::nullopt;
  named = true;
  NicVerdict v;
  v.node = node;
  v.port = p.latest.port;
  v.netdev = p.latest.netdev;
  v.problem = problem;
  v.counter = counter;
  v.rate = rate;
  v.critical = problem == NicProblem::Down || problem == NicProblem::Flapping ||
               problem == NicProblem::Errors;
  v.evidence = port_name(p.latest) + ": " + what;
  if (needed > 1) v.evidence += " for " + std::to_string(run) + " heartbeats";
  return v;
}

bool NicWatch::holds(const NicVerdict& verdict) const {
  const auto n = nodes_.find(verdict.node);
  if (n == nodes_.end()) return false;
  const auto p = n->second.ports.find(verdict.port);
  if (p == n->second.ports.end()) return false;
  const auto named = p->second.named.find(verdict.problem);
  return named != p->second.named.end() && named->second;
}

std::vector<NicVerdict> NicWatch::observe(int node, const std::vector<NicPortSample>& ports,
                                          bool in_collectives) {
  std::vector<NicVerdict> out;
  if (!settings_.enabled) return out;
  NodeState& n = nodes_[node];
  n.in_collectives = in_collectives;
  for (const NicPortSample& s : ports) {
    PortState& p = n.ports[s.port];
    const std::string before = p.state;
    p.latest = s;
    ++p.samples;
    if (!s.state.empty()) p.state = s.state;

    // Down: a port that was up and is not now (or is gone: its state cannot be read).
    const bool down = before == "ACTIVE" && s.state != "ACTIVE";
    const bool still_down = p.named[NicProblem::Down] && s.state != "ACTIVE";
    if (auto v = sighting(node, p, NicProblem::Down, down || still_down, 1, "state", 0,
                          s.state.empty() ? "its state cannot be read (the port is gone)"
                                          : "state " + s.state + " (was ACTIVE)")) {
      out.push_back(*v);
    }
    if (s.seconds <= 0) continue;

    // Flapping: the link went down and came back within the window.
    const auto flaps = s.rates.find("counters/link_downed");
    const double flap_rate = flaps == s.rates.end() ? 0 : flaps->second;
    const double flap_count = std::round(flap_rate * s.seconds);
    if (auto v = sighting(node, p, NicProblem::Flapping, flap_count >= 1, 1, "counters/link_downed",
                          flap_rate,
                          "counters/link_downed +" + rate_text(flap_count) + " in " +
                              rate_text(s.seconds) + " s")) {
      out.push_back(*v);
    }

    // Errors: the fastest-rising error counter over the threshold.
    std::string worst;
    double worst_rate = 0;
    for (const auto& [key, rate] : s.rates) {
      const auto counter = find_nic_counter(key);
      if (counter && counter->kind == NicCounterKind::Error && rate > worst_rate) {
        worst = key;
        worst_rate = rate;
      }
    }
    if (auto v = sighting(node, p, NicProblem::Errors, worst_rate > settings_.error_rate,
                          std::max(1, settings_.windows), worst, worst_rate,
                          worst + " +" + rate_text(worst_rate) + "/s")) {
      out.push_back(*v);
    }
  }
  return out;
}

std::vector<NicVerdict> NicWatch::judge_job() {
  std::vector<NicVerdict> out;
  if (!settings_.enabled) return out;
  struct Entry {
    int node;
    PortState* port;
  };
  std::vector<Entry> all;
  for (auto& [node, n] : nodes_) {
    for (auto& [name, p] : n.ports) {
      if (p.latest.seconds > 0) all.push_back({node, &p});
    }
  }
  const int needed = std::max(1, settings_.windows);

  // Congestion: each port's fastest congestion counter against the others' median of it.
  for (const Entry& e : all) {
    PortState& p = *e.port;
    if (p.judged == p.samples) continue;
    std::string worst;
    double worst_rate = 0;
    double worst_median = 0;
    for (const auto& [key, rate] : p.latest.rates) {
      const auto counter = find_nic_counter(key);
      if (!counter || counter->kind != NicCounterKind::Congestion) continue;
      std::vector<double> others;
      for (const Entry& o : all) {
        if (o.port == e.port) continue;
        const auto it = o.port->latest.rates.find(key);
        others.push_back(it == o.port->latest.rates.end() ? 0 : it->second);
      }
      if (others.empty()) continue;
      const double m = median(others);
      if (rate > settings_.congestion_min_rate && rate > settings_.congestion_factor * m &&
          rate > worst_rate) {
        worst = key;
        worst_rate = rate;
        worst_median = m;
      }
    }
    if (auto v =
            sighting(e.node, p, NicProblem::Congestion, !worst.empty(), needed, worst, worst_rate,
                     worst + " +" + rate_text(worst_rate) + "/s, the job's median " +
                         rate_text(worst_median) + "/s")) {
      out.push_back(*v);
    }
  }

  // Slow: bytes far below the median of the ports whose nodes' ranks sit in collectives too.
  for (const Entry& e : all) {
    PortState& p = *e.port;
    if (p.judged == p.samples) continue;
    const auto bytes = bytes_rate(p.latest);
    std::vector<double> others;
    for (const Entry& o : all) {
      if (o.port == e.port || !nodes_[o.node].in_collectives) continue;
      if (const auto b = bytes_rate(o.port->latest)) others.push_back(*b);
    }
    const double m = median(others);
    const bool slow = nodes_[e.node].in_collectives && bytes && others.size() >= 2 && m > 0 &&
                      *bytes < settings_.slow_fraction * m;
    if (auto v = sighting(e.node, p, NicProblem::Slow, slow, needed, "bytes", bytes.value_or(0),
                          "moves " + bytes_text(bytes.value_or(0)) +
                              " while its ranks sit in collectives, the job's median " +
                              bytes_text(m))) {
      out.push_back(*v);
    }
  }
  for (const Entry& e : all) e.port->judged = e.port->samples;
  return out;
}

void NicWatch::forget(int node) { nodes_.erase(node); }

}  // namespace pai::launcher
