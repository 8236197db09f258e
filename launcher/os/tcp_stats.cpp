#include "launcher/os/tcp_stats.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>

namespace pai::launcher {
namespace {

// The inode of a descriptor's link "socket:[N]"; 0 for anything else.
std::uint64_t socket_inode(std::string_view link) {
  constexpr std::string_view prefix = "socket:[";
  if (!link.starts_with(prefix) || !link.ends_with(']')) return 0;
  std::uint64_t inode = 0;
  const char* first = link.data() + prefix.size();
  const char* last = link.data() + link.size() - 1;
  const auto [end, error] = std::from_chars(first, last, inode);
  return error == std::errc() && end == last ? inode : 0;
}

// The socket inodes `processes` hold, within the per-set bounds.
std::vector<std::uint64_t> socket_inodes(const std::vector<int>& processes) {
  std::vector<std::uint64_t> inodes;
  std::size_t looked = 0;
  const std::size_t count = std::min(processes.size(), kTcpMaxProcesses);
  const auto full = [&] { return looked >= kTcpMaxDescriptors || inodes.size() >= kTcpMaxSockets; };
  for (std::size_t p = 0; p < count && !full(); ++p) {
    if (processes[p] <= 0) continue;
    const std::string dir = "/proc/" + std::to_string(processes[p]) + "/fd";
    DIR* fds = ::opendir(dir.c_str());
    if (fds == nullptr) continue;  // gone, or not ours to look at
    while (const dirent* entry = ::readdir(fds)) {
      if (entry->d_name[0] == '.') continue;
      if (full()) break;
      ++looked;
      char link[64];
      const ssize_t n = ::readlinkat(::dirfd(fds), entry->d_name, link, sizeof link);
      if (n <= 0) continue;
      if (const std::uint64_t inode = socket_inode({link, static_cast<std::size_t>(n)})) {
        inodes.push_back(inode);
      }
    }
    ::closedir(fds);
  }
  return inodes;
}

// Closes the descriptor when the scope ends.
struct Socket {
  int fd = -1;
  ~Socket() {
    if (fd >= 0) ::close(fd);
  }
};

// The median of `values`, which must not be empty; sorts them.
std::int64_t median(std::vector<std::uint32_t>& values) {
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid]
                                : (std::int64_t{values[mid - 1]} + std::int64_t{values[mid]}) / 2;
}

// The remote address of a diag message, an IPv4-mapped IPv6 one as IPv4 ("10.0.0.3", as the
// plan names hosts); "" when both ends have the same address.
std::string remote_address(const inet_diag_msg& msg) {
  const std::size_t bytes = msg.idiag_family == AF_INET ? 4 : 16;
  if (std::memcmp(msg.id.idiag_src, msg.id.idiag_dst, bytes) == 0) return "";
  int family = msg.idiag_family;
  const void* address = msg.id.idiag_dst;
  in6_addr v6{};
  std::memcpy(&v6, msg.id.idiag_dst, sizeof v6);
  if (family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(&v6)) {
    family = AF_INET;
    address = &msg.id.idiag_dst[3];
  }
  char text[INET6_ADDRSTRLEN] = {};
  if (::inet_ntop(family, address, text, sizeof text) == nullptr) return "";
  return text;
}

// Calls `each(msg, info)` for every established TCP socket of `family` in this network
// namespace; false when the kernel could not be asked or the dump broke off.
template <class Each>
bool dump_established(int family, Each each) {
  Socket diag;
  diag.fd = ::socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
  if (diag.fd < 0) return false;
  // The kernel answers a dump at once; the bound only keeps a heartbeat from ever waiting.
  const timeval patience{1, 0};
  ::setsockopt(diag.fd, SOL_SOCKET, SO_RCVTIMEO, &patience, sizeof patience);
  struct {
    nlmsghdr header;
    inet_diag_req_v2 request;
  } query{};
  query.header.nlmsg_len = sizeof query;
  query.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
  query.header.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  query.request.sdiag_family = static_cast<std::uint8_t>(family);
  query.request.sdiag_protocol = IPPROTO_TCP;
  query.request.idiag_states = 1u << TCP_ESTABLISHED;
  query.request.idiag_ext = 1u << (INET_DIAG_INFO - 1);
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  if (::sendto(diag.fd, &query, sizeof query, 0, reinterpret_cast<const sockaddr*>(&kernel),
               sizeof kernel) != static_cast<ssize_t>(sizeof query)) {
    return false;
  }
  alignas(nlmsghdr) char buffer[32768];
  for (;;) {
    ssize_t left = ::recv(diag.fd, buffer, sizeof buffer, 0);
    if (left < 0 && errno == EINTR) continue;
    if (left <= 0) return false;
    for (auto* h = reinterpret_cast<nlmsghdr*>(buffer); NLMSG_OK(h, left);
         h = NLMSG_NEXT(h, left)) {
      if (h->nlmsg_type == NLMSG_DONE) return true;
      if (h->nlmsg_type == NLMSG_ERROR) return false;
      if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
          h->nlmsg_len < NLMSG_LENGTH(sizeof(inet_diag_msg))) {
        continue;
      }
      auto* msg = static_cast<inet_diag_msg*>(NLMSG_DATA(h));
      auto attributes = static_cast<int>(h->nlmsg_len - NLMSG_LENGTH(sizeof *msg));
      for (auto* a = reinterpret_cast<rtattr*>(msg + 1); RTA_OK(a, attributes);
           a = RTA_NEXT(a, attributes)) {
        if (a->rta_type != INET_DIAG_INFO) continue;
        // An older kernel sends a shorter tcp_info; the fields read here are in every one.
        tcp_info info{};
        std::memcpy(&info, RTA_DATA(a), std::min<std::size_t>(RTA_PAYLOAD(a), sizeof info));
        each(*msg, info);
      }
    }
  }
}

}  // namespace

std::vector<int> rank_processes(const std::string& cgroup_dir, int pid) {
  std::vector<int> processes;
  if (!cgroup_dir.empty()) {
    std::ifstream procs(cgroup_dir + "/cgroup.procs");
    int each = 0;
    while (processes.size() < kTcpMaxProcesses && procs >> each) processes.push_back(each);
  }
  if (processes.empty()) processes.push_back(pid);
  return processes;
}

std::vector<TcpFigures> tcp_figures(const std::vector<std::vector<int>>& process_sets,
                                    int store_port, std::uint32_t active_spread_ms) {
  std::vector<TcpFigures> figures(process_sets.size());
  // A socket two sets share (a descriptor inherited across ranks) counts for the first.
  std::unordered_map<std::uint64_t, std::size_t> owner;
  for (std::size_t s = 0; s < process_sets.size(); ++s) {
    for (const std::uint64_t inode : socket_inodes(process_sets[s])) owner.emplace(inode, s);
  }
  if (owner.empty()) return figures;
  // The connections of each set: a connection that has sent nothing for a while keeps the RTT
  // it last measured, however the link has changed since (a receiving end of a ring
  // all-reduce measures none), so the figures take those that sent data at most
  // `active_spread_ms` before the set's latest send.
  struct Connection {
    std::uint32_t rtt_us = 0;
    std::uint32_t last_sent_ms = 0;
    std::string peer;  // "" between equal addresses
  };
  struct Set {
    std::vector<Connection> connections;
    std::set<std::string> stalled;
    bool held = false;  // any connection, the store's too
    std::int64_t retrans = 0;
  };
  std::vector<Set> sets(process_sets.size());
  const auto take = [&](const inet_diag_msg& msg, const tcp_info& info) {
    const auto it = owner.find(msg.idiag_inode);
    if (it == owner.end()) return;
    Set& set = sets[it->second];
    set.held = true;
    set.retrans += info.tcpi_total_retrans;
    std::string peer = remote_address(msg);
    if (!peer.empty() && info.tcpi_backoff > 0) set.stalled.insert(peer);
    const bool store = store_port > 0 && (ntohs(msg.id.idiag_sport) == store_port ||
                                          ntohs(msg.id.idiag_dport) == store_port);
    if (store) return;
    set.connections.push_back({info.tcpi_rtt, info.tcpi_last_data_sent, std::move(peer)});
  };
  // A family the kernel cannot dump (IPv6 disabled) holds none of the sets' connections.
  dump_established(AF_INET, take);
  dump_established(AF_INET6, take);
  for (std::size_t s = 0; s < process_sets.size(); ++s) {
    const Set& set = sets[s];
    if (!set.held) continue;
    figures[s].retrans = set.retrans;
    figures[s].stalled_peers.assign(set.stalled.begin(), set.stalled.end());
    if (set.connections.empty()) continue;  // the store's connections alone
    std::uint32_t latest = std::numeric_limits<std::uint32_t>::max();
    for (const Connection& c : set.connections) latest = std::min(latest, c.last_sent_ms);
    std::vector<std::uint32_t> active;
    std::map<std::string, std::vector<std::uint32_t>> by_peer;
    for (const Connection& c : set.connections) {
      if (c.last_sent_ms - latest > active_spread_ms) continue;
      active.push_back(c.rtt_us);
      if (!c.peer.empty()) by_peer[c.peer].push_back(c.rtt_us);
    }
    figures[s].rtt_us = median(active);
    for (auto& [peer, rtt] : by_peer) figures[s].peer_rtt_us.emplace(peer, median(rtt));
  }
  return figures;
}

}  // namespace pai::launcher
