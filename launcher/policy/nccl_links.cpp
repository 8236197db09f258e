#include "launcher/policy/nccl_links.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace pai::launcher {

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string rate_text(double bytes_per_second) {
  char text[32];
  if (bytes_per_second >= 1e9) {
    std::snprintf(text, sizeof text, "%.1f GB/s", bytes_per_second / 1e9);
  } else {
    std::snprintf(text, sizeof text, "%.0f MB/s", bytes_per_second / 1e6);
  }
  return text;
}

}  // namespace

std::vector<NcclSlowNode> nccl_slow_nodes(const std::vector<NcclSend>& sends, double factor) {
  struct Link {
    int from;
    int to;
    double rate;
  };
  std::vector<Link> links;
  for (const NcclSend& s : sends) {
    if (s.node == s.peer_node || s.busy_us <= 0 || s.bytes <= 0) continue;
    links.push_back({s.node, s.peer_node, s.bytes / (s.busy_us / 1e6)});
  }
  std::map<int, std::vector<double>> touching;
  for (const Link& l : links) {
    touching[l.from].push_back(l.rate);
    touching[l.to].push_back(l.rate);
  }
  std::vector<NcclSlowNode> out;
  for (const auto& [node, rates] : touching) {
    if (rates.size() < 2) continue;
    std::vector<double> others;
    for (const Link& l : links) {
      if (l.from != node && l.to != node) others.push_back(l.rate);
    }
    if (others.size() < 2) continue;
    const double mine = median(rates);
    const double rest = median(others);
    if (mine * factor <= rest) {
      out.push_back({node, mine, rest, static_cast<int>(rates.size())});
    }
  }
  return out;
}

std::string nccl_evidence(const NcclSlowNode& slow, const std::string& node_name) {
  char ratio[32];
  std::snprintf(ratio, sizeof ratio, "%.1fx", slow.rate > 0 ? slow.others / slow.rate : 0);
  return "NCCL transfers to and from " + node_name + " run at " + rate_text(slow.rate) + ", " +
         ratio + " below the other links' median of " + rate_text(slow.others) + " (" +
         std::to_string(slow.links) + " links)";
}

}  // namespace pai::launcher
