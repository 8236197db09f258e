#include "launcher/supervisor/rank_output.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <stdexcept>

#include "launcher/launcher_harness.h"
#include "launcher/logs/output_writers.h"

namespace rank_output_test {

using namespace pai::launcher;
using pai::testing::slurp;
using pai::testing::TempDir;

TEST_CASE("both pipes reach the log file and the terminal - EOF flushes a partial line") {
  TempDir dir;
  const int term = ::open((dir / "terminal").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  RankOutput output(dir / "rank-0.attempt-0.log", "[worker-0/0]", "worker-0 rank 0", 0,
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
  flush_output();
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
    RankOutput output(dir / "rank-0.attempt-0.log", "[worker-0/0]", "worker-0 rank 0", 0,
                      Terminal{term, term, false, false});
  }
  flush_output();
  ::umask(old);
  ::close(term);
  struct stat st {};
  REQUIRE(::stat((dir / "rank-0.attempt-0.log").c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0640);
}

TEST_CASE("a log file that cannot be created leaves the output on the terminal - and says why") {
  TempDir dir;
  const int term = ::open((dir / "terminal").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  RankOutput output(dir / "gone/rank-0.attempt-0.log", "[w]", "w rank 0", 0,
                    Terminal{term, term, false, false});
  flush_output();  // the log writer tried to create it
  CHECK(output.log_error() ==
        "cannot write " + (dir / "gone/rank-0.attempt-0.log") + ": No such file or directory");
  const int out = dup(output.child_stdout());
  output.close_child_ends();
  REQUIRE(write(out, "still here\n", 11) == 11);
  ::close(out);
  output.drain();
  output.note("pai-launch: noted\n");  // to the tail alone
  output.close();
  flush_output();
  ::close(term);
  CHECK(slurp(dir / "terminal") == "[w] still here\n");
  CHECK(output.tail().text().find("still here\npai-launch: noted\n") != std::string::npos);
}

}  // namespace rank_output_test
