#include "launcher/logs/log_stream.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "launcher/launcher_harness.h"
#include "launcher/logs/log_tail.h"

namespace log_stream_test {

using namespace pai::launcher;
using pai::testing::spit;
using pai::testing::TempDir;

namespace {

// A stream whose chunks are kept per rank.
struct Sent {
  std::map<int, std::string> by_rank;
  LogStream stream{[this](int rank, std::string_view data) { by_rank[rank] += data; }};
};

void append(const std::string& path, const std::string& text) {
  spit(path, pai::testing::slurp(path) + text);
}

}  // namespace

TEST_CASE("a subscription starts each rank's log at its last lines, then follows it") {
  TempDir dir;
  const std::string log0 = dir / "rank-0.attempt-0.log";
  const std::string log1 = dir / "rank-1.attempt-0.log";
  spit(log0, "a\nb\nc\n");
  spit(log1, "x\ny\npartial");
  Sent s;
  s.stream.subscribe(-1, 1024, 2);
  s.stream.grew(0, log0);
  s.stream.grew(1, log1);
  CHECK(s.by_rank[0] == "b\nc\n");
  CHECK(s.by_rank[1] == "y\npartial");
  append(log0, "d\n");
  append(log1, " line\n");
  s.stream.grew(0, log0);
  s.stream.grew(1, log1);
  CHECK(s.by_rank[0] == "b\nc\nd\n");
  CHECK(s.by_rank[1] == "y\npartial line\n");
  // A new attempt's file is sent from its start.
  const std::string next = dir / "rank-0.attempt-1.log";
  spit(next, "e\n");
  s.stream.grew(0, next);
  CHECK(s.by_rank[0] == "b\nc\nd\ne\n");
}

TEST_CASE("the byte cap starts a tail at the next line - or cuts a giant line behind a marker") {
  TempDir dir;
  const std::string log = dir / "rank-0.attempt-0.log";
  spit(log, "first line\nsecond\n");
  Sent capped;
  capped.stream.subscribe(0, 10, 100);  // "ne\nsecond\n": "ne" is the end of a line
  capped.stream.grew(0, log);
  CHECK(capped.by_rank[0] == "second\n");

  spit(log, "first line\n" + std::string(50, 'x'));
  Sent cut;
  cut.stream.subscribe(0, 10, 100);
  cut.stream.grew(0, log);
  CHECK(cut.by_rank[0] == std::string(kCutLineMarker) + std::string(10, 'x'));

  Sent only_new;
  only_new.stream.subscribe(-1, 0, -1);
  only_new.stream.grew(0, log);
  CHECK(only_new.by_rank[0].empty());
  append(log, "\n");
  only_new.stream.grew(0, log);
  CHECK(only_new.by_rank[0] == "\n");
}

}  // namespace log_stream_test
