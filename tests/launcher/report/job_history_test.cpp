#include "launcher/report/job_history.h"

#include <catch2/catch.hpp>

namespace job_history_test {

using namespace pai::launcher::report;

TEST_CASE("nodes are in natural order") {
  CHECK(natural_less("node-2", "node-10"));
  CHECK_FALSE(natural_less("node-10", "node-2"));
  CHECK(natural_less("node-02", "node-3"));
  CHECK(natural_less("a", "b"));
  CHECK(natural_less("gpu-1", "gpu-1a"));
  CHECK_FALSE(natural_less("x", "x"));
}

TEST_CASE("texts are clipped on a character boundary") {
  CHECK(clip_text("short", 10) == "short");
  CHECK(clip_text("abcdef", 3) == "abc...");
  CHECK(clip_text("ab\xC3\xA9", 3) == "ab...");  // é is two bytes: not cut in half
}

TEST_CASE("marks are merged by kind and time slot and keep their count") {
  std::vector<Mark> marks;
  for (int k = 0; k < 1000; ++k) {
    marks.push_back(Mark{k * 100, k % 3 == 0 ? MarkKind::Restart : MarkKind::Notify,
                         "m" + std::to_string(k), 1});
  }
  compact_marks(marks, 100);
  CHECK(marks.size() <= 50);
  std::int64_t restarts = 0, notes = 0;
  for (const Mark& m : marks) (m.kind == MarkKind::Restart ? restarts : notes) += m.count;
  CHECK(restarts == 334);
  CHECK(notes == 666);
  CHECK(marks.front().text == "m0");
  for (std::size_t k = 1; k < marks.size(); ++k) CHECK(marks[k - 1].unix_ms <= marks[k].unix_ms);

  std::vector<Mark> few = {Mark{5, MarkKind::Hang, "b", 1}, Mark{1, MarkKind::Hang, "a", 1}};
  compact_marks(few, 100);  // under the cap: only sorted
  REQUIRE(few.size() == 2);
  CHECK(few[0].text == "a");
}

TEST_CASE("too many attempts on a node are merged with their neighbours - a failure shows") {
  std::vector<Attempt> attempts;
  for (int k = 0; k < 1000; ++k) {
    attempts.push_back(Attempt{"worker-0", k, k * 10, k * 10 + 5,
                               k == 501 ? AttemptEnd::Failed : AttemptEnd::Stopped, 1});
  }
  attempts.push_back(Attempt{"worker-1", 0, 20000, 20005, AttemptEnd::Succeeded, 1});
  merge_attempts(attempts, 300);
  REQUIRE(attempts.size() <= 300);
  std::int64_t total = 0, failed = 0;
  for (const Attempt& a : attempts) {
    total += a.count;
    failed += a.end == AttemptEnd::Failed;
  }
  CHECK(total == 1001);
  CHECK(failed == 1);
  CHECK(attempts.front().number == 0);
  CHECK(attempts.front().start_ms == 0);
  CHECK(attempts.front().end_ms == (attempts.front().count - 1) * 10 + 5);
  CHECK(attempts.back().instance == "worker-1");  // never merged into another instance's bar
  CHECK(attempts.back().count == 1);
}

TEST_CASE("merging again starts from the width that was enough - it does not grow each time") {
  std::vector<Mark> marks;
  std::int64_t slot_ms = 1000;
  for (int k = 0; k < 20'000; ++k) {
    marks.push_back(Mark{k * 1000, MarkKind::Notify, "m", 1});
    if (marks.size() > 100) {
      compact_marks(marks, 100, &slot_ms);
      REQUIRE(marks.size() <= 50);
    }
  }
  // 20,000 s in at most 50 slots: 400 s, so the width stops at 512 s.
  CHECK(slot_ms == 512'000);
  std::int64_t total = 0;
  for (const Mark& m : marks) total += m.count;
  CHECK(total == 20'000);
}

}  // namespace job_history_test
