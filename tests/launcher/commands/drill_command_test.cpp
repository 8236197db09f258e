// `pai-launch drill`, its errors end to end (the real binary): what it refuses before any
// fault goes in, each with exit code 2 and a message naming what is wrong. The campaign itself
// runs against a real job in launcher/multi_node/drill_job_test.
#include "launcher/commands/drill_command.h"

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "launcher/launcher_harness.h"

namespace drill_command_test {

using namespace pai::testing;

namespace {

// Runs `pai-launch drill ARGS`; its exit code and stderr.
std::pair<int, std::string> drill(const TempDir& dir, std::vector<std::string> args) {
  args.insert(args.begin(), "drill");
  const RunResult r = run_launcher(dir, std::move(args), 20);
  return {r.code, r.err};
}

}  // namespace

TEST_CASE("drill refuses an unknown fault, a bad duration or format - before finding the job") {
  TempDir dir;
  auto [code, err] = drill(dir, {"--faults", "rank-kill,gpu-xid", "--coordinator", "127.0.0.1:1",
                                 "--job", "j", "--token-file", "t"});
  CHECK(code == 2);
  CHECK(err.find("drill: --faults: unknown fault \"gpu-xid\"; expected rank-kill, rank-hang, "
                 "slow-rank, collective-hang, slow-gpu, node-loss, slow-link, dropped-link or "
                 "disk-full") != std::string::npos);
  std::tie(code, err) = drill(dir, {"--hold", "0s"});
  CHECK(code == 2);
  CHECK(err.find("drill: --hold 0s: expected 1s to 1h") != std::string::npos);
  std::tie(code, err) = drill(dir, {"--timeout", "2h"});
  CHECK(code == 2);
  CHECK(err.find("drill: --timeout 2h: expected 1s to 1h") != std::string::npos);
  std::tie(code, err) = drill(dir, {"--settle", "soon"});
  CHECK(code == 2);
  CHECK(err.find("drill: --settle soon: ") != std::string::npos);
  std::tie(code, err) = drill(dir, {"--format", "yaml"});
  CHECK(code == 2);
  CHECK(err.find("--format") != std::string::npos);
  std::tie(code, err) = drill(dir, {"--rank", "-1"});
  CHECK(code == 2);
}

TEST_CASE("drill needs the job and its log folder - it says which is missing") {
  TempDir dir;
  // No job named at all (no plan, flags or environment).
  auto [code, err] = drill(dir, {"--log-dir", dir.path()});
  CHECK(code == 2);
  CHECK(err.find("pai-launch drill: ") != std::string::npos);
  // A job named by its coordinator has no log folder but --log-dir's.
  spit(dir / "job.token", "token-0123456789abcdef0123456789\n");
  ::chmod((dir / "job.token").c_str(), 0600);
  std::tie(code, err) =
      drill(dir, {"--coordinator", "127.0.0.1:9", "--job", "j", "--token-file", dir / "job.token"});
  CHECK(code == 2);
  CHECK(err.find("the drill scores faults from the job's journals: give --log-dir (or --plan)") !=
        std::string::npos);
  // A log folder that is not there is refused before anything is asked of the coordinator.
  std::tie(code, err) = drill(dir, {"--coordinator", "127.0.0.1:9", "--job", "j", "--token-file",
                                    dir / "job.token", "--log-dir", dir / "no-such"});
  CHECK(code == 2);
  CHECK(err.find("cannot read the log folder " + dir / "no-such" + ": no such directory") !=
        std::string::npos);
}

TEST_CASE("drill against a coordinator that is not there fails with exit code 1") {
  TempDir dir;
  spit(dir / "job.token", "token-0123456789abcdef0123456789\n");
  ::chmod((dir / "job.token").c_str(), 0600);
  ::mkdir((dir / "logs").c_str(), 0755);
  ::mkdir((dir / "logs/coordinator").c_str(), 0755);
  spit(dir / "logs/coordinator/events.jsonl", "");
  auto [code, err] = drill(dir, {"--coordinator", "127.0.0.1:9", "--job", "j", "--token-file",
                                 dir / "job.token", "--log-dir", dir / "logs"});
  CHECK(code == 1);
  CHECK(err.find("pai-launch drill: ") != std::string::npos);
  CHECK(err.find("127.0.0.1:9") != std::string::npos);
}

}  // namespace drill_command_test
