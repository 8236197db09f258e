// What the kernel's TCP stack says about the connections of a rank's processes: smoothed
// round-trip time and retransmits, so that the coordinator can tell which node's links are
// slow (design §12, RankCommSlow). The sockets are found through /proc/PID/fd and matched by
// inode against one NETLINK_SOCK_DIAG dump of the established TCP connections (IPv4 and IPv6,
// loopback included).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace pai::launcher {

/// The TCP figures of one set of processes; both -1 when it holds no established TCP
/// connection or the kernel could not be asked (rtt_us also when it holds only the store's,
/// see tcp_figures).
struct TcpFigures {
  /// Median of its active connections' smoothed RTT (tcpi_rtt), µs: those that sent data at
  /// most the spread (tcp_figures) before its latest send
  std::int64_t rtt_us = -1;
  std::int64_t retrans = -1;  ///< its connections' retransmitted segments (tcpi_total_retrans)
  /// Per remote address ("10.0.0.3", "fd00::3"): the median smoothed RTT of the connections to
  /// it (the same connections as rtt_us's), µs. Connections whose two ends have the same
  /// address (between processes of one node) are left out: they say nothing about the node's
  /// links.
  std::map<std::string, std::int64_t> peer_rtt_us;
  /// The remote addresses (as in peer_rtt_us, sorted) of connections waiting out a
  /// retransmission timeout (tcpi_backoff > 0): nothing they sent has been acknowledged for a
  /// while, recent or not.
  std::vector<std::string> stalled_peers;
};

/// Processes one set may name, and sockets and descriptors looked at per set: a rank whose
/// workers hold thousands of descriptors costs a bounded number of readlink calls.
constexpr std::size_t kTcpMaxProcesses = 64;
constexpr std::size_t kTcpMaxSockets = 256;
constexpr std::size_t kTcpMaxDescriptors = 4096;
/// The default spread of a set's active connections: those that sent data at most this many
/// milliseconds before its latest send give its figures (tcp_figures).
constexpr std::uint32_t kTcpActiveSpreadMs = 2000;

/// A rank's processes: those listed in `cgroup_dir`/cgroup.procs (at most kTcpMaxProcesses),
/// or `pid` alone when `cgroup_dir` is empty or lists none.
std::vector<int> rank_processes(const std::string& cgroup_dir, int pid);

/// The figures of each set of processes in `process_sets`, in order: the established TCP
/// connections whose sockets the set's processes hold (at most kTcpMaxSockets sockets from at
/// most kTcpMaxDescriptors descriptors per set). One dump per address family serves every
/// set. Never throws: processes that are gone or unreadable hold nothing, and a failed query
/// gives -1 figures. Connections from or to port `store_port` (> 0: the job's rendezvous
/// store, MASTER_PORT) give no RTT (rtt_us, peer_rtt_us): their traffic is a burst at the
/// start, and the RTT it leaves, measured while every rank was starting, says nothing of the
/// links collectives use; it named the master's node slow. They still count for retransmits
/// and stalls. The RTTs are of each set's active connections, those that sent data at most
/// `active_spread_ms` before its latest send: a connection idle since (a broadcast at the
/// start, to a peer the ring does not send to) keeps the RTT it measured then.
std::vector<TcpFigures> tcp_figures(const std::vector<std::vector<int>>& process_sets,
                                    int store_port = 0,
                                    std::uint32_t active_spread_ms = kTcpActiveSpreadMs);

}  // namespace pai::launcher
