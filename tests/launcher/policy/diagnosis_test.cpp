#include "launcher/policy/diagnosis.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace diagnosis_test {

using namespace pai::launcher;
using std::chrono::milliseconds;

namespace {

const Diagnoser::Clock::time_point t0{};
Diagnoser::Clock::time_point at(std::int64_t ms) { return t0 + milliseconds(ms); }

// ---- Recorded streams (tests/fixtures/diagnosis, written by make_streams.py there) ----

struct Received {
  RankSample sample;
  std::int64_t t_ms = 0;
};

std::vector<Received> load(const std::string& name) {
  const std::string path = PAI_SOURCE_DIR "/tests/fixtures/diagnosis/" + name + ".jsonl";
  std::ifstream in(path);
  REQUIRE(in);
  std::vector<Received> out;
  for (std::string line; std::getline(in, line);) {
    const auto j = nlohmann::json::parse(line);
    RankSample s;
    s.rank = j.at("rank");
    s.node = j.at("node");
    s.node_name = j.at("node_name");
    s.gpu = j.at("gpu");
    s.step = j.at("step");
    s.steps = j.at("steps");
    s.step_us = j.at("step_us");
    s.window_us = j.at("window_us");
    s.comm_us = j.at("comm_us");
    s.entered = j.at("entered");
    s.exited = j.at("exited");
    s.open_ms = j.at("open_ms");
    s.open_op = j.at("open_op");
    s.quiet_ms = j.at("quiet_ms");
    s.tcp_rtt_us = j.at("tcp_rtt_us");
    s.tcp_retrans = j.at("tcp_retrans");
    out.push_back({s, j.at("t_ms")});
  }
  REQUIRE_FALSE(out.empty());
  return out;
}

struct Verdict {
  Diagnosis diagnosis;
  std::int64_t t_ms = 0;
};

// Feeds the stream as the coordinator would, deciding after every sample.
std::vector<Verdict> replay(Diagnoser& diagnoser, const std::vector<Received>& stream) {
  std::vector<Verdict> out;
  for (const Received& r : stream) {
    CHECK(diagnoser.observe(r.sample, at(r.t_ms)));
    for (Diagnosis& d : diagnoser.decide(at(r.t_ms))) out.push_back({std::move(d), r.t_ms});
  }
  return out;
}

std::vector<Verdict> replay(const std::string& name, DiagnosisSettings settings = {}) {
  Diagnoser diagnoser(8, settings);
  return replay(diagnoser, load(name));
}

// ---- Synthetic windows: 2 nodes of 4 GPUs, every rank's sample received at once ----

constexpr int kGpus = 4;
constexpr int kRanks = 8;

RankSample sample(int rank) {
  RankSample s;
  s.rank = rank;
  s.node = rank / kGpus;
  s.node_name = "node-" + std::to_string(s.node);
  s.gpu = rank % kGpus;
  s.window_us = 1'000'000;
  s.quiet_ms = 3;
  s.tcp_rtt_us = 200;
  s.tcp_retrans = 0;
  return s;
}

// A little fixed jitter, -1%..+1% of a window, with a median of 0 over any 7 or 8 ranks.
double jitter(int rank) { return 0.01 * (rank % 3 - 1); }

// Every rank's window `w` of steady training: 5 steps of 200 ms, one all_reduce each, the
// rank outside collectives for `compute(rank)` of the window.
std::vector<RankSample> training(int w, const std::function<double(int)>& compute) {
  std::vector<RankSample> out;
  for (int r = 0; r < kRanks; ++r) {
    RankSample s = sample(r);
    s.step = 5 * w + 4;
    s.steps = 5;
    s.step_us = 1'000'000;
    s.comm_us = static_cast<std::int64_t>((1 - compute(r)) * 1e6);
    s.entered = s.exited = 5 * (w + 1);
    out.push_back(s);
  }
  return out;
}

double even(int rank) { return 0.6 + jitter(rank); }

std::function<double(int)> slower(int slow, double share) {
  return [=](int rank) { return rank == slow ? share : even(rank); };
}

// Rank `rank` inside collective `seq` (an all_reduce) for `open_ms`.
RankSample waiting(int rank, std::int64_t seq, std::int64_t open_ms) {
  RankSample s = sample(rank);
  s.step = seq - 1;
  s.entered = seq;
  s.exited = seq - 1;
  s.open_ms = open_ms;
  s.open_op = 1;
  s.comm_us = s.window_us;
  s.quiet_ms = open_ms;
  return s;
}

// Rank `rank` outside collectives after collective `done`, its last record `quiet_ms` ago.
RankSample computing(int rank, std::int64_t done, std::int64_t quiet_ms) {
  RankSample s = sample(rank);
  s.step = done;
  s.entered = s.exited = done;
  s.quiet_ms = quiet_ms;
  return s;
}

std::vector<RankSample> all(const std::function<RankSample(int)>& make) {
  std::vector<RankSample> out;
  for (int r = 0; r < kRanks; ++r) out.push_back(make(r));
  return out;
}

std::vector<Diagnosis> tick(Diagnoser& d, std::int64_t t_ms, const std::vector<RankSample>& s) {
  for (const RankSample& one : s) CHECK(d.observe(one, at(t_ms)));
  return d.decide(at(t_ms));
}

void append(std::vector<Diagnosis>& to, std::vector<Diagnosis> more) {
  for (Diagnosis& d : more) to.push_back(std::move(d));
}

// `windows` training windows from window `first`, one a second.
std::vector<Diagnosis> train(Diagnoser& d, int first, int windows,
                             const std::function<double(int)>& compute) {
  std::vector<Diagnosis> out;
  for (int w = first; w < first + windows; ++w) {
    append(out, tick(d, 1000 * (w + 1), training(w, compute)));
  }
  return out;
}

// Ranks other than `culprit` entered collective 10 at t = 0 and wait in it; `culprit` finished
// collective `done` 500 ms before. One sample each second from 1 s to `seconds`.
std::vector<Diagnosis> hang(Diagnoser& d, int seconds, int culprit = 5, std::int64_t done = 9) {
  std::vector<Diagnosis> out;
  for (std::int64_t t = 1000; t <= seconds * 1000; t += 1000) {
    append(out, tick(d, t, all([&](int r) {
                       return r == culprit ? computing(r, done, t + 500) : waiting(r, 10, t);
                     })));
  }
  return out;
}

}  // namespace

TEST_CASE("the journal spells the classes and severities") {
  CHECK(std::string(pai::to_string(DiagnosisClass::RankNonCommHang)) == "RankNonCommHang");
  CHECK(std::string(pai::to_string(DiagnosisClass::RankCommHang)) == "RankCommHang");
  CHECK(std::string(pai::to_string(DiagnosisClass::RankNonCommSlow)) == "RankNonCommSlow");
  CHECK(std::string(pai::to_string(DiagnosisClass::RankCommSlow)) == "RankCommSlow");
  CHECK(std::string(pai::to_string(Severity::Warning)) == "warning");
  CHECK(std::string(pai::to_string(Severity::Critical)) == "critical");
}

// ---- Recorded streams ----

TEST_CASE("recorded: 300 healthy windows of 8 ranks, warm-up and a noisy window, name nobody") {
  const std::vector<Received> stream = load("healthy_8ranks");
  CHECK(stream.size() == 300 * 8);
  Diagnoser diagnoser(8);
  CHECK(replay(diagnoser, stream).empty());
}

TEST_CASE("recorded: a rank 30% slower per step is named once, within 20 steps") {
  const std::vector<Verdict> verdicts = replay("slow_rank");
  REQUIRE(verdicts.size() == 1);
  const Diagnosis& d = verdicts[0].diagnosis;
  CHECK(d.cls == DiagnosisClass::RankNonCommSlow);
  CHECK(d.severity == Severity::Warning);
  CHECK(d.rank == 5);
  CHECK(d.node == 1);
  CHECK(d.node_name == "node-1");
  CHECK(d.gpu == 1);
  CHECK_THAT(d.evidence, Catch::StartsWith("rank 5 (node-1, GPU 1) spent ") &&
                             Catch::Contains("on the other 7 ranks") &&
                             Catch::Contains(", the least time in collectives, 5 windows in a row; "
                                             "its last step was "));
  // Rank 5 is slow from step 130 on (SLOW_FROM_STEP in make_streams.py): the step the job is
  // in when it is named, as rank 5's latest sample says.
  std::int64_t step = -1;
  for (const Received& r : load("slow_rank")) {
    if (r.sample.rank == 5 && r.t_ms <= verdicts[0].t_ms) step = r.sample.step;
  }
  CHECK(step - 130 <= 20);
}

TEST_CASE("recorded: a rank stuck outside the all_reduce the others wait in is named") {
  const std::vector<Verdict> verdicts = replay("noncomm_hang");
  REQUIRE(verdicts.size() == 1);
  const Diagnosis& d = verdicts[0].diagnosis;
  CHECK(d.cls == DiagnosisClass::RankNonCommHang);
  CHECK(d.severity == Severity::Critical);
  CHECK(d.rank == 5);
  CHECK(d.node == 1);
  CHECK(d.gpu == 1);
  CHECK_THAT(d.evidence, Catch::Matches("rank 5 \\(node-1, GPU 1\\) never entered all_reduce #\\d+ "
                                        "that 7 ranks have waited in for 60 s; its last step was "
                                        "\\d+, its last record 6\\d s ago"));
  // The others entered it shortly after 20 s: named a minute later, not before.
  CHECK(verdicts[0].t_ms >= 80000);
  CHECK(verdicts[0].t_ms < 82000);
}

TEST_CASE("recorded: a collective hung on every rank names the node that retransmits") {
  const std::vector<Verdict> verdicts = replay("comm_hang");
  REQUIRE(verdicts.size() == 1);
  const Diagnosis& d = verdicts[0].diagnosis;
  CHECK(d.cls == DiagnosisClass::RankCommHang);
  CHECK(d.severity == Severity::Critical);
  CHECK(d.rank == -1);
  CHECK(d.node == 1);
  CHECK(d.node_name == "node-1");
  CHECK(d.gpu == -1);
  CHECK_THAT(d.evidence, Catch::Matches("all 8 ranks have been inside all_reduce #\\d+ for at "
                                        "least 60 s; node-1's TCP retransmits grew by \\d+ during "
                                        "the hang, other nodes' by at most \\d+"));
}

TEST_CASE("recorded: hangs shorter than the threshold name nobody") {
  DiagnosisSettings settings;
  settings.hang_seconds = 90;  // the streams hang for about 80 s
  CHECK(replay("noncomm_hang", settings).empty());
  CHECK(replay("comm_hang", settings).empty());
}

TEST_CASE("recorded: a slow link names its node once") {
  const std::vector<Verdict> verdicts = replay("comm_slow_rtt");
  REQUIRE(verdicts.size() == 1);
  const Diagnosis& d = verdicts[0].diagnosis;
  CHECK(d.cls == DiagnosisClass::RankCommSlow);
  CHECK(d.severity == Severity::Warning);
  CHECK(d.rank == -1);
  CHECK(d.node == 2);
  CHECK(d.node_name == "node-2");
  CHECK(d.gpu == -1);
  CHECK_THAT(d.evidence,
             Catch::Matches("node-2's TCP round-trip time is \\d+\\.\\d ms, \\d+\\.\\dx "
                            "the other nodes' median of 0\\.\\d ms while ranks spend "
                            "\\d+% of each window in collectives, 5 windows in a row"));
  // It slowed down at 30 s: named after 5 windows, 6 at most when the first one straddles it.
  CHECK(verdicts[0].t_ms > 35000);
  CHECK(verdicts[0].t_ms < 37500);
}

TEST_CASE("a slow link's verdict holds while its node stays slow") {
  Diagnoser d(8);
  const std::vector<Verdict> verdicts = replay(d, load("comm_slow_rtt"));
  REQUIRE(verdicts.size() == 1);
  // The recording ends with the link still slow.
  CHECK(d.holds(verdicts[0].diagnosis));
  Diagnosis other = verdicts[0].diagnosis;
  other.node = 1;
  CHECK_FALSE(d.holds(other));  // never named
}

TEST_CASE("recorded: without RTT figures, or below the RTT factor, a slow link names nobody") {
  std::vector<Received> stream = load("comm_slow_rtt");
  for (Received& r : stream) r.sample.tcp_rtt_us = -1;
  Diagnoser blind(8);
  CHECK(replay(blind, stream).empty());

  DiagnosisSettings settings;
  settings.rtt_factor = 100;  // node-2's RTT is ~30 times the others'
  CHECK(replay("comm_slow_rtt", settings).empty());
}

// ---- RankNonCommSlow ----

TEST_CASE("a slow rank is named after 5 windows, with what it computed and its step") {
  Diagnoser d(kRanks);
  CHECK(train(d, 0, 4, slower(5, 0.8)).empty());
  const std::vector<Diagnosis> v = train(d, 4, 1, slower(5, 0.8));
  REQUIRE(v.size() == 1);
  CHECK(v[0].cls == DiagnosisClass::RankNonCommSlow);
  CHECK(v[0].rank == 5);
  CHECK(v[0].node == 1);
  CHECK(v[0].node_name == "node-1");
  CHECK(v[0].gpu == 1);
  CHECK(v[0].severity == Severity::Warning);
  CHECK(v[0].evidence ==
        "rank 5 (node-1, GPU 1) spent 80% of its last window computing against a median of 60% "
        "on the other 7 ranks (1.33x), the least time in collectives, 5 windows in a row; its "
        "last step was 24 (200 ms per step)");
}

TEST_CASE("a rank 10% slower is not named") {
  Diagnoser d(kRanks);
  CHECK(train(d, 0, 100, slower(5, 0.66)).empty());
}

TEST_CASE("a single noisy window names nobody, and breaks a streak") {
  Diagnoser d(kRanks);
  CHECK(train(d, 0, 10, even).empty());
  CHECK(train(d, 10, 1, slower(2, 0.95)).empty());
  CHECK(train(d, 11, 4, slower(5, 0.8)).empty());
  CHECK(train(d, 15, 1, even).empty());
  CHECK(train(d, 16, 4, slower(5, 0.8)).empty());
  CHECK(train(d, 20, 1, slower(5, 0.8)).size() == 1);
}

TEST_CASE("a slow rank is named once, and again only after it was clear for 5 windows") {
  Diagnoser d(kRanks);
  CHECK(train(d, 0, 30, slower(5, 0.8)).size() == 1);
  CHECK(train(d, 30, 4, even).empty());
  CHECK(train(d, 34, 10, slower(5, 0.8)).empty());
  CHECK(train(d, 44, 5, even).empty());
  const std::vector<Diagnosis> again = train(d, 49, 5, slower(5, 0.8));
  REQUIRE(again.size() == 1);
  CHECK(again[0].rank == 5);
}

TEST_CASE("a slow verdict holds until its rank was clear for 5 windows - not after a reset") {
  Diagnoser d(kRanks);
  const std::vector<Diagnosis> v = train(d, 0, 10, slower(5, 0.8));
  REQUIRE(v.size() == 1);
  CHECK(d.holds(v[0]));
  CHECK(train(d, 10, 4, even).empty());
  CHECK(d.holds(v[0]));  // 4 clear windows: still the same episode
  CHECK(train(d, 14, 1, even).empty());
  CHECK_FALSE(d.holds(v[0]));
  // A hang verdict never holds; neither does a rank out of range.
  Diagnosis hang = v[0];
  hang.cls = DiagnosisClass::RankNonCommHang;
  CHECK_FALSE(d.holds(hang));
  Diagnosis outside = v[0];
  outside.rank = kRanks;
  CHECK_FALSE(d.holds(outside));
  CHECK(train(d, 15, 10, slower(5, 0.8)).size() == 1);
  CHECK(d.holds(v[0]));
  d.reset();
  CHECK_FALSE(d.holds(v[0]));
}

TEST_CASE("a node whose ranks all compute more is not a slow rank") {
  // Nodes' windows are offset: with steps about a window long, one node's window can hold one
  // more compute phase than another's, for all its ranks alike.
  Diagnoser d(kRanks);
  CHECK(train(d, 0, 30, [](int r) { return r / kGpus == 1 ? 0.8 : even(r); }).empty());
}

TEST_CASE("windows in which the ranks made no progress are not judged") {
  Diagnoser d(kRanks);
  // A warm-up in which rank 5 takes 10 s longer to reach the first all_reduce: no step ends
  // and no collective completes, so nothing is judged, although it computes the whole window.
  for (std::int64_t t = 1000; t <= 10'000; t += 1000) {
    CHECK(
        tick(d, t, all([&](int r) { return r == 5 ? computing(r, 0, t + 500) : waiting(r, 1, t); }))
            .empty());
  }
  // Training with rank 5 slow: its streak starts here.
  CHECK(train(d, 10, 4, slower(5, 0.8)).empty());
  CHECK(train(d, 14, 1, slower(5, 0.8)).size() == 1);
}

// ---- RankCommSlow ----

std::function<double(int)> busy(double compute) {
  return [=](int rank) { return compute + jitter(rank); };
}

// Training windows in which node 1's ranks report `node1_rtt_us`, the others 200 us.
std::vector<Diagnosis> slow_link(Diagnoser& d, int first, int windows, double compute,
                                 std::int64_t node1_rtt_us) {
  std::vector<Diagnosis> out;
  for (int w = first; w < first + windows; ++w) {
    std::vector<RankSample> window = training(w, busy(compute));
    for (RankSample& s : window) {
      if (s.node == 1) s.tcp_rtt_us = node1_rtt_us;
    }
    append(out, tick(d, 1000 * (w + 1), window));
  }
  return out;
}

TEST_CASE("a node with a slow link is named once, as a node") {
  Diagnoser d(kRanks);
  CHECK(slow_link(d, 0, 4, 0.3, 5000).empty());
  const std::vector<Diagnosis> v = slow_link(d, 4, 20, 0.3, 5000);
  REQUIRE(v.size() == 1);
  CHECK(v[0].cls == DiagnosisClass::RankCommSlow);
  CHECK(v[0].rank == -1);
  CHECK(v[0].node == 1);
  CHECK(v[0].node_name == "node-1");
  CHECK(v[0].gpu == -1);
  CHECK(v[0].severity == Severity::Warning);
  CHECK(v[0].evidence ==
        "node-1's TCP round-trip time is 5.0 ms, 25.0x the other nodes' median of 0.2 ms while "
        "ranks spend 70% of each window in collectives, 5 windows in a row");
}

// Training windows of 4 nodes of 2 ranks (node = rank / 2), busy in collectives, where each
// node's ranks report `rtt_us[node]` and `slow_peers[node]`.
std::vector<Diagnosis> four_nodes(Diagnoser& d, int windows,
                                  const std::vector<std::int64_t>& rtt_us,
                                  const std::vector<std::vector<int>>& slow_peers) {
  std::vector<Diagnosis> out;
  for (int w = 0; w < windows; ++w) {
    std::vector<RankSample> window = training(w, busy(0.3));
    for (RankSample& s : window) {
      s.node = s.rank / 2;
      s.node_name = "node-" + std::to_string(s.node);
      s.gpu = s.rank % 2;
      s.tcp_rtt_us = rtt_us[static_cast<std::size_t>(s.node)];
      s.slow_peer_nodes = slow_peers[static_cast<std::size_t>(s.node)];
    }
    append(out, tick(d, 1000 * (w + 1), window));
  }
  return out;
}

std::vector<int> named_nodes(const std::vector<Diagnosis>& verdicts) {
  std::vector<int> nodes;
  for (const Diagnosis& v : verdicts) {
    CHECK(v.cls == DiagnosisClass::RankCommSlow);
    nodes.push_back(v.node);
  }
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

// Training windows of 4 nodes of 2 ranks on RDMA: the same TCP round-trip time everywhere
// (no TCP connection carries NCCL's traffic), each rank sending 1 GB a window to the next
// node of a ring; links touching node `slow` at a fifth of the others' rate.
std::vector<Diagnosis> rdma_ring(Diagnoser& d, int windows, int slow) {
  std::vector<Diagnosis> out;
  for (int w = 0; w < windows; ++w) {
    std::vector<RankSample> window = training(w, busy(0.3));
    for (RankSample& s : window) {
      s.node = s.rank / 2;
      s.node_name = "node-" + std::to_string(s.node);
      s.gpu = s.rank % 2;
      const int next = (s.node + 1) % 4;
      const double seconds = (s.node == slow || next == slow) ? 5 : 1;
      s.nccl_sends = {{s.node, next, 1e9, seconds * 1e5}};
    }
    append(out, tick(d, 1000 * (w + 1), window));
  }
  return out;
}

TEST_CASE("on RDMA, where TCP shows nothing, the node of the slow NCCL links is named") {
  Diagnoser d(kRanks);
  const std::vector<Diagnosis> v = rdma_ring(d, 20, 2);
  REQUIRE(v.size() == 1);
  CHECK(v[0].cls == DiagnosisClass::RankCommSlow);
  CHECK(v[0].node == 2);
  CHECK(v[0].node_name == "node-2");
  CHECK(v[0].evidence ==
        "NCCL transfers to and from node-2 run at 2.0 GB/s, 5.0x below the other links' median "
        "of 10.0 GB/s (4 links) while ranks spend 70% of each window in collectives, 5 windows "
        "in a row");
  // A healthy ring names nobody.
  Diagnoser healthy(kRanks);
  CHECK(rdma_ring(healthy, 20, -1).empty());
}

TEST_CASE("a slow TCP link is the evidence when there is one - NCCL's rates are not asked") {
  // The ring's NCCL figures alone name node 2 (above); node 1's TCP round-trip time stands out.
  std::vector<Diagnosis> out;
  Diagnoser d(kRanks);
  for (int w = 0; w < 20; ++w) {
    std::vector<RankSample> window = training(w, busy(0.3));
    for (RankSample& s : window) {
      s.node = s.rank / 2;
      s.node_name = "node-" + std::to_string(s.node);
      s.gpu = s.rank % 2;
      if (s.node == 1) s.tcp_rtt_us = 5000;
      const int next = (s.node + 1) % 4;
      s.nccl_sends = {{s.node, next, 1e9, (s.node == 2 || next == 2 ? 5 : 1) * 1e5}};
    }
    append(out, tick(d, 1000 * (w + 1), window));
  }
  REQUIRE(out.size() == 1);
  CHECK(out[0].node == 1);
  CHECK(out[0].evidence.starts_with("node-1's TCP round-trip time is 5.0 ms"));
}

TEST_CASE("a slow node's neighbour, slow only towards it, is not named with it") {
  // Node 1's links are all slow (a rate limit on its port): its ranks' RTT is high to every
  // peer, so they name no peer in particular. Node 2, its ring neighbour, waits on it: half its
  // connections are slow, which lifts its median too, but they all lead to node 1.
  const std::vector<std::int64_t> rtt = {200, 5000, 2600, 200};
  Diagnoser without_peers(kRanks);
  CHECK(named_nodes(four_nodes(without_peers, 10, rtt, {{}, {}, {}, {}})) ==
        std::vector<int>{1, 2});
  Diagnoser d(kRanks);
  const std::vector<Diagnosis> v = four_nodes(d, 10, rtt, {{}, {}, {1}, {}});
  REQUIRE(named_nodes(v) == std::vector<int>{1});
  CHECK(v[0].evidence ==
        "node-1's TCP round-trip time is 5.0 ms, 25.0x the other nodes' median of 0.2 ms "
        "(node-2 is slow only on connections to it) while ranks spend 70% of each window in "
        "collectives, 5 windows in a row");
}

TEST_CASE("in a ring, the node before a slow one is named neither") {
  // A ring all-reduce 0 -> 1 -> 2 -> 3 -> 0, one connection sending per rank, node 2's egress
  // limited: node 1's sends wait for node 2's late ACKs, node 2's for its own queue. Each
  // names the one peer it sends to.
  Diagnoser d(kRanks);
  const std::vector<Diagnosis> v = four_nodes(d, 10, {200, 5400, 5500, 200}, {{}, {2}, {3}, {}});
  REQUIRE(named_nodes(v) == std::vector<int>{2});
  CHECK_THAT(v[0].evidence, Catch::Contains("(node-1 is slow only on connections to it)"));
}

TEST_CASE("in a ring, a node slow only towards a neighbour that waits on the slow node is not "
          "named") {
  // Seen with 4 gloo ranks, node 2's egress at 5 Mbit/s, a busy loop beside: node 1 is slow
  // only to node 2 and stands out nowhere; node 0, slow only to node 1 (its ACKs come late),
  // stands out by 3.9x.
  const std::vector<std::int64_t> rtt = {3100, 800, 5900, 800};
  Diagnoser d(kRanks);
  std::vector<Diagnosis> v = four_nodes(d, 10, rtt, {{1}, {2}, {}, {}});
  REQUIRE(named_nodes(v) == std::vector<int>{2});
  // Two steps back, too.
  Diagnoser longer(kRanks);
  CHECK(named_nodes(four_nodes(longer, 10, {3100, 800, 800, 5900}, {{1}, {2}, {3}, {}})) ==
        std::vector<int>{3});
  // Node 1 naming node 0 back: their link is slow from both ends, node 0 is named.
  Diagnoser both(kRanks);
  CHECK(named_nodes(four_nodes(both, 10, rtt, {{1}, {0, 2}, {}, {}})) == std::vector<int>{0, 2});
  // Node 1 slow towards node 3 as well, which waits on nobody: node 1 does not wait on node 2
  // alone, so node 0 is named.
  Diagnoser elsewhere(kRanks);
  CHECK(named_nodes(four_nodes(elsewhere, 10, rtt, {{1}, {2, 3}, {}, {}})) ==
        std::vector<int>{0, 2});
}

TEST_CASE("a node that most others name as their slow peer is named below the RTT factor") {
  // Seen with 4 gloo ranks, node 2's egress at 1 Mbit/s: every node sends to it, so every
  // node's RTT rose; node 2's is only 2x the others' median, but nodes 0, 1 and 3 all name it.
  Diagnoser d(kRanks);
  const std::vector<Diagnosis> v =
      four_nodes(d, 10, {5000, 25000, 50000, 28000}, {{2}, {2}, {}, {2}});
  REQUIRE(named_nodes(v) == std::vector<int>{2});
  CHECK(v[0].evidence ==
        "node-2's TCP round-trip time is 50.0 ms, 2.0x the other nodes' median of 25.0 ms, and 3 "
        "of the 3 other nodes are slowest on their connections to it while ranks spend 70% of "
        "each window in collectives, 5 windows in a row");
  // Named by one node of three: not enough.
  Diagnoser one(kRanks);
  CHECK(four_nodes(one, 10, {5000, 25000, 50000, 28000}, {{2}, {}, {}, {}}).empty());
  // Named by all, but not slower than them by the margin.
  Diagnoser close(kRanks);
  CHECK(four_nodes(close, 10, {5000, 25000, 25500, 28000}, {{2}, {2}, {}, {2}}).empty());
}

TEST_CASE("two nodes slow towards each other share a slow link: both are named") {
  Diagnoser d(kRanks);
  const std::vector<Diagnosis> v = four_nodes(d, 10, {200, 2600, 2600, 200}, {{}, {2}, {1}, {}});
  REQUIRE(named_nodes(v) == std::vector<int>{1, 2});
  for (const Diagnosis& each : v) {
    const std::string other = each.node == 1 ? "node-2" : "node-1";
    CHECK_THAT(each.evidence,
               Catch::Contains("(its link to " + other + " is slow from both ends)"));
  }
}

TEST_CASE("a node slow towards a node that is not slow is still named") {
  // Node 2's connections to node 3 are slow, but node 3 stands out nowhere: node 2's own
  // figures are what there is.
  Diagnoser d(kRanks);
  CHECK(named_nodes(four_nodes(d, 10, {200, 200, 5000, 200}, {{}, {}, {3}, {}})) ==
        std::vector<int>{2});
}

TEST_CASE("near misses of a slow link name nobody") {
  Diagnoser below_factor(kRanks);
  CHECK(slow_link(below_factor, 0, 30, 0.3, 500).empty());  // 2.5 times
  Diagnoser too_close(kRanks);
  CHECK(slow_link(too_close, 0, 30, 0.3, 900).empty());  // 4.5 times but only 0.7 ms more
  Diagnoser not_busy(kRanks);
  CHECK(slow_link(not_busy, 0, 30, 0.6, 5000).empty());  // 40% of the window in collectives
}

TEST_CASE("while a rank is slow, waiting on it is not blamed on a link") {
  Diagnoser d(kRanks);
  std::vector<Diagnosis> v;
  for (int w = 0; w < 30; ++w) {
    std::vector<RankSample> window = training(w, [](int r) { return r == 2 ? 0.5 : 0.3; });
    for (RankSample& s : window) {
      if (s.node == 1) s.tcp_rtt_us = 5000;
    }
    append(v, tick(d, 1000 * (w + 1), window));
  }
  REQUIRE(v.size() == 1);
  CHECK(v[0].cls == DiagnosisClass::RankNonCommSlow);
  CHECK(v[0].rank == 2);
}

// ---- RankNonCommHang ----

TEST_CASE("a rank that never entered the collective is named at the threshold, once") {
  Diagnoser d(kRanks);
  CHECK(hang(d, 59).empty());
  std::vector<Diagnosis> v = d.decide(at(59'999));
  CHECK(v.empty());
  // Its latest samples are 1 s old: the waiters have waited 60 s by now.
  v = d.decide(at(60'000));
  REQUIRE(v.size() == 1);
  CHECK(v[0].cls == DiagnosisClass::RankNonCommHang);
  CHECK(v[0].rank == 5);
  CHECK(v[0].node == 1);
  CHECK(v[0].node_name == "node-1");
  CHECK(v[0].gpu == 1);
  CHECK(v[0].severity == Severity::Critical);
  CHECK(v[0].evidence ==
        "rank 5 (node-1, GPU 1) never entered all_reduce #10 that 7 ranks have waited in for "
        "60 s; its last step was 9, its last record 60 s ago");
  CHECK(d.decide(at(61'000)).empty());
  CHECK(hang(d, 120).empty());
}

TEST_CASE("a new hang after the collective completed is a new episode") {
  Diagnoser d(kRanks);
  REQUIRE(hang(d, 60).size() == 1);
  CHECK(tick(d, 61'000, all([](int r) { return computing(r, 10, 10); })).empty());
  // Later rank 5 stops before collective 11: the same rank, a new verdict.
  std::vector<Diagnosis> v;
  for (std::int64_t t = 1000; t <= 60'000; t += 1000) {
    append(v, tick(d, 61'000 + t,
                   all([&](int r) { return r == 5 ? computing(r, 10, t) : waiting(r, 11, t); })));
  }
  REQUIRE(v.size() == 1);
  CHECK_THAT(v[0].evidence, Catch::StartsWith("rank 5 (node-1, GPU 1) never entered all_reduce "
                                              "#11 that 7 ranks"));
}

TEST_CASE("of many ranks behind, the ones furthest behind are named") {
  Diagnoser d(kRanks);
  std::vector<Diagnosis> v;
  for (std::int64_t t = 1000; t <= 60'000; t += 1000) {
    append(v, tick(d, t, all([&](int r) {
                     if (r == 5) return computing(r, 9, t);
                     if (r == 6 || r == 7) return computing(r, 8, t);
                     return waiting(r, 10, t);
                   })));
  }
  REQUIRE(v.size() == 2);
  CHECK(v[0].rank == 6);
  CHECK(v[1].rank == 7);
  CHECK_THAT(v[0].evidence, Catch::Contains("that 5 ranks have waited in for 60 s"));
}

TEST_CASE("a wedged node's last figures still name its rank, and the evidence says so") {
  Diagnoser d(kRanks);
  // Node 1 sends its last samples at 5 s (rank 5 computing, the others waiting), then nothing.
  CHECK(hang(d, 5).empty());
  std::vector<Diagnosis> v;
  for (std::int64_t t = 6000; t <= 60'000; t += 1000) {
    std::vector<RankSample> node0;
    for (int r = 0; r < kGpus; ++r) node0.push_back(waiting(r, 10, t));
    append(v, tick(d, t, node0));
  }
  REQUIRE(v.size() == 1);
  CHECK(v[0].rank == 5);
  CHECK(v[0].evidence ==
        "rank 5 (node-1, GPU 1) never entered all_reduce #10 that 7 ranks have waited in for "
        "60 s; its last step was 9, its last record 60 s ago; node-1 has sent nothing for 55 s, "
        "so these are its last figures");
}

TEST_CASE("old samples alone are no hang: someone must still report waiting") {
  Diagnoser d(kRanks);
  CHECK(hang(d, 30).empty());
  // The coordinator heard nothing for ten minutes (its own stall, or every node lost).
  CHECK(d.decide(at(630'000)).empty());
}

TEST_CASE("no hang verdict while every rank is outside collectives") {
  Diagnoser d(kRanks);
  // A ten-minute evaluation: no collective, no step.
  for (std::int64_t t = 1000; t <= 600'000; t += 1000) {
    CHECK(tick(d, t, all([&](int r) { return computing(r, 10, t); })).empty());
  }
}

// ---- RankCommHang ----

TEST_CASE("a collective open on every rank, without network evidence, names nobody") {
  Diagnoser d(kRanks);
  std::vector<Diagnosis> v;
  for (std::int64_t t = 1000; t <= 90'000; t += 1000) {
    append(v, tick(d, t, all([&](int r) { return waiting(r, 10, t); })));
  }
  REQUIRE(v.size() == 1);
  CHECK(v[0].cls == DiagnosisClass::RankCommHang);
  CHECK(v[0].rank == -1);
  CHECK(v[0].node == -1);
  CHECK(v[0].node_name.empty());
  CHECK(v[0].gpu == -1);
  CHECK(v[0].suspect_nodes.empty());  // no stalled connection: no suspects either
  CHECK(v[0].severity == Severity::Critical);
  CHECK(v[0].evidence ==
        "all 8 ranks have been inside all_reduce #10 for at least 60 s; no rank is behind and no "
        "node's network stands out");
}

TEST_CASE("a hung collective names the node whose retransmits grew, or whose RTT stands out") {
  Diagnoser by_retransmits(kRanks);
  std::vector<Diagnosis> v;
  for (std::int64_t t = 1000; t <= 60'000; t += 1000) {
    append(v, tick(by_retransmits, t, all([&](int r) {
                     RankSample s = waiting(r, 10, t);
                     s.tcp_retrans = r >= kGpus ? 100 + t / 100 : 7;
                     return s;
                   })));
  }
  REQUIRE(v.size() == 1);
  CHECK(v[0].node == 1);
  CHECK(v[0].evidence ==
        "all 8 ranks have been inside all_reduce #10 for at least 60 s; node-1's TCP "
        "retransmits grew by 2360 during the hang, other nodes' by at most 0");

  Diagnoser by_rtt(kRanks);
  v.clear();
  for (std::int64_t t = 1000; t <= 60'000; t += 1000) {
    append(v, tick(by_rtt, t, all([&](int r) {
                     RankSample s = waiting(r, 10, t);
                     s.tcp_rtt_us = r >= kGpus ? 5000 : 200;
                     return s;
                   })));
  }
  REQUIRE(v.size() == 1);
  CHECK(v[0].node == 1);
  CHECK(v[0].evidence ==
        "all 8 ranks have been inside all_reduce #10 for at least 60 s; node-1's TCP round-trip "
        "time is 5.0 ms, 25.0x the other nodes' median of 0.2 ms");
}

// 90 s of all 8 ranks inside all_reduce #10, as 4 nodes of 2 ranks (node = rank / 2), each
// sample changed by `adjust(sample, t)`; the verdicts.
std::vector<Diagnosis> hung_four_nodes(
    const std::function<void(RankSample&, std::int64_t)>& adjust) {
  Diagnoser d(kRanks);
  std::vector<Diagnosis> v;
  for (std::int64_t t = 1000; t <= 90'000; t += 1000) {
    append(v, tick(d, t, all([&](int r) {
                     RankSample s = waiting(r, 10, t);
                     s.node = r / 2;
                     s.node_name = "node-" + std::to_string(s.node);
                     adjust(s, t);
                     return s;
                   })));
  }
  return v;
}

TEST_CASE("a hung collective names the node at an end of every stalled connection") {
  // 4 nodes of 2 ranks; node 2 loses every packet it sends. named[node] is what that node's
  // ranks name as stalled or slow peers; node 3's retransmits grow most (misleading).
  const auto hang = [](std::vector<std::vector<int>> named) {
    return hung_four_nodes([&](RankSample& s, std::int64_t t) {
      s.tcp_retrans = s.node == 3 ? 50 + t / 1000 : 5;
      if (s.node == 1) s.slow_peer_nodes = {0};
      s.stalled_peer_nodes = named[static_cast<std::size_t>(s.node)];
    });
  };
  // Every node talks to node 2: their connections to it stall, and its own to them. Slow
  // peers (by RTT) are no evidence of a hang: node 1 naming node 0 changes nothing.
  std::vector<Diagnosis> v = hang({{2}, {2}, {0, 1, 3}, {2}});
  REQUIRE(v.size() == 1);
  CHECK(v[0].cls == DiagnosisClass::RankCommHang);
  CHECK(v[0].node == 2);
  CHECK(v[0].evidence ==
        "all 8 ranks have been inside all_reduce #10 for at least 60 s; node-2 is an end of every "
        "stalled connection (to node-0, node-1, node-3)");
  // A ring 0 -> 1 -> 2 -> 3: node 1's sends to node 2 go unacknowledged, and node 2's to node 3.
  v = hang({{}, {2}, {3}, {}});
  REQUIRE(v.size() == 1);
  CHECK(v[0].node == 2);
  // One more edge (0 - 1) leaves no single end of all: most nodes naming node 2 still do.
  v = hang({{2, 1}, {2}, {}, {2}});
  REQUIRE(v.size() == 1);
  CHECK(v[0].node == 2);
  CHECK(v[0].evidence ==
        "all 8 ranks have been inside all_reduce #10 for at least 60 s; the connections of 3 of "
        "the 3 other nodes to node-2 are stalled");
  // One connection, or two unrelated ones: the retransmits decide.
  v = hang({{2}, {}, {}, {}});
  REQUIRE(v.size() == 1);
  CHECK(v[0].node == 3);
  v = hang({{2}, {3}, {}, {}});
  REQUIRE(v.size() == 1);
  CHECK(v[0].node == 3);
}

TEST_CASE("a hung collective with stalls but no culprit among them is not blamed on RTT") {
  // One stalled connection, node 1 - node 2, and node 1's RTT far above the others': either
  // end may be dropping packets, and a victim's RTT grows too. Nobody is named.
  std::vector<Diagnosis> v = hung_four_nodes([](RankSample& s, std::int64_t) {
    s.tcp_rtt_us = s.node == 1 ? 1300 : 130;
    if (s.node == 1) s.stalled_peer_nodes = {2};
  });
  REQUIRE(v.size() == 1);
  CHECK(v[0].node == -1);
  CHECK(v[0].evidence ==
        "all 8 ranks have been inside all_reduce #10 for at least 60 s; the connection node-1 - "
        "node-2 is stalled; either end may be at fault");
  CHECK(v[0].suspect_nodes == std::vector<int>{1, 2});
  // Two stalled connections without a common node, and no majority: named as such.
  v = hung_four_nodes([](RankSample& s, std::int64_t) {
    s.tcp_rtt_us = s.node == 1 ? 1300 : 130;
    if (s.node == 0) s.stalled_peer_nodes = {1};
    if (s.node == 2) s.stalled_peer_nodes = {3};
  });
  REQUIRE(v.size() == 1);
  CHECK(v[0].node == -1);
  CHECK(v[0].evidence ==
        "all 8 ranks have been inside all_reduce #10 for at least 60 s; 2 stalled connections "
        "(node-0 - node-1, node-2 - node-3) have no node in common");
  CHECK(v[0].suspect_nodes == std::vector<int>{0, 1, 2, 3});
  // Without any stall, the RTT outlier is named (the RTT rule above).
  v = hung_four_nodes([](RankSample& s, std::int64_t) { s.tcp_rtt_us = s.node == 1 ? 1300 : 130; });
  REQUIRE(v.size() == 1);
  CHECK(v[0].node == 1);
  CHECK(v[0].suspect_nodes.empty());
}

// `s` moved on to collective `seq`, open for `open_ms`.
void enter(RankSample& s, std::int64_t seq, std::int64_t open_ms) {
  const RankSample moved = waiting(s.rank, seq, open_ms);
  s.step = moved.step;
  s.entered = moved.entered;
  s.exited = moved.exited;
  s.open_ms = moved.open_ms;
  s.quiet_ms = moved.quiet_ms;
}

TEST_CASE("ranks left in a collective the others completed are a hung collective too") {
  // Node 1 lost the last message of all_reduce #10 to rank 2: the others completed #10 and
  // wait for rank 2 in #11; the stalled connections lead to node 1 (node = rank / 2).
  const std::vector<Diagnosis> v = hung_four_nodes([](RankSample& s, std::int64_t t) {
    if (s.rank != 2) enter(s, 11, t - 50);
    if (s.node != 1) s.stalled_peer_nodes = {1};
  });
  REQUIRE(v.size() == 1);
  CHECK(v[0].cls == DiagnosisClass::RankCommHang);
  CHECK(v[0].node == 1);
  CHECK(v[0].evidence ==
        "all 8 ranks have been inside collectives: 7 in all_reduce #11, rank 2 (node-1, GPU 2) "
        "still in all_reduce #10, which the others completed, for at least 60 s; node-1 is an "
        "end of every stalled connection (to node-0, node-2, node-3)");

  // Without network evidence it names nobody, once: #11 is still open everywhere it was
  // entered, so the episode goes on.
  const std::vector<Diagnosis> nobody = hung_four_nodes([](RankSample& s, std::int64_t t) {
    if (s.rank >= 6) enter(s, 11, t);
  });
  REQUIRE(nobody.size() == 1);
  CHECK(nobody[0].node == -1);
  CHECK_THAT(nobody[0].evidence,
             Catch::StartsWith("all 8 ranks have been inside collectives: 2 in all_reduce #11, "
                               "6 ranks still in all_reduce #10, which the others completed,"));

  // A rank outside collectives that never entered #10 is still the one behind.
  Diagnoser d(kRanks);
  std::vector<Diagnosis> behind;
  for (std::int64_t t = 1000; t <= 60'000; t += 1000) {
    append(behind, tick(d, t, all([&](int r) {
                          if (r == 5) return computing(r, 9, t);
                          return r == 6 ? waiting(r, 11, t) : waiting(r, 10, t);
                        })));
  }
  REQUIRE(behind.size() == 1);
  CHECK(behind[0].cls == DiagnosisClass::RankNonCommHang);
  CHECK(behind[0].rank == 5);
}

TEST_CASE("a rank stuck in a collective the others completed, the network quiet, is named") {
  // Rank 2 took part in all_reduce #10 (the others completed it) but never left it: a drill's
  // collective-hang, or a GPU stream that does not return. No connection stalls.
  std::vector<Diagnosis> v = hung_four_nodes([](RankSample& s, std::int64_t t) {
    s.tcp_retrans = 3;
    if (s.rank != 2) enter(s, 11, t - 50);
  });
  REQUIRE(v.size() == 1);
  CHECK(v[0].cls == DiagnosisClass::RankCommHang);
  CHECK(v[0].rank == 2);
  CHECK(v[0].node == 1);
  CHECK(v[0].node_name == "node-1");
  CHECK(v[0].gpu == 2);
  CHECK(v[0].evidence ==
        "all 8 ranks have been inside collectives: 7 in all_reduce #11, rank 2 (node-1, GPU 2) "
        "still in all_reduce #10, which the others completed, for at least 60 s; rank 2 on "
        "node-1 is stuck inside the collective itself: no connection is stalled and no packet "
        "was retransmitted, so nothing on the network holds it");

  // Both ranks of node 3 stuck: the node is named, no rank.
  v = hung_four_nodes([](RankSample& s, std::int64_t t) {
    if (s.node != 3) enter(s, 11, t - 50);
  });
  REQUIRE(v.size() == 1);
  CHECK(v[0].node == 3);
  CHECK(v[0].rank == -1);
  CHECK_THAT(v[0].evidence, Catch::EndsWith("the ranks still in it are all on node-3 and are "
                                            "stuck inside the collective itself: no connection "
                                            "is stalled and no packet was retransmitted, so "
                                            "nothing on the network holds it"));

  // A retransmit during the hang: a message may have been lost on its way to rank 2, which
  // is then a victim. Nobody is named on this rule (retransmits that grew at one node name it).
  v = hung_four_nodes([](RankSample& s, std::int64_t t) {
    s.tcp_retrans = 3 + (t > 30'000 && s.node < 2 ? 1 : 0);
    if (s.rank != 2) enter(s, 11, t - 50);
  });
  REQUIRE(v.size() == 1);
  CHECK(v[0].rank == -1);
  CHECK(v[0].node == -1);
  CHECK_THAT(v[0].evidence, Catch::EndsWith("no rank is behind and no node's network stands out"));
}

TEST_CASE("a hang that named nobody is named again once the evidence names its node") {
  // Without retransmits to go by, the hang at 60 s names nobody; the stalled connections seen
  // from 70 s name node 2, once.
  const std::vector<Diagnosis> v = hung_four_nodes([](RankSample& s, std::int64_t t) {
    if (t >= 70'000 && (s.node == 1 || s.node == 2)) s.stalled_peer_nodes = {s.node + 1};
  });
  REQUIRE(v.size() == 2);
  CHECK(v[0].node == -1);
  CHECK(v[1].node == 2);
  CHECK(v[1].evidence.find("node-2 is an end of every stalled connection") !=
        std::string::npos);
}

// ---- Ranks without telemetry, malformed samples, restarts ----

TEST_CASE("ranks without telemetry are never named, nor taken for waiters") {
  Diagnoser none(kRanks);
  for (std::int64_t t = 1000; t <= 120'000; t += 1000) {
    CHECK(tick(none, t, all([](int r) {
                 RankSample s = sample(r);
                 s.quiet_ms = -1;
                 s.tcp_rtt_us = r >= kGpus ? 10'000 : 200;
                 return s;
               }))
              .empty());
  }
  // Rank 7 runs without the SDK while the others wait in collective 3: nobody is known to be
  // behind, and not every rank is known to be inside it.
  Diagnoser mixed(kRanks);
  for (std::int64_t t = 1000; t <= 120'000; t += 1000) {
    CHECK(tick(mixed, t, all([&](int r) {
                 RankSample s = r == 7 ? sample(r) : waiting(r, 3, t);
                 if (r == 7) s.quiet_ms = -1;
                 return s;
               }))
              .empty());
  }
}

TEST_CASE("a rank that sends no sample does not block the slow rules, and may be the hang") {
  // Rank 8 of 9 never wrote a record, so its launcher sends nothing for it: a round ends at
  // the next window's first sample, a window later than when every rank reports.
  Diagnoser slow(kRanks + 1);
  CHECK(train(slow, 0, 5, slower(5, 0.8)).empty());
  const std::vector<Diagnosis> named = train(slow, 5, 1, slower(5, 0.8));
  REQUIRE(named.size() == 1);
  CHECK(named[0].rank == 5);
  CHECK(named[0].evidence.find("on the other 7 ranks") != std::string::npos);
  // Every other rank waits: rank 8 may be behind, so this is no RankCommHang.
  Diagnoser hung(kRanks + 1);
  for (std::int64_t t = 1000; t <= 90'000; t += 1000) {
    CHECK(tick(hung, t, all([&](int r) { return waiting(r, 10, t); })).empty());
  }
}

TEST_CASE("malformed samples are ignored") {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  const std::vector<std::function<void(RankSample&)>> breakages = {
      [](RankSample& s) { s.rank = -1; },
      [](RankSample& s) { s.rank = kRanks; },
      [](RankSample& s) { s.node = -1; },
      [](RankSample& s) { s.gpu = -2; },
      [](RankSample& s) { s.exited = s.entered + 1; },
      [](RankSample& s) { s.entered = -1; },
      [](RankSample& s) { s.window_us = 0; },
      [](RankSample& s) { s.window_us = kMax; },
      [](RankSample& s) { s.comm_us = s.window_us + 1; },
      [](RankSample& s) { s.steps = -1; },
      [](RankSample& s) { s.step = -2; },
      [](RankSample& s) { s.step_us = kMax; },
      [](RankSample& s) { s.open_ms = -2; },
      [](RankSample& s) { s.open_ms = kMax; },
      [](RankSample& s) { s.open_op = -1; },
      [](RankSample& s) { s.quiet_ms = -2; },
      [](RankSample& s) { s.quiet_ms = -1; },  // records without a last record
      [](RankSample& s) { s.tcp_rtt_us = -5; },
      [](RankSample& s) { s.tcp_retrans = kMax; },
      [](RankSample& s) { s.entered = s.exited = kMax; },
      [](RankSample& s) { s.slow_peer_nodes = {0, -1}; },
      [](RankSample& s) { s.slow_peer_nodes = {0, 1, 2, 3, 4}; },  // more than kMaxSlowPeers
      [](RankSample& s) { s.stalled_peer_nodes = {-1}; },
      [](RankSample& s) { s.stalled_peer_nodes = {0, 1, 2, 3, 4}; },
  };
  Diagnoser d(kRanks);
  for (std::size_t i = 0; i < breakages.size(); ++i) {
    RankSample s = waiting(5, 10, 1000);
    breakages[i](s);
    INFO("breakage " << i);
    CHECK_FALSE(d.observe(s, at(1000)));
  }
  RankSample idle = computing(5, 10, 5);
  idle.open_ms = 0;  // nothing is open
  CHECK_FALSE(d.observe(idle, at(1000)));

  // Ignored samples change nothing: the hang is named from the good ones around them.
  std::vector<Diagnosis> v;
  for (std::int64_t t = 1000; t <= 60'000; t += 1000) {
    RankSample bad = waiting(3, 10, t);
    bad.exited = 11;
    CHECK_FALSE(d.observe(bad, at(t)));
    append(v,
           tick(d, t, all([&](int r) { return r == 5 ? computing(r, 9, t) : waiting(r, 10, t); })));
    bad = computing(5, 12, 0);
    bad.comm_us = -1;
    CHECK_FALSE(d.observe(bad, at(t)));
  }
  REQUIRE(v.size() == 1);
  CHECK(v[0].rank == 5);
}

TEST_CASE("reset starts a new attempt, and forget drops a rank") {
  Diagnoser d(kRanks);
  REQUIRE(hang(d, 60).size() == 1);
  d.reset();
  // Nothing of the old attempt is left to judge.
  CHECK(d.decide(at(61'000)).empty());
  // The new attempt's sequence numbers start again: the same hang is a new verdict.
  REQUIRE(hang(d, 60).size() == 1);

  Diagnoser f(kRanks);
  CHECK(hang(f, 30).empty());
  f.forget(5);
  // Without rank 5 nobody is known to be behind, and not every rank waits.
  for (std::int64_t t = 31'000; t <= 90'000; t += 1000) {
    std::vector<RankSample> others = all([&](int r) { return waiting(r, 10, t); });
    others.erase(others.begin() + 5);
    CHECK(tick(f, t, others).empty());
  }
}

TEST_CASE("windows of a quiet node are not judged, and reset clears the streaks") {
  Diagnoser d(kRanks);
  CHECK(train(d, 0, 4, slower(5, 0.8)).empty());
  // Node 1 goes quiet: rank 5 is not named from its old figures.
  for (int w = 4; w < 30; ++w) {
    std::vector<RankSample> window = training(w, slower(5, 0.8));
    window.resize(kGpus);
    CHECK(tick(d, 1000 * (w + 1), window).empty());
  }
  d.reset();
  CHECK(train(d, 30, 4, slower(5, 0.8)).empty());
  CHECK(train(d, 34, 1, slower(5, 0.8)).size() == 1);
}

}  // namespace diagnosis_test
