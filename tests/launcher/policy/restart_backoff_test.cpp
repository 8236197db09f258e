#include "launcher/policy/restart_backoff.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>

namespace restart_backoff_test {

using namespace pai::launcher;

TEST_CASE("a rank killed or a node lost restarts at once the first time - then backs off") {
  CHECK(one_off_failure("signal:9"));
  CHECK(one_off_failure("node-lost"));
  CHECK_FALSE(one_off_failure("oom"));  // the OOM killer's SIGKILL comes back
  CHECK_FALSE(one_off_failure("signal:11"));
  CHECK_FALSE(one_off_failure("hang"));
  CHECK(restart_backoff(10, "signal:9", 1) == 0);
  CHECK(restart_backoff(10, "node-lost", 1) == 0);
  CHECK(restart_backoff(10, "signal:9", 2) == 10);
  CHECK(restart_backoff(10, "signal:9", 3) == 20);
}

TEST_CASE("other failures wait the backoff - doubled per repeat up to 300 s") {
  CHECK(restart_backoff(10, "exit:1", 1) == 10);
  CHECK(restart_backoff(10, "exit:1", 2) == 20);
  CHECK(restart_backoff(10, "pattern:NCCL error", 4) == 80);
  CHECK(restart_backoff(10, "exit:1", 6) == 300);  // 320 capped
  CHECK(restart_backoff(10, "exit:1", 1'000'000) == 300);
  CHECK(restart_backoff(10, "exit:1", std::numeric_limits<int>::max()) == 300);
  // A spec's own longer backoff is kept, never grown past itself.
  CHECK(restart_backoff(600, "exit:1", 1) == 600);
  CHECK(restart_backoff(600, "exit:1", 5) == 600);
  // No backoff stays none.
  CHECK(restart_backoff(0, "exit:1", 7) == 0);
}

}  // namespace restart_backoff_test
