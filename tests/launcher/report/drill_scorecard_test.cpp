#include "launcher/report/drill_scorecard.h"

#include <catch2/catch.hpp>
#include <vector>

namespace drill_scorecard_test {

namespace journal = pai::launcher::journal;
using pai::DrillFault;
using pai::launcher::report::DrillScorer;
using pai::launcher::report::FaultScore;
using pai::launcher::report::render_scorecard;

constexpr std::int64_t kT0 = 1767323045000;

journal::Entry at(std::int64_t ms, journal::Event event) { return {kT0 + ms, std::move(event)}; }

journal::FaultInjected injected(const char* fault, const char* instance, std::int64_t rank,
                                const char* node = "node-2", std::int64_t seconds = 0) {
  return {.fault = fault,
          .instance = instance,
          .rank = rank,
          .seconds = seconds,
          .node = std::string(node),
          .by = std::string("alice@host")};
}

journal::Steps steps(const char* instance, std::int64_t step, std::int64_t rank) {
  return {.instance = instance, .step = step, .rank = rank};
}

journal::ProcessStarted started(const char* instance, std::int64_t rank) {
  return {.instance = instance, .rank = rank};
}

journal::Start coordinator_start(const char* instance, int attempt, const char* node) {
  return {.instance = instance, .node = std::string(node), .attempt = attempt};
}

// Feeds the coordinator's records, then one node's.
std::vector<FaultScore> score(const std::vector<journal::Entry>& coordinator,
                              const std::vector<journal::Entry>& node) {
  DrillScorer scorer;
  scorer.begin_journal(true);
  for (const auto& e : coordinator) scorer.add(e);
  scorer.begin_journal(false);
  for (const auto& e : node) scorer.add(e);
  return scorer.scores();
}

TEST_CASE("a killed rank: detected by its exit, recovered at its instance's first step after") {
  const auto scores =
      score({at(0, injected("rank-kill", "worker-1", 3)),
             at(120, journal::Exited{.instance = "worker-1",
                                     .local_rank = 1,
                                     .status = {.code = -1, .signal = 9},
                                     .reason = "signal 9"}),
             at(130, journal::Restart{.instance = "worker-1", .attempt = 1, .delay_seconds = 0}),
             at(400, coordinator_start("worker-1", 1, "node-2"))},
            {at(-5000, steps("worker-1", 40, 2)), at(200, steps("worker-1", 57, 3)),
             at(400, steps("worker-1", 56, 2)), at(410, started("worker-1", 2)),
             at(3400, steps("worker-1", 51, 2)), at(3500, steps("worker-1", 51, 3)),
             at(9000, steps("worker-1", 90, 3))});
  REQUIRE(scores.size() == 1);
  const FaultScore& s = scores[0];
  CHECK(s.injection.fault == DrillFault::RankKill);
  CHECK(s.injection.rank == 3);
  CHECK(s.injection.node == "node-2");
  CHECK(s.detect_ms == 120);
  CHECK(s.detected_by == "exited: worker-1 local rank 1 (signal 9)");
  CHECK(s.named_right);
  CHECK(s.restarted);
  CHECK(s.recover_ms == 3400);
  CHECK(s.lost_steps == 7);  // 51..57 computed again
  CHECK(s.job_ended.empty());
}

TEST_CASE("a new attempt whose node journaled its start before the coordinator's is recovered") {
  // The coordinator journals its start after sending it (and its journal may be slow); the
  // node started the rank 3 ms before that record, 50 ms after the verdict.
  const auto scores = score({at(0, injected("rank-kill", "worker-1", 3)),
                             at(120, journal::Exited{.instance = "worker-1", .local_rank = 1}),
                             at(400, coordinator_start("worker-1", 1, "node-2"))},
                            {at(100, steps("worker-1", 57, 3)), at(170, started("worker-1", 3)),
                             at(397, started("worker-1", 3)), at(2400, steps("worker-1", 51, 3))});
  REQUIRE(scores.size() == 1);
  CHECK(scores[0].restarted);
  CHECK(scores[0].recover_ms == 2400);
  CHECK(scores[0].lost_steps == 7);
  // A process started before the verdict is no part of the new attempt.
  const auto early = score({at(0, injected("rank-kill", "worker-1", 3)),
                            at(120, journal::Exited{.instance = "worker-1", .local_rank = 1}),
                            at(400, coordinator_start("worker-1", 1, "node-2"))},
                           {at(100, started("worker-1", 3)), at(110, steps("worker-1", 57, 3))});
  REQUIRE(early.size() == 1);
  CHECK_FALSE(early[0].recover_ms);
}

TEST_CASE("steps lost count from the newest checkpoint journaled before the restart") {
  // Rank 0 (worker-0) saved step 49 before the kill and step 74 only after the restart.
  const auto scores =
      score({at(0, injected("rank-kill", "worker-1", 3)),
             at(100, journal::Exited{.instance = "worker-1", .local_rank = 1}),
             at(400, coordinator_start("worker-1", 1, "node-2"))},
            {at(-9000, journal::Checkpoint{.instance = "worker-0", .step = 24, .path = "/c/24"}),
             at(-3000, journal::Checkpoint{.instance = "worker-0", .step = 49, .path = "/c/49"}),
             at(9000, journal::Checkpoint{.instance = "worker-0", .step = 74, .path = "/c/74"}),
             at(200, steps("worker-1", 61, 3)), at(450, started("worker-1", 3)),
             // The first step the node saw after the restart: a telemetry poll later than step 50.
             at(3500, steps("worker-1", 58, 3))});
  REQUIRE(scores.size() == 1);
  CHECK(scores[0].lost_steps == 12);  // 50..61 computed again
  CHECK(scores[0].recover_ms == 3500);
}

TEST_CASE("a hang named by a job-wide verdict: right only when its culprit is the rank") {
  auto hang = [](std::int64_t culprit) {
    return journal::Hang{.instance = "job",
                         .job_wide = true,
                         .seconds = 6,
                         .culprit = journal::HangCulprit{"RankNonCommHang", culprit, "node-2"}};
  };
  const auto right =
      score({at(0, injected("rank-hang", "worker-1", 3, "node-2", 60)), at(6100, hang(3))}, {});
  REQUIRE(right.size() == 1);
  CHECK(right[0].detect_ms == 6100);
  CHECK(right[0].named_right);
  CHECK(right[0].detected_by == "hang: job-wide, culprit rank 3 on node-2 (RankNonCommHang)");
  CHECK_FALSE(right[0].restarted);
  const auto wrong =
      score({at(0, injected("rank-hang", "worker-1", 3, "node-2", 60)), at(6100, hang(2))}, {});
  CHECK_FALSE(wrong[0].named_right);
}

TEST_CASE("records before the injection, and stopping exits, are no verdict on it") {
  const auto scores =
      score({at(-100, journal::Diagnosis{.cls = "RankNonCommSlow", .node = "node-2", .rank = 3}),
             at(0, injected("slow-rank", "worker-1", 3, "node-2", 30)),
             at(50, journal::Exited{.instance = "worker-0", .local_rank = 0, .stopping = true})},
            {});
  REQUIRE(scores.size() == 1);
  CHECK_FALSE(scores[0].detect_ms);
  CHECK(render_scorecard(scores).find("not detected") != std::string::npos);
}

TEST_CASE("a slow rank named by a diagnosis verdict - a node-level verdict names its node") {
  const auto by_rank =
      score({at(0, injected("slow-rank", "worker-1", 3, "node-2", 30)),
             at(4000,
                journal::Diagnosis{
                    .cls = "RankNonCommSlow", .node = "node-2", .rank = 3, .severity = "warning"})},
            {});
  CHECK(by_rank[0].detect_ms == 4000);
  CHECK(by_rank[0].named_right);
  CHECK(by_rank[0].detected_by == "diagnosis: RankNonCommSlow rank 3 on node-2");
  const auto other_rank =
      score({at(0, injected("slow-rank", "worker-1", 3, "node-2", 30)),
             at(4000, journal::Diagnosis{.cls = "RankNonCommSlow", .node = "node-1", .rank = 1})},
            {});
  CHECK_FALSE(other_rank[0].named_right);
  const auto by_node =
      score({at(0, injected("slow-rank", "worker-1", 3, "node-2", 30)),
             at(4000, journal::Diagnosis{.cls = "RankCommSlow", .node = "node-2"})},
            {});
  CHECK(by_node[0].named_right);
}

TEST_CASE("a link fault is named by a verdict on its node - whatever rank it names") {
  auto named = [](journal::Diagnosis d) {
    return score({at(0, injected("dropped-link", "worker-1", -1, "node-2", 15)), at(3000, d)},
                 {})[0]
        .named_right;
  };
  CHECK(named({.cls = "RankCommHang", .node = "node-2"}));
  CHECK(named({.cls = "RankCommSlow", .node = "node-2", .rank = 3}));
  CHECK_FALSE(named({.cls = "RankCommHang", .node = "node-1"}));
  const auto slow = score({at(0, injected("slow-link", "worker-1", -1, "node-2", 15)),
                           at(2500, journal::Diagnosis{.cls = "RankCommSlow", .node = "node-2"})},
                          {});
  CHECK(slow[0].detected_by == "diagnosis: RankCommSlow on node-2");
  CHECK(render_scorecard(slow).find("slow-link       worker-1 on node-2") != std::string::npos);
}

TEST_CASE("a full disk is detected by a failed save of its instance on the node") {
  const std::vector<journal::Entry> coordinator = {
      at(0, injected("disk-full", "worker-0", -1, "node-1", 20))};
  const auto scores = score(
      coordinator,
      {at(-500, journal::CheckpointFailed{.instance = "worker-0", .step = 24, .reason = "old"}),
       at(900, journal::CheckpointFailed{.instance = "worker-1", .step = 49, .reason = "other"}),
       at(1200, journal::CheckpointFailed{
                    .instance = "worker-0", .step = 49, .reason = "No space left on device"})});
  REQUIRE(scores.size() == 1);
  CHECK(scores[0].detect_ms == 1200);
  CHECK(scores[0].named_right);
  CHECK(scores[0].detected_by == "checkpoint-failed: worker-0 step 49 (No space left on device)");
  CHECK_FALSE(scores[0].restarted);
  // A rank's failed save after another fault is no verdict on that one.
  const auto kill =
      score({at(0, injected("rank-kill", "worker-0", 1, "node-1"))},
            {at(300, journal::CheckpointFailed{.instance = "worker-0", .step = 9, .reason = "x"})});
  CHECK_FALSE(kill[0].detect_ms);
}

TEST_CASE("the node's own fault-injected record says the fault went in") {
  const std::vector<journal::Entry> coordinator = {
      at(0, injected("slow-link", "worker-1", -1, "node-2", 15))};
  auto carried = [&](std::int64_t ms, journal::FaultInjected record) {
    return score(coordinator, {at(ms, std::move(record))})[0].carried_out;
  };
  CHECK(
      carried(40, {.fault = "slow-link", .instance = "worker-1", .seconds = 15, .place = "eth0"}));
  // A node's clock a little behind the coordinator's.
  CHECK(carried(-1500, {.fault = "slow-link", .instance = "worker-1", .place = "eth0"}));
  CHECK_FALSE(carried(-60000, {.fault = "slow-link", .instance = "worker-1", .place = "eth0"}));
  CHECK_FALSE(carried(40, {.fault = "dropped-link", .instance = "worker-1", .place = "eth0"}));
  CHECK_FALSE(carried(40, {.fault = "slow-link", .instance = "worker-0", .place = "eth0"}));
  const auto none = score(coordinator, {});
  CHECK_FALSE(none[0].carried_out);
  CHECK(render_scorecard(none).find("not detected; no record of the node putting it in") !=
        std::string::npos);
}

TEST_CASE("a node loss: named by node-lost, recovered on the spare") {
  const auto scores = score(
      {at(0, injected("node-loss", "worker-1", -1, "node-2")),
       at(1500, journal::NodeLost{.node = "node-2", .instance = "worker-1", .reason = "silent"}),
       at(1600,
          journal::NodeReplaced{.instance = "worker-1", .node = "node-2", .spare = "spare-1"}),
       at(1700, coordinator_start("worker-0", 1, "node-1")),
       at(1700, coordinator_start("worker-1", 1, "spare-1"))},
      // The lost node journaled step 100 last; worker-0 got to 105 before the restart.
      {at(-2000, steps("worker-1", 100, 3)), at(1200, steps("worker-0", 105, 1)),
       at(1800, started("worker-0", 1)), at(1800, started("worker-1", 3)),
       at(3900, steps("worker-0", 0, 1)), at(4200, steps("worker-1", 0, 3))});
  REQUIRE(scores.size() == 1);
  CHECK(scores[0].detected_by == "node-lost: node-2");
  CHECK(scores[0].named_right);
  CHECK(scores[0].recover_ms == 4200);  // its own instance's first step
  CHECK(scores[0].lost_steps == 106);   // no checkpoint: from step 0 again
}

TEST_CASE("each verdict belongs to the latest fault, and steps to its own window") {
  const auto scores =
      score({at(0, injected("rank-kill", "worker-1", 3)),
             at(100, journal::Exited{.instance = "worker-1", .local_rank = 1}),
             at(200, coordinator_start("worker-1", 1, "node-2")),
             at(60000, injected("rank-kill", "worker-1", 2)),
             at(60100, journal::Exited{.instance = "worker-0", .local_rank = 0}),
             at(60300, coordinator_start("worker-1", 2, "node-2"))},
            {at(50, steps("worker-1", 10, 3)), at(250, started("worker-1", 3)),
             at(3000, steps("worker-1", 8, 3)), at(59000, steps("worker-1", 300, 3)),
             at(60400, started("worker-1", 3)), at(63000, steps("worker-1", 290, 3))});
  REQUIRE(scores.size() == 2);
  CHECK(scores[0].recover_ms == 3000);
  CHECK(scores[0].lost_steps == 3);
  CHECK(scores[1].detect_ms == 100);
  CHECK_FALSE(scores[1].named_right);  // worker-0 exited first
  CHECK(scores[1].recover_ms == 3000);
  CHECK(scores[1].lost_steps == 11);
}

TEST_CASE("a job that ends before recovering says so - a newer launcher's fault is skipped") {
  const auto scores = score(
      {at(0, injected("gpu-xid", "worker-1", 3)), at(10, injected("rank-kill", "worker-1", 3)),
       at(100, journal::Exited{.instance = "worker-1", .local_rank = 1}),
       at(150, journal::JobFailed{.reason = "restarts exhausted"})},
      {});
  REQUIRE(scores.size() == 1);
  CHECK(scores[0].job_ended == "failed");
  CHECK(render_scorecard(scores).find("the job failed before it recovered") != std::string::npos);
}

TEST_CASE("a node's fault-injected record and coordinator records after a node's are ignored") {
  DrillScorer scorer;
  scorer.begin_journal(false);
  scorer.add(at(0, journal::FaultInjected{.fault = "rank-kill", .instance = "worker-1", .pid = 5}));
  scorer.begin_journal(true);
  scorer.add(at(10, injected("rank-kill", "worker-1", 3)));
  CHECK(scorer.scores().empty());
}

}  // namespace drill_scorecard_test
