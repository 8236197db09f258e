// One rank's telemetry summaries: rings written with pai_telemetry_append() at chosen times,
// summarized a window at a time: steps and their time, time in world collectives (async ones
// overlapping), exits out of order, a collective left open, silence, lapped records, and
// rings that are missing or break.
#include "launcher/supervisor/rank_telemetry.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <string>

#include "launcher/supervisor/peer_table_fixture.h"
#include "support/temp_dir.h"
#include "support/writable_mapping.h"

namespace rank_telemetry_test {

using namespace pai::launcher;
using namespace std::chrono_literals;
using pai::testing::spit;
using pai::testing::TempDir;
using Clock = RankTelemetry::Clock;

namespace {

// The start of every test's first window; records are stamped relative to it.
const Clock::time_point kStart{1000s};

Clock::time_point at(std::chrono::milliseconds offset) { return kStart + offset; }

// Rank 3's ring, written as the rank writes it: a shared mapping and pai_telemetry_append().
class RankRing {
 public:
  RankRing(const TempDir& dir, std::uint32_t capacity)
      : path_(created(dir / "worker-0.rank-3.telemetry", capacity)), mapping_(path_) {}

  const std::string& path() const { return path_; }

  void step_begin(std::int64_t step, std::chrono::milliseconds when) {
    append(PAI_TELEMETRY_STEP_BEGIN, when, step, PAI_TELEMETRY_OP_NONE, 0, 0);
  }
  void step_end(std::int64_t step, std::chrono::milliseconds when) {
    append(PAI_TELEMETRY_STEP_END, when, step, PAI_TELEMETRY_OP_NONE, 0, 0);
  }
  void enter(std::uint64_t seq, std::chrono::milliseconds when,
             std::uint16_t op = PAI_TELEMETRY_OP_ALL_REDUCE, std::uint32_t group = 0) {
    append(PAI_TELEMETRY_COLLECTIVE_ENTER, when, 7, op, group, seq);
  }
  void exit(std::uint64_t seq, std::chrono::milliseconds when,
            std::uint16_t op = PAI_TELEMETRY_OP_ALL_REDUCE, std::uint32_t group = 0) {
    append(PAI_TELEMETRY_COLLECTIVE_EXIT, when, 7, op, group, seq);
  }

 private:
  void append(std::uint16_t kind, std::chrono::milliseconds when, std::int64_t step,
              std::uint16_t op, std::uint32_t group, std::uint64_t seq) {
    pai_telemetry_record r{};
    r.time_ns = static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(at(when).time_since_epoch()).count());
    r.kind = kind;
    r.op = op;
    r.group = group;
    r.step = step;
    r.collective_seq = seq;
    r.bytes = 4096;
    pai_telemetry_append(mapping_.base(), &r);
  }
  static std::string created(const std::string& path, std::uint32_t capacity) {
    create_telemetry_ring(path, 3, capacity);
    return path;
  }

  std::string path_;
  pai::testing::WritableMapping mapping_;
};

// Rank 3's ring and its summarizer, following it from kStart.
struct FollowedRank {
  explicit FollowedRank(std::uint32_t capacity = 64)
      : ring(dir, capacity), telemetry(ring.path(), 3, kStart) {}

  // The summary of the window ending at `now`, which must exist.
  RankTelemetrySummary summary(std::chrono::milliseconds now) {
    const auto s = telemetry.summary(at(now));
    REQUIRE(s);
    return *s;
  }

  TempDir dir;
  RankRing ring;
  RankTelemetry telemetry;
};

}  // namespace

TEST_CASE("steps ended in a window and their time from begin to end") {
  FollowedRank rank;
  rank.ring.step_begin(0, 10ms);
  rank.ring.step_end(0, 110ms);
  rank.ring.step_begin(1, 110ms);
  rank.ring.step_end(1, 310ms);
  rank.ring.step_begin(2, 310ms);
  RankTelemetrySummary expected{.rank = 3,
                                .step = 2,
                                .steps = 2,
                                .step_us = 300'000,
                                .window_us = 1'000'000,
                                .quiet_ms = 690};
  CHECK(rank.summary(1000ms) == expected);

  // Step 2 began in the last window: all of it counts in this one.
  rank.ring.step_end(2, 1500ms);
  // An end without its begin is progress, not a timed step.
  rank.ring.step_end(3, 1600ms);
  expected = {.rank = 3,
              .step = 3,
              .steps = 1,
              .step_us = 1'190'000,
              .window_us = 1'000'000,
              .quiet_ms = 400};
  CHECK(rank.summary(2000ms) == expected);
  // Nothing new: an empty window, silence growing.
  expected = {.rank = 3, .step = 3, .window_us = 500'000, .quiet_ms = 900};
  CHECK(rank.summary(2500ms) == expected);
}

TEST_CASE("time in collectives is the union of overlapping async ones, clipped to the window") {
  FollowedRank rank;
  rank.ring.enter(1, 100ms);
  rank.ring.enter(2, 200ms);  // async: 1 and 2 overlap from 200 to 300 ms
  rank.ring.exit(1, 300ms);
  rank.ring.exit(2, 500ms);
  rank.ring.enter(3, 700ms);
  rank.ring.exit(3, 800ms);
  rank.ring.enter(4, 900ms, PAI_TELEMETRY_OP_BROADCAST);  // open at the end of the window
  RankTelemetrySummary s = rank.summary(1000ms);
  CHECK(s.comm_us == 400'000 + 100'000 + 100'000);
  CHECK(s.window_us == 1'000'000);
  CHECK(s.entered == 4);
  CHECK(s.exited == 3);
  CHECK(s.open_ms == 100);
  CHECK(s.op == PAI_TELEMETRY_OP_BROADCAST);
  CHECK(s.step == 7);

  rank.ring.exit(4, 1200ms, PAI_TELEMETRY_OP_BROADCAST);
  s = rank.summary(2000ms);
  CHECK(s.comm_us == 200'000);  // from the window's start, not the collective's
  CHECK(s.entered == 4);
  CHECK(s.exited == 4);
  CHECK(s.open_ms == -1);
  CHECK(s.op == 0);
}

TEST_CASE("collectives exited out of order count as exited once all before them have") {
  FollowedRank rank;
  rank.ring.enter(1, 100ms, PAI_TELEMETRY_OP_ALL_GATHER);
  rank.ring.enter(2, 150ms);
  rank.ring.enter(3, 200ms);
  rank.ring.exit(3, 300ms);
  rank.ring.exit(2, 400ms);
  RankTelemetrySummary s = rank.summary(1000ms);
  CHECK(s.entered == 3);
  CHECK(s.exited == 0);
  CHECK(s.open_ms == 900);
  CHECK(s.op == PAI_TELEMETRY_OP_ALL_GATHER);
  CHECK(s.comm_us == 900'000);

  rank.ring.exit(1, 1100ms, PAI_TELEMETRY_OP_ALL_GATHER);
  s = rank.summary(2000ms);
  CHECK(s.exited == 3);
  CHECK(s.open_ms == -1);
  CHECK(s.comm_us == 100'000);
}

TEST_CASE("a collective left open grows its open time and fills the windows") {
  FollowedRank rank;
  rank.ring.enter(1, 100ms);
  rank.ring.exit(1, 150ms);
  rank.ring.enter(2, 200ms, PAI_TELEMETRY_OP_REDUCE_SCATTER);
  RankTelemetrySummary s = rank.summary(1000ms);
  CHECK(s.open_ms == 800);
  CHECK(s.quiet_ms == 800);
  CHECK(s.comm_us == 850'000);
  s = rank.summary(3000ms);
  RankTelemetrySummary expected{.rank = 3,
                                .step = 7,
                                .window_us = 2'000'000,
                                .comm_us = 2'000'000,
                                .entered = 2,
                                .exited = 1,
                                .open_ms = 2800,
                                .op = PAI_TELEMETRY_OP_REDUCE_SCATTER,
                                .quiet_ms = 2800};
  CHECK(s == expected);
}

TEST_CASE("a record stamped after the window's end counts at its end") {
  FollowedRank rank;
  rank.ring.step_begin(0, 900ms);
  rank.ring.enter(1, 1200ms);  // written while the launcher was polling
  const RankTelemetrySummary s = rank.summary(1000ms);
  CHECK(s.quiet_ms == 0);
  CHECK(s.open_ms == 0);
  CHECK(s.comm_us == 0);
  CHECK(s.window_us == 1'000'000);
}

TEST_CASE("collectives of other groups are not counted") {
  FollowedRank rank;
  rank.ring.enter(1, 100ms, PAI_TELEMETRY_OP_ALL_REDUCE, 2);
  rank.ring.enter(2, 200ms, PAI_TELEMETRY_OP_ALL_REDUCE, 2);
  rank.ring.exit(1, 300ms, PAI_TELEMETRY_OP_ALL_REDUCE, 2);
  rank.ring.enter(0, 400ms);  // sequence numbers start at 1
  const RankTelemetrySummary expected{
      .rank = 3, .step = 7, .window_us = 1'000'000, .quiet_ms = 600};
  CHECK(rank.summary(1000ms) == expected);
}

TEST_CASE("records lost to a lapping writer are counted and forget what was open before") {
  FollowedRank rank(8);
  rank.ring.step_begin(0, 50ms);
  rank.ring.enter(1, 100ms);
  RankTelemetrySummary s = rank.summary(1000ms);
  CHECK(s.exited == 0);
  CHECK(s.lost == 0);

  // 21 records, 8 of which the ring still holds: collective 1's exit and step 0's end are lost.
  rank.ring.exit(1, 1100ms);
  rank.ring.step_end(0, 1150ms);
  for (std::uint64_t seq = 2; seq <= 10; ++seq) {
    rank.ring.enter(seq, std::chrono::milliseconds(1100 + 50 * seq));
    rank.ring.exit(seq, std::chrono::milliseconds(1120 + 50 * seq));
  }
  rank.ring.step_end(0, 1900ms);
  s = rank.summary(2000ms);
  CHECK(s.lost == 13);
  CHECK(s.entered == 10);
  CHECK(s.exited == 10);
  CHECK(s.open_ms == -1);
  CHECK(s.steps == 0);             // step 0's begin was before the gap
  CHECK(s.comm_us == 3 * 20'000);  // 8 to 10: 7's enter was lost
  CHECK(s.quiet_ms == 100);
  CHECK(rank.summary(3000ms).lost == 13);
}

TEST_CASE("more open collectives than kept forget the oldest and count it lost") {
  FollowedRank rank(8192);
  const auto open = static_cast<std::uint64_t>(RankTelemetry::kMaxOpen) + 1;
  for (std::uint64_t seq = 1; seq <= open; ++seq) rank.ring.enter(seq, 100ms);
  const RankTelemetrySummary s = rank.summary(1000ms);
  CHECK(s.lost == 1);
  CHECK(s.entered == static_cast<std::int64_t>(open));
  CHECK(s.exited == 1);
  CHECK(s.open_ms == 900);
}

TEST_CASE("no summary without a readable ring or before the rank's first record") {
  TempDir dir;
  RankTelemetry missing(dir / "gone.telemetry", 3, kStart);
  CHECK_FALSE(missing.summary(at(1000ms)));

  spit(dir / "garbage.telemetry", std::string(4096, 'x'));
  RankTelemetry garbage(dir / "garbage.telemetry", 3, kStart);
  CHECK_FALSE(garbage.summary(at(1000ms)));

  FollowedRank rank;
  CHECK_FALSE(rank.telemetry.summary(at(1000ms)));
  // The first summary's window is the one since the previous call.
  rank.ring.step_begin(0, 1500ms);
  const RankTelemetrySummary expected{
      .rank = 3, .step = 0, .window_us = 1'000'000, .quiet_ms = 500};
  CHECK(rank.summary(2000ms) == expected);

  // A ring truncated under the reader is given up, not read into a fault.
  REQUIRE(::truncate(rank.ring.path().c_str(), 128) == 0);
  CHECK_FALSE(rank.telemetry.summary(at(3000ms)));
  CHECK_FALSE(rank.telemetry.summary(at(4000ms)));
}

TEST_CASE("the standing for hang forensics leaves the window to the next summary") {
  TempDir dir;
  RankRing ring(dir, 64);
  RankTelemetry telemetry(ring.path(), 3, kStart);
  CHECK_FALSE(telemetry.standing(at(10ms)).has_value());  // nothing written yet
  ring.step_begin(4, 100ms);
  ring.enter(1, 200ms);
  ring.exit(1, 300ms);
  ring.step_end(4, 400ms);
  ring.step_begin(5, 500ms);
  ring.enter(2, 600ms, PAI_TELEMETRY_OP_BARRIER);
  const auto standing = telemetry.standing(at(2600ms));
  REQUIRE(standing.has_value());
  CHECK(standing->step == 7);  // the collectives name step 7
  CHECK(standing->entered == 2);
  CHECK(standing->exited == 1);
  CHECK(standing->open_ms == 2000);
  CHECK(standing->op == PAI_TELEMETRY_OP_BARRIER);
  CHECK(standing->quiet_ms == 2000);
  CHECK(standing->steps == 0);
  CHECK(standing->window_us == 0);
  // The summary still covers the whole window: the step and both stretches in collectives.
  const auto summary = telemetry.summary(at(3000ms));
  REQUIRE(summary.has_value());
  CHECK(summary->steps == 1);
  CHECK(summary->step_us == 300000);
  CHECK(summary->window_us == 3000000);
  CHECK(summary->comm_us == 100000 + 2400000);
  CHECK(summary->open_ms == 2400);
}

TEST_CASE("a summary lists the rank's links of its window - the standing those in flight") {
  TempDir dir;
  RankRing ring(dir, 64);
  const std::string peers = ring.path() + ".peers";
  create_peer_table(peers, 3);
  RankTelemetry telemetry(ring.path(), 3, kStart, peers);
  peer_table_fixture::TableWriter table(peers);
  const auto ns = [](std::chrono::milliseconds t) {
    return static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(at(t).time_since_epoch()).count());
  };
  // Sent 1 MiB to rank 0 in 2 ms of transfers by 100 ms; receiving from 2 since 150 ms.
  pai_telemetry_peer send = peer_table_fixture::link(0, PAI_TELEMETRY_PEER_SEND);
  send.bytes = 1 << 20;
  send.transfers = 2;
  send.busy_ns = 2'000'000;
  send.last_done_ns = ns(100ms);
  table.set(0, send);
  pai_telemetry_peer recv = peer_table_fixture::link(2, PAI_TELEMETRY_PEER_RECV);
  recv.in_flight = 1;
  recv.busy_since_ns = ns(150ms);
  table.set(1, recv);
  // No summary before the rank's first record; the links' figures wait for it.
  CHECK_FALSE(telemetry.summary(at(500ms)));
  ring.enter(1, 600ms);

  const auto standing = telemetry.standing(at(1000ms));
  REQUIRE(standing);
  CHECK(standing->peers ==
        std::vector<PeerLinkSummary>{{2, PAI_TELEMETRY_PEER_RECV, 0, 0, 850}});
  CHECK(standing->peer_links == 0);

  const auto summary = telemetry.summary(at(1200ms));
  REQUIRE(summary);
  CHECK(summary->peer_links == 2);
  CHECK(summary->peers == std::vector<PeerLinkSummary>{
                              {2, PAI_TELEMETRY_PEER_RECV, 0, 1'050'000, 1050},
                              {0, PAI_TELEMETRY_PEER_SEND, 1 << 20, 2000, -1}});

  // Without a table (or with one that cannot be read) the summaries have no links.
  RankTelemetry without(ring.path(), 3, kStart, dir / "missing.peers");
  const auto bare = without.summary(at(1200ms));
  REQUIRE(bare);
  CHECK(bare->peers.empty());
  CHECK(bare->peer_links == 0);
}

}  // namespace rank_telemetry_test
