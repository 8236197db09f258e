#include "launcher/node/sysfs_nic_telemetry.h"

#include <time.h>

#include <algorithm>

#include "libpai/nic_counter_kinds.h"

namespace pai::launcher {

namespace {

std::int64_t monotonic_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

bool is_bytes(const std::string& key) {
  const auto counter = find_nic_counter(key);
  return counter &&
         (counter->kind == NicCounterKind::TxBytes || counter->kind == NicCounterKind::RxBytes);
}

}  // namespace

net::NicPort nic_port_of(const checks::NicWindow& window, bool first) {
  net::NicPort port{.port = window.port,
                    .netdev = window.netdev,
                    .state = window.state,
                    .window_ms = first ? 0 : static_cast<std::int64_t>(window.seconds * 1000),
                    .counters = {}};
  if (first) return port;
  for (const auto& [key, delta] : window.deltas) {
    if (delta == 0 && !is_bytes(key)) continue;
    const auto clamped = static_cast<std::int64_t>(std::min<std::uint64_t>(delta, INT64_MAX));
    port.counters.push_back({key, clamped});
  }
  if (port.counters.size() > net::kMaxNicCounters) {
    std::stable_sort(port.counters.begin(), port.counters.end(),
                     [](const net::NicCounterDelta& a, const net::NicCounterDelta& b) {
                       return is_bytes(a.counter) > is_bytes(b.counter) ||
                              (is_bytes(a.counter) == is_bytes(b.counter) && a.delta > b.delta);
                     });
    port.counters.resize(net::kMaxNicCounters);
  }
  return port;
}

SysfsNicTelemetry::SysfsNicTelemetry(const Plan& plan) {
  if (plan.fabric.type != FabricType::Roce && plan.fabric.type != FabricType::Ib) return;
  const checks::SysfsRoot sys = checks::SysfsRoot::from_env();
  const int gid_index = plan.fabric.type == FabricType::Roce ? plan.fabric.gid_index : -1;
  auto ports = checks::job_rdma_ports(sys, plan.fabric.hcas, gid_index);
  if (ports.size() > net::kMaxNicPorts) ports.resize(net::kMaxNicPorts);
  if (ports.empty()) return;
  sampler_ = std::make_unique<checks::NicSampler>(sys, std::move(ports), &ethtool_);
}

std::vector<net::NicPort> SysfsNicTelemetry::window() {
  std::vector<net::NicPort> out;
  if (!sampler_) return out;
  std::vector<checks::NicCounters> now = sampler_->sample(monotonic_ns());
  const bool first = previous_.size() != now.size();
  for (std::size_t i = 0; i < now.size(); ++i) {
    const checks::NicWindow w =
        first ? checks::nic_window(now[i], now[i]) : checks::nic_window(previous_[i], now[i]);
    out.push_back(nic_port_of(w, first));
  }
  previous_ = std::move(now);
  return out;
}

}  // namespace pai::launcher
