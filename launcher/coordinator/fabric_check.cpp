#include "launcher/coordinator/fabric_check.h"

#include <algorithm>
#include <cstdio>
#include <random>
#include <utility>

#include "launcher/net/frame.h"

namespace pai::launcher::coordinator {

namespace {

// Beyond the measurement's own timeout, how long a round waits for the last report: the
// listener's start and the messages' way through the coordinator.
constexpr auto kRoundSlack = std::chrono::seconds(5);

// The nodes a check measures: connected, ready and not excluded; instances' nodes first.
std::vector<int> members_of(const CoordinatorState& state) {
  std::vector<int> members;
  for (const Instance& inst : state.instances) members.push_back(inst.node);
  for (std::size_t k = 0; k < state.nodes.size(); ++k) {
    if (state.nodes[k].instance < 0) members.push_back(static_cast<int>(k));
  }
  std::erase_if(members, [&](int k) {
    const Node& n = state.nodes[static_cast<std::size_t>(k)];
    return n.session < 0 || n.health != Health::Ready || !n.excluded.empty();
  });
  return members;
}

FabricThresholds thresholds_of(const Plan& plan) {
  FabricThresholds t;
  t.floor_gbps = plan.sanity_check.fabric.min_tcp_gbps;
  t.floor_bus_gbs = plan.sanity_check.fabric.min_bus_gbs;
  return t;
}

journal::FabricPair pair_record(const FabricPairResult& r, const std::vector<std::string>& names) {
  journal::FabricPair j{.round = r.round,
                        .first = names.at(static_cast<std::size_t>(r.first)),
                        .second = names.at(static_cast<std::size_t>(r.second)),
                        .error = r.error};
  if (r.error.empty()) {
    j.gbps = r.gbps;
    j.latency_us = r.latency_us;
    j.bus_gbs = r.bus_gbs;
  }
  return j;
}

}  // namespace

FabricCheck::FabricCheck(CoordinatorState& state)
    : state_(state),
      members_(members_of(state)),
      rounds_(static_cast<int>(members_.size()), thresholds_of(state.plan),
              state.plan.sanity_check.fabric.all_nodes),
      round_limit_(std::chrono::seconds(state.plan.sanity_check.fabric.timeout_seconds) +
                   kRoundSlack),
      key_state_(std::random_device{}()) {}

bool FabricCheck::start(Clock::time_point now) {
  const std::vector<FabricRequest> first = rounds_.start();
  if (first.empty()) {
    state_.record(journal::FabricSkipped{.nodes = static_cast<std::int64_t>(members_.size())},
                  "fabric check skipped: fewer than 2 nodes to pair");
    return false;
  }
  begin(first, now);
  return true;
}

void FabricCheck::begin(const std::vector<FabricRequest>& requests, Clock::time_point now) {
  requests_ = requests;
  keys_.clear();
  nccl_.clear();
  connecting_.assign(requests.size(), false);
  deadline_ = now + round_limit_;
  std::mt19937_64 random(key_state_);
  const int round = requests.front().round;
  const bool all_nodes = round == rounds_.all_nodes_round();
  journal::FabricRound record{.round = round, .all_nodes = all_nodes};
  for (const FabricRequest& r : requests) {
    // Names the partner, not a secret: the data connections are plain TCP.
    char key[33];
    std::snprintf(key, sizeof key, "%016llx%016llx", static_cast<unsigned long long>(random()),
                  static_cast<unsigned long long>(random()));
    keys_.emplace_back(key);
    record.pairs.push_back({name(r.nodes.first), name(r.nodes.second)});
    // NCCL where both ends have GPUs, after TCP; not in the all-nodes round, which looks for
    // congestion of the fabric alone.
    const int first_gpus = all_nodes ? 0 : nccl_gpus(r.nodes.first);
    const int second_gpus = all_nodes ? 0 : nccl_gpus(r.nodes.second);
    std::optional<net::FabricNccl> listener;
    nccl_.emplace_back();
    if (first_gpus > 0 && second_gpus > 0) {
      listener = net::FabricNccl{first_gpus + second_gpus, 0, ""};
      nccl_.back() = net::FabricNccl{first_gpus + second_gpus, first_gpus, ""};
    }
    state_.send_to_node(members_[static_cast<std::size_t>(r.nodes.first)],
                        net::FabricListen{r.round, r.pair, keys_.back(), listener});
  }
  key_state_ = random();
  state_.record(std::move(record),
                "fabric check round " + std::to_string(round) +
                    (all_nodes ? " (all nodes at once, across the halves of the plan)" : "") +
                    ": " + std::to_string(requests.size()) + " pairs of " +
                    std::to_string(members_.size()) + " nodes");
}

const FabricRequest* FabricCheck::outstanding(int round, int pair) const {
  if (rounds_.done() || round != rounds_.round()) return nullptr;
  for (const FabricRequest& r : rounds_.outstanding()) {
    if (r.pair == pair) {
      return &requests_.at(static_cast<std::size_t>(pair));
    }
  }
  return nullptr;
}

int FabricCheck::member_of(int node) const {
  const auto it = std::find(members_.begin(), members_.end(), node);
  return it == members_.end() ? -1 : static_cast<int>(it - members_.begin());
}

std::string FabricCheck::name(int member) const {
  return state_.nodes[static_cast<std::size_t>(members_.at(static_cast<std::size_t>(member)))].name;
}

std::vector<std::string> FabricCheck::names() const {
  std::vector<std::string> out;
  for (std::size_t k = 0; k < members_.size(); ++k) out.push_back(name(static_cast<int>(k)));
  return out;
}

void FabricCheck::listening(int node, const net::FabricListening& m, Clock::time_point) {
  const int member = member_of(node);
  if (m.round > rounds_.round() || member < 0) {
    net::fail(m, "round", "no fabric round " + std::to_string(m.round) + " was asked of it");
  }
  const FabricRequest* r = outstanding(m.round, m.pair);
  if (r == nullptr) return;  // over: timed out, or its partner's error came first
  if (r->nodes.first != member) net::fail(m, "pair", "this node does not listen in that pair");
  const std::size_t k = static_cast<std::size_t>(m.pair);
  if (connecting_[k]) net::fail(m, "pair", "already listening");
  connecting_[k] = true;
  // No address: the listener listens on every address; it is reached where it reaches us.
  std::string address = m.address;
  if (address.empty()) {
    const Node& n = state_.nodes[static_cast<std::size_t>(node)];
    address = state_.sessions.at(n.session).peer.address;
  }
  std::optional<net::FabricNccl> nccl = nccl_[k];
  if (nccl && m.nccl_id.empty()) net::fail(m, "ncclId", "missing: the pair runs NCCL");
  if (!nccl && !m.nccl_id.empty()) net::fail(m, "ncclId", "the pair runs no NCCL");
  if (nccl) nccl->unique_id = m.nccl_id;
  state_.send_to_node(members_[static_cast<std::size_t>(r->nodes.second)],
                      net::FabricConnect{m.round, m.pair, keys_[k], address, m.port, nccl});
}

int FabricCheck::nccl_gpus(int member) const {
  const Plan& plan = state_.plan;
  if (!plan.sanity_check.fabric.nccl) return 0;
  const int node = members_.at(static_cast<std::size_t>(member));
  const Node& n = state_.nodes[static_cast<std::size_t>(node)];
  const std::string& role = n.instance >= 0
                                ? plan.placements.at(static_cast<std::size_t>(n.instance)).role
                                : plan.master_role;
  for (const Role& r : plan.roles) {
    if (r.name == role) return r.resources.gpu;
  }
  return 0;
}

void FabricCheck::result(int node, const net::FabricResult& m, Clock::time_point now) {
  const int member = member_of(node);
  if (m.round > rounds_.round() || member < 0) {
    net::fail(m, "round", "no fabric round " + std::to_string(m.round) + " was asked of it");
  }
  const FabricRequest* r = outstanding(m.round, m.pair);
  if (r == nullptr) return;
  if (r->nodes.first != member && r->nodes.second != member) {
    net::fail(m, "pair", "this node is not in that pair");
  }
  // Only the connector measures; the listener reports only that it could not listen.
  const bool connector = r->nodes.second == member;
  if (m.error.empty() && !connector) net::fail(m, "pair", "the listening end sends no figures");
  const bool nccl = nccl_.at(static_cast<std::size_t>(m.pair)).has_value();
  if (m.error.empty() && nccl != m.bus_mbps.has_value()) {
    net::fail(m, "busMBps", nccl ? "missing: the pair runs NCCL" : "the pair runs no NCCL");
  }
  FabricPairResult figures;
  figures.error = m.error.empty() ? "" : name(member) + ": " + m.error;
  figures.gbps = static_cast<double>(std::min(m.out_kbps, m.in_kbps)) / 1e6;
  figures.latency_us = static_cast<double>(m.latency_ns) / 1e3;
  if (m.bus_mbps) figures.bus_gbs = static_cast<double>(*m.bus_mbps) / 1e3;
  take(*r, std::move(figures), now);
}

void FabricCheck::node_lost(int node, Clock::time_point now) {
  const int member = member_of(node);
  if (member < 0 || rounds_.done()) return;
  const int round = rounds_.round();
  for (const FabricRequest& r : rounds_.outstanding()) {
    if (r.nodes.first != member && r.nodes.second != member) continue;
    FabricPairResult figures;
    figures.error = name(member) + ": launcher lost";
    take(r, std::move(figures), now);
    if (rounds_.done() || rounds_.round() != round) return;
  }
}

void FabricCheck::take(const FabricRequest& request, FabricPairResult figures,
                       Clock::time_point now) {
  const FabricRequest r = request;  // the round may end, and requests_ with it
  figures.first = r.nodes.first;
  figures.second = r.nodes.second;
  figures.round = r.round;
  journal::FabricPair record = pair_record(figures, names());
  record.pair = r.pair;
  const std::vector<FabricRequest> next = rounds_.result(r.round, r.pair, std::move(figures));
  state_.record(std::move(record));
  if (!next.empty()) {
    begin(next, now);
  } else if (rounds_.done()) {
    finish();
  }
}

void FabricCheck::tick(Clock::time_point now) {
  if (rounds_.done() || now < deadline_) return;
  const int round = rounds_.round();
  const std::vector<FabricRequest> late = rounds_.outstanding();
  const std::vector<FabricRequest> next =
      rounds_.expire("no report within " + duration_text(round_limit_));
  const std::vector<std::string> all = names();
  for (const FabricPairResult& r : rounds_.results()) {
    if (r.round != round) continue;
    for (const FabricRequest& l : late) {
      if (l.nodes.first == r.first && l.nodes.second == r.second) {
        state_.record(pair_record(r, all));
      }
    }
  }
  if (!next.empty()) {
    begin(next, now);
  } else if (rounds_.done()) {
    finish();
  }
}

std::optional<Clock::time_point> FabricCheck::next_deadline() const {
  if (rounds_.done()) return std::nullopt;
  return deadline_;
}

void FabricCheck::finish() {
  const FabricVerdict& v = rounds_.verdict();
  const std::vector<std::string> all = names();
  journal::FabricVerdict record{.healthy = v.healthy(),
                                .rounds = rounds_.round(),
                                .median_gbps = v.median_gbps,
                                .relative_floor_gbps = v.relative_floor_gbps};
  for (const FabricPairResult& r : rounds_.results()) record.pairs.push_back(pair_record(r, all));
  for (const FabricBadNode& b : v.bad_nodes) record.bad_nodes.push_back(all.at(b.node));
  for (const FabricBadLink& l : v.bad_links) {
    record.bad_links.push_back({all.at(l.first), all.at(l.second)});
  }
  for (int s : v.suspects) record.suspects.push_back(all.at(s));
  const int pair_rounds =
      rounds_.all_nodes_round() > 0 ? rounds_.all_nodes_round() - 1 : rounds_.round();
  std::string line = "fabric check failed after " + std::to_string(pair_rounds) + " rounds";
  if (v.healthy()) {
    char text[128];
    std::snprintf(text, sizeof text,
                  "fabric check passed: %zu nodes in %d rounds, median %.2f Gbit/s", all.size(),
                  pair_rounds, v.median_gbps);
    line = text;
  }
  for (const std::string& row : report()) line += "\n" + row;
  state_.record(std::move(record), line);
  if (const auto& c = rounds_.congestion()) record_congestion(*c, all);
}

void FabricCheck::record_congestion(const FabricCongestion& c,
                                    const std::vector<std::string>& all) {
  journal::FabricCongestion record{
      .congested = c.congested(), .median_gbps = c.median_gbps, .median_ratio = c.median_ratio};
  for (std::size_t k = 0; k < c.results.size(); ++k) {
    journal::FabricPair pair = pair_record(c.results[k], all);
    pair.expected_gbps = c.expected_gbps[k];
    record.pairs.push_back(std::move(pair));
  }
  for (int k : c.slow) {
    const FabricPairResult& r = c.results[static_cast<std::size_t>(k)];
    record.slow_pairs.push_back({all.at(r.first), all.at(r.second)});
  }
  // A warning: congestion is the fabric's, no node is to blame or excluded.
  const std::string line = congestion_line(c, all);
  state_.record(std::move(record), c.congested() || !c.slow.empty() ? "warning: " + line : line);
}

std::vector<FabricExclusion> FabricCheck::exclusions() const {
  std::vector<FabricExclusion> out;
  if (!rounds_.done()) return out;
  const std::vector<std::string> all = names();
  const std::vector<std::string> findings = fabric_findings(rounds_.verdict(), all);
  auto add = [&](int member, const std::string& why) {
    const int node = members_[static_cast<std::size_t>(member)];
    for (const FabricExclusion& e : out) {
      if (e.node == node) return;
    }
    out.push_back(FabricExclusion{node, "fabric check: " + why});
  };
  const FabricVerdict& v = rounds_.verdict();
  std::size_t finding = 0;
  for (const FabricBadNode& b : v.bad_nodes) add(b.node, findings.at(finding++));
  for (const FabricBadLink& l : v.bad_links) {
    // Members are instances' nodes first: the later one is the spare when there is one.
    add(std::max(l.first, l.second), findings.at(finding++));
  }
  for (int s : rounds_.excluded()) {
    const bool bad = std::any_of(v.bad_nodes.begin(), v.bad_nodes.end(),
                                 [&](const FabricBadNode& b) { return b.node == s; });
    if (!bad)
      add(s, all.at(static_cast<std::size_t>(s)) + " is suspect: it never passed with a partner");
  }
  return out;
}

std::vector<std::string> FabricCheck::report() const {
  const std::vector<std::string> all = names();
  std::vector<std::string> lines = fabric_findings(rounds_.verdict(), all);
  for (std::string& row : fabric_table(rounds_.results(), rounds_.verdict(), all)) {
    lines.push_back(std::move(row));
  }
  return lines;
}

}  // namespace pai::launcher::coordinator
