#include "launcher/logs/log_merge.h"

#include <catch2/catch.hpp>
#include <string>

#include "launcher/logs/log_relay.h"

namespace log_merge_test {

using namespace pai::launcher;
using namespace std::chrono_literals;

namespace {

struct Merged {
  std::string out;
  LogMerge merge;
  explicit Merged(std::optional<LogMerge::Clock::duration> window,
                  std::size_t cap = LogMerge::kMaxPendingBytes)
      : merge(window, [this](std::string_view text) { out += text; }, cap) {}
};

const LogMerge::Clock::time_point t0{};

// Ranks 0-1 on node-1, 2-3 on node-2.
std::string host(int rank) { return rank < 2 ? "node-1" : "node-2"; }

}  // namespace

TEST_CASE("rank labels list each node's ranks as ranges") {
  using Ranks = std::vector<std::pair<int, std::string>>;
  CHECK(rank_label(Ranks{{0, "node-1"}}) == "node-1:0");
  CHECK(rank_label(Ranks{{3, "node-2"}, {0, "node-1"}, {2, "node-2"}, {1, "node-1"}}) ==
        "node-1:0-1,node-2:2-3");
  CHECK(rank_label(Ranks{{0, "node-1"}, {2, "node-1"}, {3, "node-2"}}) ==
        "node-1:0,node-1:2,node-2:3");
  // Ranks 1 and 2 are consecutive but on different nodes.
  CHECK(rank_label(Ranks{{1, "node-1"}, {2, "node-2"}}) == "node-1:1,node-2:2");
  Ranks many;
  for (int r = 0; r < 40; ++r) many.emplace_back(r, "n" + std::to_string(r / 4));
  CHECK(rank_label(many, 2) == "n0:0-3,n1:4-7 and 32 more ranks");
}

TEST_CASE("without a window the identical lines of the whole tails collapse, k-th with k-th") {
  Merged m(std::nullopt);
  m.merge.feed(0, host(0), "loading shard 0\nepoch 1 done\nloss nan\nloss nan\n", t0);
  m.merge.feed(1, host(1), "loading shard 1\nepoch 1 done\nloss nan\n", t0);
  m.merge.feed(2, host(2), "epoch 1 done\n", t0 + 5s);
  m.merge.feed(3, host(3), "epoch 1 done\nno newline", t0 + 5s);
  CHECK(m.out.empty());
  m.merge.finish();
  CHECK(m.out ==
        "[node-1:0] loading shard 0\n"
        "[node-1:0-1,node-2:2-3] epoch 1 done\n"
        "[node-1:0-1] loss nan\n"
        "[node-1:0] loss nan\n"
        "[node-1:1] loading shard 1\n"
        "[node-2:3] no newline\n");
}

TEST_CASE("with a window a line waits for its copies only that long") {
  Merged m(1s);
  m.merge.feed(0, host(0), "epoch 1 done\n", t0);
  m.merge.feed(2, host(2), "epoch 1 done\nstep 5\n", t0 + 400ms);
  CHECK(m.merge.next_due() == t0 + 1s);
  m.merge.expire(t0 + 999ms);
  CHECK(m.out.empty());
  m.merge.expire(t0 + 1s);
  CHECK(m.out == "[node-1:0,node-2:2] epoch 1 done\n");
  CHECK(m.merge.next_due() == t0 + 1400ms);
  // Too late for the printed group: a group of its own.
  m.merge.feed(1, host(1), "epoch 1 done\nstep 5\n", t0 + 1200ms);
  m.merge.expire(t0 + 3s);
  CHECK(m.out ==
        "[node-1:0,node-2:2] epoch 1 done\n"
        "[node-1:1,node-2:2] step 5\n"
        "[node-1:1] epoch 1 done\n");
  CHECK(!m.merge.next_due());
}

TEST_CASE("pending text is capped - the oldest groups are printed early") {
  Merged m(std::nullopt, 100);
  m.merge.feed(0, host(0), std::string(60, 'a') + "\n", t0);
  CHECK(m.out.empty());
  m.merge.feed(0, host(0), std::string(60, 'b') + "\n", t0);
  CHECK(m.out == "[node-1:0] " + std::string(60, 'a') + "\n");
  m.merge.finish();
  CHECK(m.out == "[node-1:0] " + std::string(60, 'a') + "\n[node-1:0] " + std::string(60, 'b') + "\n");
}

TEST_CASE("a line without a newline ends at the relay's longest line") {
  Merged m(std::nullopt);
  m.merge.feed(0, host(0), std::string(kMaxRelayedLine + 3, 'z'), t0);
  m.merge.finish();
  CHECK(m.out == "[node-1:0] " + std::string(kMaxRelayedLine, 'z') + "\n[node-1:0] zzz\n");
}

}  // namespace log_merge_test
