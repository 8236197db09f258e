// Knowing the culprit (design §12): from the ranks' per-window telemetry summaries, name the
// rank, node or link that hangs or slows the job.
//
// A pure decider: samples and the time come in, verdicts go out. The coordinator feeds it what
// the launchers send each second and acts on its verdicts (warn or isolate).
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "launcher/policy/nccl_links.h"
#include "libpai/enum_names.h"

namespace pai::launcher {

/// One rank's summary of one heartbeat window, built by its launcher from the rank's telemetry
/// ring (include/pai/telemetry.h), world-group collectives only.
struct RankSample {
  int rank = 0;                   ///< global rank
  int node = 0;                   ///< the coordinator's index of the rank's node
  std::string node_name;          ///< for evidence text
  int gpu = -1;                   ///< local GPU index on that node; -1 unknown
  std::int64_t step = -1;         ///< last step seen in a record; -1 none
  std::int64_t steps = 0;         ///< steps ended in the window
  std::int64_t step_us = 0;       ///< their summed duration
  std::int64_t window_us = 0;     ///< the window's length
  std::int64_t comm_us = 0;       ///< time in the window with a world-group collective open
  std::int64_t entered = 0;       ///< highest collective sequence number entered (1, 2, ...)
  std::int64_t exited = 0;        ///< largest n such that collectives 1..n all exited
  std::int64_t open_ms = -1;      ///< age of the oldest open collective (exited + 1); -1 none
  int open_op = 0;                ///< that collective's enum pai_telemetry_op; 0 none
  std::int64_t quiet_ms = -1;     ///< since the rank's last record; -1 it never wrote one
  std::int64_t tcp_rtt_us = -1;   ///< median smoothed RTT of its TCP connections; -1 unknown
  std::int64_t tcp_retrans = -1;  ///< retransmitted segments of those, cumulative; -1 unknown
  /// Nodes (coordinator indexes) that its TCP connections are much slower to than to its
  /// other peers (launcher/policy/tcp_slow_peers.h); at most kMaxSlowPeers
  std::vector<int> slow_peer_nodes = {};
  /// Nodes that its connections wait on for a retransmission timeout (nothing acknowledged
  /// for a while); at most kMaxSlowPeers
  std::vector<int> stalled_peer_nodes = {};
  /// Its NCCL sends in the world communicator in the window (pai's NCCL profiler plugin),
  /// each to the node of the receiving rank: the link evidence on RDMA fabrics, where no TCP
  /// connection carries the traffic (nccl_links.h)
  std::vector<NcclSend> nccl_sends = {};
};

/// What is wrong. A hang stops the job; a slow rank or link only costs it time.
enum class DiagnosisClass { RankNonCommHang, RankCommHang, RankNonCommSlow, RankCommSlow };
/// How urgent a verdict is: slow verdicts warn, hang verdicts are critical.
enum class Severity { Warning, Critical };

/// One verdict.
struct Diagnosis {
  DiagnosisClass cls = DiagnosisClass::RankNonCommHang;
  int rank = -1;  ///< the culprit rank; -1 when a node or link is named, or nobody
  int node = -1;  ///< the culprit's node index; -1 unknown
  std::string node_name;
  int gpu = -1;  ///< the culprit rank's local GPU; -1 unknown or a node verdict
  /// One sentence for the terminal naming rank, node, GPU, the collective (#seq and op),
  /// durations and steps: "rank 5 (node-1, GPU 1) never entered all_reduce #152 that 7 ranks
  /// have waited in for 31 s; its last step was 50, its last record 33 s ago".
  std::string evidence;
  Severity severity = Severity::Critical;
  /// A RankCommHang that names nobody although connections stalled: the nodes at their ends,
  /// one of which loses packets (ascending). Empty otherwise.
  std::vector<int> suspect_nodes = {};
};

/// The rules' settings; the four named in the spec's `diagnosis` section keep its names and
/// defaults, the others are fixed by design.
struct DiagnosisSettings {
  /// A collective open this long is hung (seconds); 0 or less turns the hang rules off.
  std::int64_t hang_seconds = 60;
  /// A rank whose compute share of the window is this many times the others' median is slow.
  double slow_factor = 1.2;
  /// Consecutive windows a slow rank or link must be seen before it is named, and that it must
  /// be seen clear before it can be named again (at least 1).
  int slow_windows = 5;
  /// A node whose TCP RTT is this many times the other nodes' median is the slow link.
  double rtt_factor = 3;
  /// A sample older than this many of its own windows is stale (at least 1).
  int stale_windows = 3;
  /// A slow rank's compute share must also exceed the others' median by this share of a
  /// window: a factor of a tiny compute share is noise, and costs the job nothing.
  double min_excess_share = 0.05;
  /// A slow link needs the ranks' median share of the window in collectives to be this high.
  double comm_share = 0.5;
  /// A slow link's RTT must also exceed the other nodes' median by this many microseconds.
  std::int64_t min_rtt_excess_us = 1000;
};

/// Names culprits from RankSamples. Single-threaded; no clock of its own: times come in.
///
/// Samples. observe() keeps each rank's latest sample and ignores a malformed one (returns
/// false): a rank outside 0..world_size-1, a negative node, a field below its "none" value
/// (-1 for step, gpu, open_ms, quiet_ms, tcp_*; 0 for the others; window_us must be positive),
/// a field above 10^15, comm_us > window_us, exited > entered, open_ms >= 0 with nothing open
/// (entered == exited), or records (entered, steps, step) without a last record (quiet_ms -1).
/// A rank that never wrote a record (quiet_ms -1) has no telemetry, as in a job without the
/// SDK: it is never named and never counted as a waiter. A sample is stale once older than
/// stale_windows of its window.
///
/// Hang rules, judged at decide(now), where a collective has been open for
/// open_ms + (now - received). The waiters are the ranks with a collective open for at least
/// hang_seconds, at least one of them fresh (a gap in the coordinator's own input is no hang);
/// N is the lowest sequence number they wait in.
///  * RankNonCommHang: ranks outside any collective that have not entered N (entered < N);
///    of those, the ones furthest behind (lowest entered) are named, each once. Stale data may
///    name them (a wedged node stops sending): the evidence then says so.
///  * RankCommHang: every rank of the world has N, or a later collective, open for at least
///    hang_seconds (a message lost on its way to the ranks still in N leaves the others, who
///    completed N, waiting in N + 1; the hang is then keyed by the newest). It names the
///    one node at an end of every stalled connection (stalled_peer_nodes, two connections or
///    more); else the node that more than half of the other nodes' stalled connections lead
///    to; else the node whose TCP retransmits grew most since its ranks were first seen in
///    their collective, if by at least twice any other node's growth; else the one node whose
///    RTT is an outlier (as for RankCommSlow); else nobody (rank and node -1), saying no rank
///    is behind. A hang that named nobody is reported again when later evidence names a node.
/// No hang rule fires while every rank is outside collectives (an evaluation phase or a
/// job-wide stall are the job-wide hang detector's business). Each hang is reported once per
/// (class, rank, collective N); the episode ends when some rank exits N, or at reset().
///
/// The ranks judged by the slow rules are those that sent a sample since the last reset: a
/// rank whose launcher sends none (it never wrote a record) does not block them.
///
/// Slow rules, judged per round: a round closes when every rank of the world has sent a new
/// sample, or when a rank sends its next one: complete when every rank judged had sent one in
/// it, else incomplete (someone is late or stale, so nobody is judged from stale data). A complete
/// round counts when every rank progressed in its window (steps > 0, or exited grew since its
/// previous sample); other rounds neither count nor break a streak. Shares are of each rank's own
/// window.
///  * RankNonCommSlow: the rank with the highest compute share (1 - comm_us / window_us) has
///    at least slow_factor times the median of the others' and min_excess_share more, and at
///    least slow_factor times the median of its own node's other ranks (if any). Compute is the
///    complement of time in collectives, so it is also the rank that waited least. Per window
///    rather than per step: a window holds a whole number of step ends, so with ~5 steps a
///    window one step more or less would already be a 20% difference per step. Its own node:
///    nodes' windows are offset, and with steps nearly a window long one node's window may
///    hold one more compute phase than another's, lifting all its ranks alike; a slow rank
///    also stands out among the ranks that share its window.
///  * RankCommSlow: no rank is such a compute outlier, the median comm share is at least
///    comm_share, and one node's RTT (the median of its ranks' tcp_rtt_us) is at least
///    rtt_factor times the median of the other nodes' and min_rtt_excess_us more. It names the
///    node with rank -1 and GPU -1: a link serves all the node's ranks. A node whose slow
///    connections (slow_peer_nodes) all lead to other such nodes that do not name it back is
///    their neighbour and is not named while one of them is; so is a node whose slow
///    connections lead to nodes that wait on such a node (in a ring the wait travels back: a
///    node that does not stand out but is slow only towards slow or waiting nodes waits too);
///    two such nodes that name each other share a slow link and are both named. When most
///    nodes talk to the slow one their RTTs rise with it: a node that more than half of the
///    other nodes name as a slow peer is slow too when its RTT is above the others' median by
///    min_rtt_excess_us. Without RTT figures from at least two nodes it names nothing.
/// After slow_windows consecutive counted rounds a rank (or node) is named once; it can be
/// named again only after slow_windows consecutive counted rounds without the condition.
class Diagnoser {
 public:
  using Clock = std::chrono::steady_clock;

  /// Ranks are 0..world_size-1.
  explicit Diagnoser(int world_size, DiagnosisSettings settings = {});

  /// The latest sample of `sample.rank`, received at `received`. False when it was ignored
  /// as malformed.
  bool observe(const RankSample& sample, Clock::time_point received);
  /// The verdicts not yet reported: slow verdicts of rounds closed since the last call, and
  /// hang verdicts as of `now`.
  std::vector<Diagnosis> decide(Clock::time_point now);
  /// Drops everything known about `rank` (it left the job or restarts alone).
  void forget(int rank);
  /// A new attempt: sequence numbers restart at 1, so everything is dropped.
  void reset();
  /// Whether the condition of a slow verdict it gave still holds: its rank (RankNonCommSlow)
  /// or node (RankCommSlow) has not been seen clear for slow_windows counted rounds since.
  /// False for hang verdicts and for a verdict of an earlier attempt (reset, forget).
  bool holds(const Diagnosis& verdict) const;

 private:
  /// Consecutive counted rounds with and without a slow condition.
  struct Streak {
    int hits = 0;
    int misses = 0;
    bool named = false;
  };
  struct Latest {
    RankSample sample;
    Clock::time_point received{};
    bool known = false;
    std::uint64_t round = 0;  ///< the round its latest sample is in; == round_: the current one
    bool progressed = false;
    /// The collective the rank was first seen waiting in, and its retransmits then.
    std::int64_t open_seq = 0;
    std::int64_t retrans_at_open = -1;
  };
  using HangKey = std::tuple<DiagnosisClass, int, std::int64_t>;  // class, rank, collective

  struct HangScene;

  void close_round(bool complete);
  void judge_round();
  bool update(Streak& streak, bool hit) const;
  bool stale(const Latest& latest, Clock::time_point now) const;

  // The hang rules, step by step (diagnosis.cpp).
  void judge_hangs(Clock::time_point now, std::vector<Diagnosis>& out);
  void end_hang_episodes();
  std::int64_t hang_threshold_ms() const;
  /// Where the waiters are; nullopt when none has waited hang_seconds with a fresh sample.
  std::optional<HangScene> hang_scene(Clock::time_point now) const;
  void name_ranks_behind(const HangScene& scene, Clock::time_point now,
                         std::vector<Diagnosis>& out);
  void name_comm_hang(const HangScene& scene, Clock::time_point now, std::vector<Diagnosis>& out);
  std::string comm_hang_opening(const HangScene& scene) const;
  std::vector<std::string> inside_of(std::int64_t collective) const;
  std::string stale_note(const Latest& latest, Clock::time_point now) const;

  int world_size_;
  DiagnosisSettings settings_;
  std::vector<Latest> ranks_;
  int known_ = 0;  // ranks that sent a sample since the last reset: the ranks judged
  int in_round_ = 0;
  std::uint64_t round_ = 1;  // the current round; ranks start in round 0, no round
  std::vector<Streak> rank_streaks_;
  std::map<int, Streak> node_streaks_;
  std::set<HangKey> reported_hangs_;
  std::vector<Diagnosis> pending_;
};

/// The name of an enum pai_telemetry_op: "all_reduce", "barrier", ...; "collective" for
/// 0 and for codes it does not know.
std::string collective_op_name(int op);

}  // namespace pai::launcher

namespace pai {

/// The classes as the journal writes them: "RankNonCommHang", ... (pai::to_string).
template <>
struct EnumNames<launcher::DiagnosisClass> {
  static constexpr std::array<EnumName<launcher::DiagnosisClass>, 4> table{
      {{launcher::DiagnosisClass::RankNonCommHang, "RankNonCommHang"},
       {launcher::DiagnosisClass::RankCommHang, "RankCommHang"},
       {launcher::DiagnosisClass::RankNonCommSlow, "RankNonCommSlow"},
       {launcher::DiagnosisClass::RankCommSlow, "RankCommSlow"}}};
};

/// "warning", "critical".
template <>
struct EnumNames<launcher::Severity> {
  static constexpr std::array<EnumName<launcher::Severity>, 2> table{
      {{launcher::Severity::Warning, "warning"}, {launcher::Severity::Critical, "critical"}}};
};

}  // namespace pai
