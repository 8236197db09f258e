#include "launcher/supervisor/rank_output.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <stdexcept>

#include "launcher/launcher_harness.h"

namespace rank_output_test {

using namespace pai::launcher;
using pai::testing::slurp;
using pai::testing::TempDir;

TEST_CASE("both pipes reach the log file and the terminal - EOF flushes a partial line") {
  TempDir dir;
  const int term = ::open((dir / "terminal").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  RankOutput output(dir / "rank-0.attempt-0.log", "[worker-0/0]", 0,
                    Terminal{term, term, false, false});
  EventLoop loop;
  int activity = 0;
  const int out = dup(output.child_stdout());
  const int err = dup(output.child_stderr());
  output.close_child_ends();
  output.watch(loop, [&] { ++activity; });
  REQUIRE(write(out, "out line\npartial", 16) == 16);
  loop.wait_once(1000);
  REQUIRE(write(err, "err line\n", 9) == 9);
  ::close(out);
  ::close(err);
  output.drain();
  output.note("pai-launch: noted\n");
  output.close();
  ::close(term);
  CHECK(activity >= 1);
  CHECK(slurp(dir / "rank-0.attempt-0.log") ==
        "out line\npartialerr line\npai-launch: noted\n");
  CHECK(slurp(dir / "terminal") ==
        "[worker-0/0] out line\n[worker-0/0] partial\n[worker-0/0] err line\n");
  CHECK(output.tail().last_lines(1) == "pai-launch: noted");
}

TEST_CASE("a rank's log is not readable by other users") {
  TempDir dir;
  const int term = ::open((dir / "terminal").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const mode_t old = ::umask(0);
  {
    RankOutput output(dir / "rank-0.attempt-0.log", "[worker-0/0]", 0,
                      Terminal{term, term, false, false});
  }
  ::umask(old);
  ::close(term);
  struct stat st {};
  REQUIRE(::stat((dir / "rank-0.attempt-0.log").c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0640);
}

TEST_CASE("an unwritable log file is an error naming it") {
  try {
    RankOutput output("/nonexistent/rank-0.attempt-0.log", "[w]", 0, Terminal{});
    FAIL("no error");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()) ==
          "cannot write /nonexistent/rank-0.attempt-0.log: No such file or directory");
  }
}

}  // namespace rank_output_test
