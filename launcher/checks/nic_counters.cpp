#include "launcher/checks/nic_counters.h"

#include <unistd.h>

namespace pai::checks {

namespace {

constexpr std::uint64_t k32 = 1ull << 32;

}  // namespace

struct NicSampler::Open {
  int port_dir = -1;  // class/infiniband/<dev>/ports/<p>
  int counters = -1;
  int hw_counters = -1;
  int statistics = -1;  // class/net/<netdev>/statistics
  std::vector<std::string> counter_names;
  std::vector<std::string> hw_names;
  std::vector<std::string> statistic_names;

  ~Open() {
    for (int fd : {port_dir, counters, hw_counters, statistics}) {
      if (fd >= 0) ::close(fd);
    }
  }
};

NicSampler::NicSampler(SysfsRoot sys, std::vector<RdmaPort> ports, EthtoolStats* ethtool)
    : sys_(std::move(sys)), ports_(std::move(ports)), ethtool_(ethtool) {
  open_.resize(ports_.size());
  for (std::size_t i = 0; i < ports_.size(); ++i) open(i);
}

NicSampler::~NicSampler() = default;

void NicSampler::open(std::size_t i) {
  const RdmaPort& p = ports_[i];
  auto o = std::make_unique<Open>();
  const std::string dir = std::string(kInfinibandClass) + "/" + p.device + "/ports/" +
                          std::to_string(p.port);
  o->port_dir = sys_.open_dir(dir);
  o->counters = sys_.open_dir(dir + "/counters");
  o->hw_counters = sys_.open_dir(dir + "/hw_counters");
  o->counter_names = sys_.list(dir + "/counters");
  o->hw_names = sys_.list(dir + "/hw_counters");
  if (!p.netdev.empty()) {
    const std::string stats = "class/net/" + p.netdev + "/statistics";
    o->statistics = sys_.open_dir(stats);
    o->statistic_names = sys_.list(stats);
  }
  open_[i] = std::move(o);
}

std::vector<NicCounters> NicSampler::sample(std::int64_t now_ns) {
  std::vector<NicCounters> out;
  out.reserve(ports_.size());
  for (std::size_t i = 0; i < ports_.size(); ++i) {
    NicCounters c;
    c.port = ports_[i].name();
    c.netdev = ports_[i].netdev;
    c.time_ns = now_ns;
    auto state = open_[i]->port_dir >= 0 ? read_sysfs_at(open_[i]->port_dir, "state")
                                         : std::nullopt;
    if (!state) {
      // Gone (a driver reload removes and recreates the folders): try the paths again.
      open(i);
      state = open_[i]->port_dir >= 0 ? read_sysfs_at(open_[i]->port_dir, "state")
                                      : std::nullopt;
    }
    c.state = state ? sysfs_state_name(*state) : "";
    const Open& o = *open_[i];
    const auto read_all = [&](int fd, const std::vector<std::string>& names,
                              const std::string& source) {
      if (fd < 0) return;
      for (const std::string& name : names) {
        if (name == "lifespan") continue;  // a setting, not a counter
        const auto text = read_sysfs_at(fd, name);
        if (!text) continue;
        if (const auto value = parse_sysfs_counter(*text)) {
          c.values[source + "/" + name] = *value;
        } else {
          ++c.malformed;
        }
      }
    };
    read_all(o.counters, o.counter_names, "counters");
    read_all(o.hw_counters, o.hw_names, "hw_counters");
    read_all(o.statistics, o.statistic_names, "netdev");
    if (ethtool_ != nullptr && !c.netdev.empty()) {
      if (const auto pause = ethtool_->read(c.netdev, "pause")) {
        for (const auto& [name, value] : *pause) c.values["ethtool/" + name] = value;
      }
    }
    out.push_back(std::move(c));
  }
  return out;
}

NicWindow nic_window(const NicCounters& before, const NicCounters& after) {
  NicWindow w;
  w.port = after.port;
  w.netdev = after.netdev;
  w.state_before = before.state;
  w.state = after.state;
  if (after.time_ns <= before.time_ns) return w;
  w.seconds = static_cast<double>(after.time_ns - before.time_ns) / 1e9;
  for (const auto& [name, now] : after.values) {
    const auto it = before.values.find(name);
    if (it == before.values.end()) continue;
    const std::uint64_t then = it->second;
    std::uint64_t delta = 0;
    if (now >= then) {
      delta = now - then;
    } else if (then < k32 && now < k32 && then - now > k32 / 2) {
      delta = now + k32 - then;  // a 32-bit counter wrapped
    } else {
      w.reset.push_back(name);
      continue;
    }
    w.rates[name] = static_cast<double>(delta) / w.seconds;
  }
  return w;
}

}  // namespace pai::checks
