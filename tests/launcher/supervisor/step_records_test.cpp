#include "launcher/supervisor/step_records.h"

#include <catch2/catch.hpp>

namespace step_records_test {

using pai::launcher::StepRecords;
using Clock = StepRecords::Clock;
using std::chrono::seconds;

TEST_CASE("a rank's first step is journaled at once, later ones once per interval") {
  StepRecords records(seconds(10));
  const Clock::time_point t0{};
  CHECK(records.sample(-1, t0) == std::nullopt);  // no step yet
  CHECK(records.sample(5, t0) == 5);
  CHECK(records.sample(6, t0 + seconds(1)) == std::nullopt);
  CHECK(records.sample(90, t0 + seconds(9)) == std::nullopt);
  CHECK(records.sample(100, t0 + seconds(10)) == 100);
  CHECK(records.sample(101, t0 + seconds(11)) == std::nullopt);
}

TEST_CASE("a step that does not move is not journaled again, however long it stands") {
  StepRecords records(seconds(10));
  const Clock::time_point t0{};
  CHECK(records.sample(7, t0) == 7);
  CHECK(records.sample(7, t0 + seconds(30)) == std::nullopt);
  CHECK(records.sample(7, t0 + seconds(3600)) == std::nullopt);
  CHECK(records.last() == std::nullopt);  // nothing new at the end either
}

TEST_CASE("the last step seen is journaled when the rank ends, once") {
  StepRecords records(seconds(10));
  const Clock::time_point t0{};
  CHECK(records.last() == std::nullopt);  // never stepped
  CHECK(records.sample(1, t0) == 1);
  CHECK(records.sample(42, t0 + seconds(2)) == std::nullopt);
  CHECK(records.last() == 42);
  CHECK(records.last() == std::nullopt);
}

TEST_CASE("a step that goes back (a resume from a checkpoint) is journaled as a move") {
  StepRecords records(seconds(10));
  const Clock::time_point t0{};
  CHECK(records.sample(500, t0) == 500);
  CHECK(records.sample(400, t0 + seconds(10)) == 400);
}

}  // namespace step_records_test
