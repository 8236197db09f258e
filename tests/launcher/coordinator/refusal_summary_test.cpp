#include "launcher/coordinator/refusal_summary.h"

#include <catch2/catch.hpp>
#include <string>

namespace refusal_summary_test {

using namespace pai::launcher::coordinator;
using namespace std::chrono_literals;

namespace {

const std::string kTimeout = "no handshake within 10.0s";
const std::string kGarbage = "unsupported protocol version 47 (expected 1)";

std::size_t total_count(const std::vector<Record>& records) {
  std::size_t total = 0;
  for (const auto& record : records) total += record.fields.at("count").get<std::size_t>();
  return total;
}

}  // namespace

TEST_CASE("the first refusal is reported at once and the rest once an interval") {
  RefusalSummary summary(RefusalSummary::Kind::ConnectionsRefused, 1000ms);
  const Clock::time_point t0 = Clock::now();
  CHECK_FALSE(summary.next_due());
  CHECK(summary.due(t0).empty());

  auto first = summary.refused("127.0.0.7", kGarbage, t0);
  REQUIRE(first.size() == 1);
  CHECK(first[0].kind == "connections-refused");
  CHECK(first[0].fields == Json{{"address", "127.0.0.7"}, {"count", 1}, {"reason", kGarbage}});
  CHECK(first[0].line == "refused 1 connection from 127.0.0.7: " + kGarbage);
  CHECK_FALSE(summary.next_due());

  for (int i = 0; i < 5; ++i) CHECK(summary.refused("127.0.0.7", kGarbage, t0 + 10ms).empty());
  CHECK(summary.refused("127.0.0.8", kTimeout, t0 + 15ms).empty());
  CHECK(summary.refused("", "accept failed: Too many open files", t0 + 20ms).empty());
  REQUIRE(summary.next_due());
  CHECK(*summary.next_due() == t0 + 1000ms);
  CHECK(summary.due(t0 + 999ms).empty());

  // The largest count first, then in the order they came.
  auto later = summary.due(t0 + 1000ms);
  REQUIRE(later.size() == 3);
  CHECK(later[0].fields == Json{{"address", "127.0.0.7"}, {"count", 5}, {"reason", kGarbage}});
  CHECK(later[0].line == "refused 5 connections from 127.0.0.7: " + kGarbage);
  CHECK(later[1].fields == Json{{"address", "127.0.0.8"}, {"count", 1}, {"reason", kTimeout}});
  CHECK(later[2].fields == Json{{"count", 1}, {"reason", "accept failed: Too many open files"}});
  CHECK(later[2].line == "refused 1 connection: accept failed: Too many open files");
  CHECK_FALSE(summary.next_due());
  CHECK(summary.due(t0 + 5000ms).empty());

  // Quiet for an interval: the next refusal is reported at once again.
  CHECK(summary.refused("127.0.0.7", kGarbage, t0 + 2000ms).size() == 1);
}

TEST_CASE("a round lists the largest counts and sums the rest in one record") {
  RefusalSummary summary(RefusalSummary::Kind::ConnectionsRefused, 1000ms);
  const Clock::time_point t0 = Clock::now();
  REQUIRE(summary.refused("10.0.0.1", kGarbage, t0).size() == 1);

  // 40 addresses; address i refuses i + 1 connections, two reasons for the last one.
  std::size_t sent = 0;
  for (int i = 0; i < 40; ++i) {
    std::string address = "10.0.1." + std::to_string(i);
    for (int k = 0; k <= i; ++k, ++sent)
      CHECK(summary.refused(address, kGarbage, t0 + 1ms).empty());
  }
  CHECK(summary.refused("10.0.1.39", kTimeout, t0 + 2ms).empty());
  ++sent;

  auto round = summary.due(t0 + 1000ms);
  REQUIRE(round.size() == RefusalSummary::kMaxListed + 1);
  for (std::size_t i = 0; i < RefusalSummary::kMaxListed; ++i) {
    CHECK(round[i].fields.at("address") == "10.0.1." + std::to_string(39 - i));
    CHECK(round[i].fields.at("count") == 40 - i);
  }
  const Record& rest = round.back();
  CHECK_FALSE(rest.fields.contains("address"));
  CHECK(rest.line == "refused " + std::to_string(rest.fields.at("count").get<std::size_t>()) +
                         " more connections from other addresses or for other reasons");
  CHECK(total_count(round) == sent);
}

TEST_CASE("a flood of distinct reasons is counted in bounded memory and records") {
  RefusalSummary summary(RefusalSummary::Kind::ConnectionsRefused, 1000ms);
  const Clock::time_point t0 = Clock::now();
  REQUIRE(summary.refused("10.0.0.1", kGarbage, t0).size() == 1);
  // Every connection a different reason (the peer chooses what a reason quotes).
  const std::size_t flood = RefusalSummary::kMaxTracked + 1000;
  for (std::size_t i = 0; i < flood; ++i) {
    summary.refused("10.0.0.1", "hello: job \"" + std::to_string(i) + "\" is not this job", t0);
  }
  auto round = summary.due(t0 + 1000ms);
  REQUIRE(round.size() == RefusalSummary::kMaxListed + 1);
  CHECK(round.back().fields == Json{{"count", flood - RefusalSummary::kMaxListed}});
  CHECK(total_count(round) == flood);
}

TEST_CASE("long reasons are cut") {
  RefusalSummary summary(RefusalSummary::Kind::ConnectionsRefused, 1000ms);
  auto record =
      summary.refused("10.0.0.1", "hello: invalid JSON: " + std::string(20000, 'x'), Clock::now());
  REQUIRE(record.size() == 1);
  std::string reason = record[0].fields.at("reason");
  CHECK(reason ==
        "hello: invalid JSON: " + std::string(RefusalSummary::kMaxReason - 21, 'x') + "...");
}

TEST_CASE("port probes are journaled but not shown") {
  RefusalSummary summary(RefusalSummary::Kind::ConnectionsRefused, 1000ms);
  const Clock::time_point t0 = Clock::now();
  auto probe = summary.refused("127.0.0.2", "closed before sending anything", t0, false);
  REQUIRE(probe.size() == 1);
  CHECK(probe[0].fields.at("count") == 1);
  CHECK(probe[0].line.empty());

  // A pair is shown once any of its refusals is; so is the sum of the rest.
  summary.refused("127.0.0.2", "closed before sending anything", t0 + 1ms, false);
  summary.refused("127.0.0.3", "closed before sending anything", t0 + 1ms, false);
  summary.refused("127.0.0.3", "closed before sending anything", t0 + 1ms, true);
  auto round = summary.due(t0 + 1000ms);
  REQUIRE(round.size() == 2);
  CHECK(round[0].fields.at("address") == "127.0.0.3");
  CHECK(round[0].line == "refused 2 connections from 127.0.0.3: closed before sending anything");
  CHECK(round[1].fields.at("address") == "127.0.0.2");
  CHECK(round[1].line.empty());
}

}  // namespace refusal_summary_test
