#include "launcher/checks/nic_counters.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "libpai/nic_counter_kinds.h"

namespace pai::checks {

namespace {

constexpr std::uint64_t k32 = 1ull << 32;

// One read of the open attribute `fd` from its start; nullopt on an error or a value longer
// than an attribute can be.
std::optional<std::string> pread_attribute(int fd) {
  char buf[64];
  ssize_t n;
  do {
    n = ::pread(fd, buf, sizeof buf, 0);
  } while (n < 0 && errno == EINTR);
  if (n < 0 || n == static_cast<ssize_t>(sizeof buf)) return std::nullopt;
  std::size_t len = static_cast<std::size_t>(n);
  while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' ')) --len;
  return std::string(buf, len);
}

}  // namespace

struct NicSampler::Open {
  int port_dir = -1;                                  // class/infiniband/<dev>/ports/<p>
  std::vector<std::pair<std::string, int>> counters;  // "<source>/<name>", its open file

  ~Open() {
    if (port_dir >= 0) ::close(port_dir);
    for (const auto& [key, fd] : counters) ::close(fd);
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
  const std::string dir =
      std::string(kInfinibandClass) + "/" + p.device + "/ports/" + std::to_string(p.port);
  o->port_dir = sys_.open_dir(dir);
  for (const NicCounter& c : nic_counters()) {
    std::string folder;
    if (c.source == "netdev") {
      if (p.netdev.empty()) continue;
      folder = "class/net/" + p.netdev + "/statistics";
    } else {
      folder = dir + "/" + std::string(c.source);
    }
    const int fd = sys_.open_file(folder + "/" + std::string(c.name));
    if (fd >= 0) o->counters.emplace_back(std::string(c.source) + "/" + std::string(c.name), fd);
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
    auto state =
        open_[i]->port_dir >= 0 ? read_sysfs_at(open_[i]->port_dir, "state") : std::nullopt;
    if (!state) {
      // Gone (a driver reload removes and recreates the folders): try the paths again.
      open(i);
      state = open_[i]->port_dir >= 0 ? read_sysfs_at(open_[i]->port_dir, "state") : std::nullopt;
    }
    c.state = state ? sysfs_state_name(*state) : "";
    if (state) {
      for (const auto& [key, fd] : open_[i]->counters) {
        const auto text = pread_attribute(fd);
        if (!text) continue;
        if (const auto value = parse_sysfs_counter(*text)) {
          c.values.emplace_hint(c.values.end(), key, *value);
        } else {
          ++c.malformed;
        }
      }
    }
    if (ethtool_ != nullptr && !c.netdev.empty()) {
      if (const auto pause = ethtool_->read(c.netdev, "pause")) {
        for (const auto& [name, value] : *pause) {
          const std::string key = "ethtool/" + name;
          if (find_nic_counter(key)) c.values[key] = value;
        }
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
    w.deltas[name] = delta;
  }
  return w;
}

std::map<std::string, double> nic_rates(const NicWindow& window) {
  std::map<std::string, double> rates;
  if (window.seconds <= 0) return rates;
  for (const auto& [name, delta] : window.deltas) {
    rates[name] = static_cast<double>(delta) / window.seconds;
  }
  return rates;
}

}  // namespace pai::checks
