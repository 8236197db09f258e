#include "launcher/policy/diagnosis.h"

#include <algorithm>
#include <cstdio>
#include <limits>

#include "launcher/policy/outliers.h"
#include "launcher/policy/tcp_slow_peers.h"
#include "libpai/rank_name.h"

namespace pai::launcher {
namespace {

using Clock = Diagnoser::Clock;

// No window lasts 31 years and no counter reaches 10^15: a field above it is garbage, and
// every sum and product below stays far from overflow.
constexpr std::int64_t kMaxField = 1'000'000'000'000'000;

bool in_range(std::int64_t value, std::int64_t low) { return value >= low && value <= kMaxField; }

bool malformed(const RankSample& s, int world_size) {
  if (s.rank < 0 || s.rank >= world_size || s.node < 0 || s.gpu < -1 || s.open_op < 0) {
    return true;
  }
  if (!in_range(s.step, -1) || !in_range(s.steps, 0) || !in_range(s.step_us, 0) ||
      !in_range(s.window_us, 1) || !in_range(s.comm_us, 0) || !in_range(s.entered, 0) ||
      !in_range(s.exited, 0) || !in_range(s.open_ms, -1) || !in_range(s.quiet_ms, -1) ||
      !in_range(s.tcp_rtt_us, -1) || !in_range(s.tcp_retrans, -1) ||
      s.slow_peer_nodes.size() > kMaxSlowPeers || s.stalled_peer_nodes.size() > kMaxSlowPeers ||
      std::any_of(s.slow_peer_nodes.begin(), s.slow_peer_nodes.end(),
                  [](int node) { return node < 0; }) ||
      std::any_of(s.stalled_peer_nodes.begin(), s.stalled_peer_nodes.end(),
                  [](int node) { return node < 0; })) {
    return true;
  }
  if (s.comm_us > s.window_us || s.exited > s.entered) return true;
  if (s.open_ms >= 0 && s.entered == s.exited) return true;
  return s.quiet_ms < 0 && (s.entered > 0 || s.steps > 0 || s.step >= 0);
}

// A rank that never wrote a record runs without the SDK, or has not reached it yet.
bool has_telemetry(const RankSample& s) { return s.quiet_ms >= 0; }

std::int64_t ms_since(Clock::time_point now, Clock::time_point then) {
  return std::max<std::int64_t>(
      0, std::chrono::duration_cast<std::chrono::milliseconds>(now - then).count());
}

std::string node_text(const RankSample& s) {
  return s.node_name.empty() ? "node " + std::to_string(s.node) : s.node_name;
}

std::string who(const RankSample& s) {
  return to_string(RankName{.rank = s.rank, .node = node_text(s), .gpu = s.gpu});
}

std::string last_step(const RankSample& s) {
  return s.step >= 0 ? "its last step was " + std::to_string(s.step) : "it reported no step";
}

std::string seconds(std::int64_t ms) { return std::to_string(ms / 1000) + " s"; }

std::string number(const char* format, double value) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

std::string percent(double share) { return number("%.0f%%", share * 100); }

struct SlowLink {
  int node = 0;
  std::string name;
  double rtt_us = 0;
  double others_us = 0;  ///< the median of the other nodes'
  /// Other slow nodes explained by this one: their connections are slow only towards it.
  std::vector<std::string> neighbours;
  /// Other slow nodes this one is slow to, and which are slow to it: one slow link.
  std::vector<std::string> link_peers;
  /// Nodes whose connections are slowest to this one; with `others` nodes reporting.
  std::size_t blamed_by = 0, others = 0;
};

// Node -> the other nodes whose ranks name it among their peers (`peers_of` a sample).
template <class Peers>
std::map<int, std::set<int>> blamers_of(const std::vector<const RankSample*>& samples,
                                        Peers peers_of) {
  std::map<int, std::set<int>> blamed;
  for (const RankSample* s : samples) {
    for (int peer : peers_of(*s)) {
      if (peer != s->node) blamed[peer].insert(s->node);
    }
  }
  return blamed;
}

const std::vector<int>& slow_peers_of(const RankSample& s) { return s.slow_peer_nodes; }
const std::vector<int>& stalled_peers_of(const RankSample& s) { return s.stalled_peer_nodes; }

// The nodes whose RTT (the median of their ranks') stands out against the other nodes'. A
// node whose slow connections (its ranks' slow_peer_nodes) all lead to other such nodes, or
// to nodes waiting on them, that do not name it back is their neighbour, not a culprit: a
// node whose every link is slow raises the RTT of each node that talks to it. It is left out
// while another remains.
std::vector<SlowLink> slow_links(const std::vector<const RankSample*>& samples,
                                 const DiagnosisSettings& settings) {
  std::map<int, std::vector<double>> by_node;
  std::map<int, std::string> names;
  std::map<int, std::set<int>> slow_to;
  for (const RankSample* s : samples) {
    if (s->tcp_rtt_us < 0) continue;
    by_node[s->node].push_back(static_cast<double>(s->tcp_rtt_us));
    names[s->node] = node_text(*s);
    for (int peer : s->slow_peer_nodes) {
      if (peer != s->node) slow_to[s->node].insert(peer);
    }
  }
  if (by_node.size() < 2) return {};
  std::vector<std::pair<double, int>> nodes;  // (rtt, node), sorted
  for (auto& [node, rtts] : by_node) {
    std::sort(rtts.begin(), rtts.end());
    nodes.emplace_back(median_without(rtts, rtts.size()), node);
  }
  std::sort(nodes.begin(), nodes.end());
  std::vector<double> rtts;
  for (const auto& node : nodes) rtts.push_back(node.first);
  std::vector<SlowLink> out;
  for (const std::size_t i : high_outliers(rtts, settings.rtt_factor,
                                           static_cast<double>(settings.min_rtt_excess_us),
                                           nodes.size())) {
    out.push_back({nodes[i].second, names[nodes[i].second], rtts[i], median_without(rtts, i),
                   {}, {}, 0, 0});
  }
  std::set<int> slow;
  for (const SlowLink& link : out) slow.insert(link.node);
  // When most nodes talk to the slow one, its peers' RTTs rise with it and it may not stand
  // out by the factor: a node that most other nodes name as their slow peer, whose own RTT is
  // still above theirs by the margin, is slow too.
  const std::map<int, std::set<int>> blamed = blamers_of(samples, slow_peers_of);
  const std::size_t others = nodes.size() - 1;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const int node = nodes[i].second;
    const auto it = blamed.find(node);
    if (slow.contains(node) || it == blamed.end() || 2 * it->second.size() <= others) continue;
    const double rest = median_without(rtts, i);
    if (rtts[i] - rest < static_cast<double>(settings.min_rtt_excess_us)) continue;
    out.push_back({node, names[node], rtts[i], rest, {}, {}, it->second.size(), others});
    slow.insert(node);
  }
  const auto names_back = [&](int from, int to) {
    const auto it = slow_to.find(from);
    return it != slow_to.end() && it->second.contains(to);
  };
  const auto named_back_by_none = [&](int node) {
    return std::none_of(slow_to.at(node).begin(), slow_to.at(node).end(),
                        [&](int peer) { return names_back(peer, node); });
  };
  // Nodes that wait on a slow node without standing out: each of their slow connections leads
  // to a slow or waiting node that does not name them back. In a ring the wait travels back
  // from neighbour to neighbour (seen: node-2 slow only to the rate-limited node-3, node-1
  // slow only to node-2, whose ACKs came late); a worklist from the slow nodes, O(connections).
  std::set<int> waiting;
  std::map<int, std::vector<int>> named_by;  // peer -> the nodes slow to it
  std::map<int, std::size_t> unexplained;    // node -> its slow peers neither slow nor waiting
  for (const auto& [node, peers] : slow_to) {
    unexplained[node] = peers.size();
    for (int peer : peers) named_by[peer].push_back(node);
  }
  std::vector<int> work(slow.begin(), slow.end());
  while (!work.empty()) {
    const int peer = work.back();
    work.pop_back();
    for (int node : named_by[peer]) {
      if (slow.contains(node) || waiting.contains(node) || --unexplained[node] > 0) continue;
      if (!named_back_by_none(node)) continue;
      waiting.insert(node);
      work.push_back(node);
    }
  }
  // Whom `node` is explained by: the slow or waiting nodes it is slow to; none if one of them
  // is neither or names it back.
  const auto explained_by = [&](int node) {
    const auto it = slow_to.find(node);
    if (it == slow_to.end()) return std::set<int>{};
    for (int peer : it->second) {
      if ((!slow.contains(peer) && !waiting.contains(peer)) || names_back(peer, node)) {
        return std::set<int>{};
      }
    }
    return it->second;
  };
  std::vector<SlowLink> kept;
  for (const SlowLink& link : out) {
    if (explained_by(link.node).empty()) kept.push_back(link);
  }
  if (kept.empty()) return out;  // each explained by another: say what was seen
  for (SlowLink& link : kept) {
    for (const SlowLink& other : out) {
      if (other.node == link.node) continue;
      if (explained_by(other.node).contains(link.node)) link.neighbours.push_back(other.name);
      if (names_back(link.node, other.node) && names_back(other.node, link.node)) {
        link.link_peers.push_back(other.name);
      }
    }
  }
  return kept;
}

// "a, b and c".
std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  }
  return text;
}

// The first 4 of `edges` as `text(a, b)` gives them, comma-separated, then ", ..." if more.
template <class Text>
std::string first_edges(const std::set<std::pair<int, int>>& edges, Text text) {
  std::string list;
  std::size_t shown = 0;
  for (const auto& [a, b] : edges) {
    if (shown++ == 4) {
      list += ", ...";
      break;
    }
    list += (list.empty() ? "" : ", ") + text(a, b);
  }
  return list;
}

std::string describe(const SlowLink& link) {
  std::string text =
      link.name + "'s TCP round-trip time is " + number("%.1f ms", link.rtt_us / 1000) + ", " +
      number("%.1fx", link.others_us > 0 ? link.rtt_us / link.others_us : 0) +
      " the other nodes' median of " + number("%.1f ms", link.others_us / 1000);
  if (!link.neighbours.empty()) {
    text += " (" + joined(link.neighbours) + (link.neighbours.size() == 1 ? " is" : " are") +
            " slow only on connections to it)";
  }
  if (!link.link_peers.empty()) {
    text += " (its link to " + joined(link.link_peers) + " is slow from both ends)";
  }
  if (link.blamed_by > 0) {
    text += ", and " + std::to_string(link.blamed_by) + " of the " + std::to_string(link.others) +
            " other nodes are slowest on their connections to it";
  }
  return text;
}

}  // namespace

// The names of enum pai_telemetry_op (include/pai/telemetry.h is not on policy/'s path).
std::string collective_op_name(int op) {
  static constexpr std::array<const char*, 12> kNames = {
      "collective", "all_reduce", "broadcast", "all_gather", "reduce_scatter", "barrier",
      "all_to_all", "send",       "recv",      "reduce",     "gather",         "scatter"};
  return op >= 0 && op < static_cast<int>(kNames.size()) ? kNames[op] : "collective";
}

Diagnoser::Diagnoser(int world_size, DiagnosisSettings settings)
    : world_size_(std::max(world_size, 0)), settings_(settings) {
  settings_.slow_windows = std::max(settings_.slow_windows, 1);
  settings_.stale_windows = std::max(settings_.stale_windows, 1);
  reset();
}

void Diagnoser::reset() {
  ranks_.assign(world_size_, Latest{});
  known_ = 0;
  in_round_ = 0;
  rank_streaks_.assign(world_size_, Streak{});
  node_streaks_.clear();
  reported_hangs_.clear();
  pending_.clear();
}

void Diagnoser::forget(int rank) {
  if (rank < 0 || rank >= world_size_) return;
  if (ranks_[rank].round == round_) --in_round_;
  if (ranks_[rank].known) --known_;
  ranks_[rank] = Latest{};
  rank_streaks_[rank] = Streak{};
  std::erase_if(reported_hangs_, [&](const HangKey& key) { return std::get<1>(key) == rank; });
}

bool Diagnoser::holds(const Diagnosis& verdict) const {
  if (verdict.cls == DiagnosisClass::RankNonCommSlow) {
    return verdict.rank >= 0 && verdict.rank < world_size_ && rank_streaks_[verdict.rank].named;
  }
  if (verdict.cls == DiagnosisClass::RankCommSlow) {
    const auto it = node_streaks_.find(verdict.node);
    return it != node_streaks_.end() && it->second.named;
  }
  return false;
}

bool Diagnoser::observe(const RankSample& sample, Clock::time_point received) {
  if (malformed(sample, world_size_)) return false;
  Latest& latest = ranks_[sample.rank];
  // A rank's next sample ends the round: complete when every rank judged sent one in it.
  if (latest.round == round_) close_round(in_round_ == known_);
  latest.progressed = sample.steps > 0 || (latest.known && sample.exited > latest.sample.exited);
  const std::int64_t open_seq = sample.open_ms >= 0 ? sample.exited + 1 : 0;
  if (open_seq != latest.open_seq) {
    latest.open_seq = open_seq;
    latest.retrans_at_open = sample.tcp_retrans;
  }
  latest.sample = sample;
  latest.received = received;
  if (!latest.known) ++known_;
  latest.known = true;
  latest.round = round_;
  if (++in_round_ == world_size_) close_round(true);
  return true;
}

std::vector<Diagnosis> Diagnoser::decide(Clock::time_point now) {
  std::vector<Diagnosis> out = std::move(pending_);
  pending_.clear();
  judge_hangs(now, out);
  return out;
}

void Diagnoser::close_round(bool complete) {
  if (complete) judge_round();
  ++round_;  // every rank's sample is now of an earlier round, without touching each
  in_round_ = 0;
}

bool Diagnoser::update(Streak& streak, bool hit) const {
  if (!hit) {
    streak.hits = 0;
    if (streak.named && ++streak.misses >= settings_.slow_windows) streak = Streak{};
    return false;
  }
  streak.misses = 0;
  streak.hits = std::min(streak.hits + 1, settings_.slow_windows);
  if (streak.hits < settings_.slow_windows || streak.named) return false;
  streak.named = true;
  return true;
}

void Diagnoser::judge_round() {
  if (known_ < 2) return;
  for (const Latest& latest : ranks_) {
    if (latest.known && !latest.progressed) return;
  }
  std::vector<double> compute;
  std::vector<const RankSample*> samples;
  for (const Latest& latest : ranks_) {
    if (!latest.known) continue;
    const RankSample& s = latest.sample;
    compute.push_back(1 - static_cast<double>(s.comm_us) / static_cast<double>(s.window_us));
    samples.push_back(&s);
  }
  const auto slowest =
      static_cast<std::size_t>(std::max_element(compute.begin(), compute.end()) - compute.begin());
  std::vector<double> sorted = compute;
  std::sort(sorted.begin(), sorted.end());
  const double others = median_without(sorted, sorted.size() - 1);  // the last is the slowest
  const double mine = compute[slowest];
  std::vector<double> peers;
  for (std::size_t r = 0; r < compute.size(); ++r) {
    if (r != slowest && samples[r]->node == samples[slowest]->node) peers.push_back(compute[r]);
  }
  std::sort(peers.begin(), peers.end());
  const bool outlier =
      mine >= settings_.slow_factor * others && mine - others >= settings_.min_excess_share &&
      (peers.empty() || mine >= settings_.slow_factor * median_without(peers, peers.size()));
  for (std::size_t r = 0; r < compute.size(); ++r) {
    if (!update(rank_streaks_[samples[r]->rank], outlier && r == slowest)) continue;
    const RankSample& s = *samples[r];
    std::string evidence =
        who(s) + " spent " + percent(mine) + " of its last window computing against a median " +
        "of " + percent(others) + " on the other " + std::to_string(known_ - 1) + " ranks (" +
        number("%.2fx", others > 0 ? mine / others : 0) + "), the least time in collectives, " +
        std::to_string(settings_.slow_windows) + " windows in a row; " + last_step(s);
    if (s.steps > 0) {
      evidence +=
          " (" + number("%.0f ms", static_cast<double>(s.step_us) / s.steps / 1000) + " per step)";
    }
    pending_.push_back({DiagnosisClass::RankNonCommSlow, s.rank, s.node, s.node_name, s.gpu,
                        evidence, Severity::Warning});
  }

  // A slow link slows every rank alike, so it is only judged when no rank stands out.
  const double comm = 1 - median_without(sorted, sorted.size());
  const bool links_judged = !outlier && comm >= settings_.comm_share;
  // Node -> (its name, what shows it slow): the TCP round-trip times, else, on fabrics where
  // NCCL's transfers carry no TCP, their rates.
  std::map<int, std::pair<std::string, std::string>> slow;
  if (links_judged) {
    for (const SlowLink& link : slow_links(samples, settings_)) {
      slow[link.node] = {link.name, describe(link)};
    }
    if (slow.empty()) {
      std::vector<NcclSend> sends;
      std::map<int, std::string> names;
      for (const RankSample* s : samples) {
        sends.insert(sends.end(), s->nccl_sends.begin(), s->nccl_sends.end());
        names[s->node] = node_text(*s);
      }
      for (const NcclSlowNode& n : nccl_slow_nodes(sends, settings_.rtt_factor)) {
        if (names.contains(n.node)) slow[n.node] = {names[n.node], nccl_evidence(n, names[n.node])};
      }
    }
  }
  std::set<int> nodes;
  for (const RankSample* s : samples) nodes.insert(s->node);
  for (int node : nodes) {
    const auto found = slow.find(node);
    if (!update(node_streaks_[node], found != slow.end())) continue;
    pending_.push_back({DiagnosisClass::RankCommSlow, -1, node, found->second.first, -1,
                        found->second.second + " while ranks spend " + percent(comm) +
                            " of each window in collectives, " +
                            std::to_string(settings_.slow_windows) + " windows in a row",
                        Severity::Warning});
  }
}

bool Diagnoser::stale(const Latest& latest, Clock::time_point now) const {
  return static_cast<double>(ms_since(now, latest.received)) * 1000 >
         static_cast<double>(latest.sample.window_us) * settings_.stale_windows;
}

// ---- Hangs: judge_hangs' steps, in the order diagnosis.h states the rules ----

namespace {

constexpr std::int64_t kNoOne = std::numeric_limits<std::int64_t>::max();

// A rank's latest sample (a Diagnoser::Latest) shows a collective open.
template <class Latest>
bool inside(const Latest& latest) {
  return latest.known && latest.sample.open_ms >= 0;
}

// How long the collective open in the rank's latest sample has been open at `now`.
template <class Latest>
std::int64_t open_for(const Latest& latest, Clock::time_point now) {
  return latest.sample.open_ms + ms_since(now, latest.received);
}

}  // namespace

/// What the ranks inside collectives show at a decide(): N, who waits in it, who is past it,
/// who has not reached it.
struct Diagnoser::HangScene {
  std::int64_t seq = 0;      ///< N: the lowest collective a waiter is in
  std::string collective;    ///< "all_reduce #152"
  int waiting = 0;           ///< ranks inside N
  int op = 0;                ///< N's operation
  std::int64_t longest = 0;  ///< the longest a rank has been inside N
  /// The shortest time a rank has been inside N or a later collective.
  std::int64_t shortest = kNoOne;
  /// The lowest `entered` of ranks outside collectives that have not entered N; kNoOne: none.
  std::int64_t behind = kNoOne;
  /// Ranks inside a later collective than N: they completed N, which a message lost on its way
  /// to the ranks still in N did not. Their newest collective, its operation and their count.
  std::int64_t newest = 0;
  int newest_op = 0;
  int ahead = 0;
};

void Diagnoser::judge_hangs(Clock::time_point now, std::vector<Diagnosis>& out) {
  end_hang_episodes();
  if (settings_.hang_seconds <= 0) return;
  const std::optional<HangScene> scene = hang_scene(now);
  if (!scene) return;
  if (scene->behind != kNoOne) return name_ranks_behind(*scene, now, out);
  name_comm_hang(*scene, now, out);
}

// A hang's episode ends once its collective completed anywhere.
void Diagnoser::end_hang_episodes() {
  std::int64_t completed = 0;
  for (const Latest& latest : ranks_) {
    if (latest.known) completed = std::max(completed, latest.sample.exited);
  }
  std::erase_if(reported_hangs_, [&](const HangKey& key) { return std::get<2>(key) <= completed; });
}

std::int64_t Diagnoser::hang_threshold_ms() const {
  return std::min(settings_.hang_seconds, kMaxField / 1000) * 1000;
}

auto Diagnoser::hang_scene(Clock::time_point now) const -> std::optional<HangScene> {
  // The waiters: in a collective for hang_seconds, one of them with a report of its own, not
  // only an extrapolation of an old one.
  const std::int64_t threshold = hang_threshold_ms();
  HangScene scene;
  scene.seq = kNoOne;
  bool fresh = false;
  for (const Latest& latest : ranks_) {
    if (!inside(latest) || open_for(latest, now) < threshold) continue;
    scene.seq = std::min(scene.seq, latest.open_seq);
    fresh = fresh || !stale(latest, now);
  }
  if (!fresh) return std::nullopt;
  scene.newest = scene.seq;
  for (const Latest& latest : ranks_) {
    if (inside(latest) && latest.open_seq == scene.seq) {
      ++scene.waiting;
      scene.longest = std::max(scene.longest, open_for(latest, now));
      scene.shortest = std::min(scene.shortest, open_for(latest, now));
      scene.op = latest.sample.open_op;
    } else if (inside(latest) && latest.open_seq > scene.seq) {
      ++scene.ahead;
      scene.shortest = std::min(scene.shortest, open_for(latest, now));
      if (latest.open_seq >= scene.newest) scene.newest_op = latest.sample.open_op;
      scene.newest = std::max(scene.newest, latest.open_seq);
    } else if (latest.known && has_telemetry(latest.sample) && latest.sample.open_ms < 0 &&
               latest.sample.entered < scene.seq) {
      scene.behind = std::min(scene.behind, latest.sample.entered);
    }
  }
  scene.collective = collective_op_name(scene.op) + " #" + std::to_string(scene.seq);
  return scene;
}

std::string Diagnoser::stale_note(const Latest& latest, Clock::time_point now) const {
  return stale(latest, now)
             ? "; " + node_text(latest.sample) + " has sent nothing for " +
                   seconds(ms_since(now, latest.received)) + ", so these are its last figures"
             : std::string();
}

// RankNonCommHang: the ranks furthest behind N, each once.
void Diagnoser::name_ranks_behind(const HangScene& scene, Clock::time_point now,
                                  std::vector<Diagnosis>& out) {
  for (const Latest& latest : ranks_) {
    const RankSample& s = latest.sample;
    if (!latest.known || !has_telemetry(s) || s.open_ms >= 0 || s.entered != scene.behind) continue;
    if (!reported_hangs_.insert({DiagnosisClass::RankNonCommHang, s.rank, scene.seq}).second) {
      continue;
    }
    out.push_back({DiagnosisClass::RankNonCommHang, s.rank, s.node, s.node_name, s.gpu,
                   who(s) + " never entered " + scene.collective + " that " +
                       std::to_string(scene.waiting) +
                       (scene.waiting == 1 ? " rank has" : " ranks have") + " waited in for " +
                       seconds(scene.longest) + "; " + last_step(s) + ", its last record " +
                       seconds(s.quiet_ms + ms_since(now, latest.received)) + " ago" +
                       stale_note(latest, now),
                   Severity::Critical});
  }
}

// Who is inside collective `n`: "rank 1 (node-2)", "rank 1 (node-2) and rank 5 (node-3)",
// "4 ranks".
std::vector<std::string> Diagnoser::inside_of(std::int64_t n) const {
  std::vector<std::string> names;
  for (const Latest& latest : ranks_) {
    if (inside(latest) && latest.open_seq == n) names.push_back(who(latest.sample));
  }
  return names;
}

std::string Diagnoser::comm_hang_opening(const HangScene& scene) const {
  if (scene.ahead == 0) {
    return "all " + std::to_string(world_size_) + " ranks have been inside " + scene.collective +
           " for at least " + seconds(scene.shortest) + "; ";
  }
  const std::vector<std::string> laggards = inside_of(scene.seq);
  const std::string still = laggards.size() > 2    ? std::to_string(laggards.size()) + " ranks"
                            : laggards.size() == 2 ? laggards[0] + " and " + laggards[1]
                                                   : laggards.at(0);
  const int in_newest = static_cast<int>(inside_of(scene.newest).size());
  return "all " + std::to_string(world_size_) +
         " ranks have been inside collectives: " + std::to_string(scene.ahead) + " in " +
         collective_op_name(scene.newest_op) + " #" + std::to_string(scene.newest) +
         (scene.ahead > in_newest ? " or an earlier one" : "") + ", " + still + " still in " +
         scene.collective + ", which the others completed, for at " + "least " +
         seconds(scene.shortest) + "; ";
}

namespace {

// The figures of a RankCommHang's network: which node the lost packets point to.
struct HangNetwork {
  std::vector<const RankSample*> samples;  // every rank's latest
  std::map<int, std::string> names;        // node -> its name
  // Node -> the growth of its ranks' TCP retransmits since they were first seen waiting.
  std::map<int, std::int64_t> growth;
  std::set<std::pair<int, int>> edges;  // stalled connections: (lower node, higher node)
  // The ranks still inside a collective the others completed (none when no rank is ahead).
  std::vector<const RankSample*> laggards;
};

// The network of the ranks' latest samples (Diagnoser::Latest each).
template <class Ranks>
HangNetwork network_of(const Ranks& ranks) {
  HangNetwork net;
  for (const auto& latest : ranks) {
    if (!latest.known) continue;
    const RankSample& s = latest.sample;
    net.samples.push_back(&s);
    net.names[s.node] = node_text(s);
    if (latest.retrans_at_open >= 0 && s.tcp_retrans >= 0) {
      net.growth[s.node] += std::max<std::int64_t>(0, s.tcp_retrans - latest.retrans_at_open);
    }
  }
  for (const RankSample* sample : net.samples) {
    for (int peer : sample->stalled_peer_nodes) {
      if (peer != sample->node && net.names.contains(peer)) {
        net.edges.insert(std::minmax(sample->node, peer));
      }
    }
  }
  return net;
}

void name_node(Diagnosis& d, int node, const std::string& name) {
  d.node = node;
  d.node_name = name;
}

// Packets lost at one node stall the connections it has with the nodes it talks to, in either
// direction (its sends go unacknowledged, and so do theirs): one node at an end of every
// stalled connection, of two or more, is the culprit.
bool end_of_every_stalled_connection(const HangNetwork& net, const DiagnosisSettings&,
                                     Diagnosis& d) {
  if (net.edges.size() < 2) return false;
  std::set<int> cover = {net.edges.begin()->first, net.edges.begin()->second};
  for (const std::pair<int, int>& edge : net.edges) {
    std::erase_if(cover, [&](int node) { return node != edge.first && node != edge.second; });
  }
  if (cover.size() != 1) return false;
  const int node = *cover.begin();
  name_node(d, node, net.names.at(node));
  const std::string list =
      first_edges(net.edges, [&](int a, int b) { return net.names.at(a == node ? b : a); });
  d.evidence += d.node_name + " is an end of every stalled connection (to " + list + ")";
  return true;
}

// Packets lost at one node leave every peer waiting on it: their connections to it stall. The
// node more than half of the other nodes' stalled connections lead to, if no other ties it.
bool named_by_most_stalled_connections(const HangNetwork& net, const DiagnosisSettings&,
                                       Diagnosis& d) {
  std::set<int> reporting;
  for (const RankSample* sample : net.samples) reporting.insert(sample->node);
  std::pair<std::size_t, int> blamed{0, -1};  // (nodes naming it, node)
  bool tied = false;
  for (const auto& [node, by] : blamers_of(net.samples, stalled_peers_of)) {
    if (!net.names.contains(node)) continue;
    tied = by.size() == blamed.first || (tied && by.size() < blamed.first);
    if (by.size() > blamed.first) blamed = {by.size(), node};
  }
  const std::size_t others = reporting.size() - 1;
  if (blamed.second < 0 || tied || 2 * blamed.first <= others) return false;
  name_node(d, blamed.second, net.names.at(blamed.second));
  d.evidence += "the connections of " + std::to_string(blamed.first) + " of the " +
                std::to_string(others) + " other nodes to " + d.node_name + " are stalled";
  return true;
}

// The node whose TCP retransmits grew most during the hang, at least twice any other's.
bool retransmits_grew_most(const HangNetwork& net, const DiagnosisSettings&, Diagnosis& d) {
  std::pair<std::int64_t, int> top{0, -1};  // (growth, node)
  std::int64_t runner_up = 0;
  for (const auto& [node, grown] : net.growth) {
    if (grown > top.first) {
      runner_up = top.first;
      top = {grown, node};
    } else {
      runner_up = std::max(runner_up, grown);
    }
  }
  if (top.first <= 0 || top.first < 2 * runner_up) return false;
  name_node(d, top.second, net.names.at(top.second));
  d.evidence += d.node_name + "'s TCP retransmits grew by " + std::to_string(top.first) +
                " during the hang, other nodes' by at most " + std::to_string(runner_up);
  return true;
}

// Packets are lost, but not clearly at one node: the ends of the stalled connections are
// suspects, and nobody is named. Round-trip times then say nothing: the estimate of a
// connection that loses packets grows at the victim's end as much as at the culprit's (seen:
// a victim 9.7x the median, isolated in the culprit's place).
bool stalled_connections_suspected(const HangNetwork& net, const DiagnosisSettings&, Diagnosis& d) {
  if (net.edges.empty()) return false;
  const std::string list = first_edges(
      net.edges, [&](int a, int b) { return net.names.at(a) + " - " + net.names.at(b); });
  std::set<int> ends;
  for (const auto& [a, b] : net.edges) ends.insert({a, b});
  d.suspect_nodes.assign(ends.begin(), ends.end());
  d.evidence += net.edges.size() == 1
                    ? "the connection " + list + " is stalled; either end may be at fault"
                    : std::to_string(net.edges.size()) + " stalled connections (" + list +
                          ") have no node in common";
  return true;
}

// Ranks still inside a collective the others completed, on one node, while no connection is
// stalled and no retransmit was needed: the others completed it, so the laggards' data went
// out, and nothing on the network holds what they wait for. They are stuck inside the
// collective itself (a GPU stream or a host thread that does not return): their node is named,
// and the rank when it is one.
bool stuck_in_a_completed_collective(const HangNetwork& net, const DiagnosisSettings&,
                                     Diagnosis& d) {
  if (net.laggards.empty() || !net.edges.empty()) return false;
  for (const auto& [node, grown] : net.growth) {
    if (grown > 0) return false;
  }
  const RankSample& first = *net.laggards.front();
  for (const RankSample* s : net.laggards) {
    if (s->node != first.node) return false;
  }
  name_node(d, first.node, net.names.at(first.node));
  if (net.laggards.size() == 1) {
    d.rank = first.rank;
    d.gpu = first.gpu;
  }
  d.evidence += (net.laggards.size() == 1
                     ? "rank " + std::to_string(first.rank) + " on " + d.node_name + " is"
                     : "the ranks still in it are all on " + d.node_name + " and are") +
                " stuck inside the collective itself: no connection is stalled and no packet "
                "was retransmitted, so nothing on the network holds it";
  return true;
}

// The one node whose RTT is an outlier, as for RankCommSlow.
bool rtt_outlier(const HangNetwork& net, const DiagnosisSettings& settings, Diagnosis& d) {
  const std::vector<SlowLink> links = slow_links(net.samples, settings);
  if (links.size() != 1) return false;
  name_node(d, links[0].node, links[0].name);
  d.evidence += describe(links[0]);
  return true;
}

bool nobody_stands_out(const HangNetwork&, const DiagnosisSettings&, Diagnosis& d) {
  d.evidence += "no rank is behind and no node's network stands out";
  return true;
}

using CommHangRule = bool (*)(const HangNetwork&, const DiagnosisSettings&, Diagnosis&);
constexpr CommHangRule kCommHangRules[] = {end_of_every_stalled_connection,
                                           named_by_most_stalled_connections,
                                           retransmits_grew_most,
                                           stalled_connections_suspected,
                                           stuck_in_a_completed_collective,
                                           rtt_outlier,
                                           nobody_stands_out};

}  // namespace

// RankCommHang: every rank waits in N or later; the network names the node, or nobody.
void Diagnoser::name_comm_hang(const HangScene& scene, Clock::time_point now,
                               std::vector<Diagnosis>& out) {
  // A rank that sends nothing could be the one behind: every rank must be seen waiting.
  if (scene.waiting + scene.ahead != world_size_ || scene.shortest < hang_threshold_ms()) return;
  // Reported once naming nobody and once naming a node: evidence that comes later (a
  // retransmission timeout that takes seconds to back off) can still name the culprit. Keyed
  // by the newest collective: N completed on the ranks ahead, which ends N's episodes.
  constexpr int kNobody = -1, kSomeone = -2;
  if (reported_hangs_.contains({DiagnosisClass::RankCommHang, kSomeone, scene.newest})) return;
  Diagnosis d{
      DiagnosisClass::RankCommHang, -1, -1, "", -1, comm_hang_opening(scene), Severity::Critical};
  HangNetwork net = network_of(ranks_);
  if (scene.ahead > 0) {
    for (const Latest& latest : ranks_) {
      if (inside(latest) && latest.open_seq == scene.seq) net.laggards.push_back(&latest.sample);
    }
  }
  for (const CommHangRule rule : kCommHangRules) {
    if (rule(net, settings_, d)) break;
  }
  const HangKey key{DiagnosisClass::RankCommHang, d.node >= 0 ? kSomeone : kNobody, scene.newest};
  if (!reported_hangs_.insert(key).second) return;
  for (const Latest& latest : ranks_) {
    if (!stale(latest, now)) continue;
    d.evidence += stale_note(latest, now);
    break;
  }
  out.push_back(std::move(d));
}

}  // namespace pai::launcher
