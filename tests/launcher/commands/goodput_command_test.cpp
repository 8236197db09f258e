// `pai-launch goodput`, end to end: the real binary on a log folder's journals, as a table and
// as JSON, and its errors.
#include "launcher/commands/goodput_command.h"

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>

#include "launcher/launcher_harness.h"
#include "launcher/report/journal_fixture.h"

namespace goodput_command_test {

using namespace pai;
using namespace pai::testing;

namespace {

// A one-node job of 2 ranks: checks to 2 s, processes from 3 s, steps from 10 s to 100 s,
// exits at 101 s; the coordinator's journal adds its first record at -1 s; a garbage line and
// a cut-off last line.
void write_logs(const TempDir& dir) {
  ::mkdir((dir / "logs").c_str(), 0755);
  ::mkdir((dir / "logs/coordinator").c_str(), 0755);
  ::mkdir((dir / "logs/worker-0").c_str(), 0755);
  spit(dir / "logs/coordinator/events.jsonl",
       line(-1000, "progress", {{"ready", i(0)}, {"total", i(1)}}) + line(102000, "job-succeeded"));
  std::string w =
      line(0, "launcher-started",
           {{"job", s("gp-demo")},
            {"node", s("node-1")},
            {"instance", s("worker-0")},
            {"processes", i(2)},
            {"pid", i(1)}}) +
      "this is no record\n" +
      line(2000, "start", {{"instance", s("worker-0")}, {"attempt", i(0)}, {"processes", i(2)}});
  for (int r = 0; r < 2; ++r) {
    w += line(3000, "process-started", {{"instance", s("worker-0")}, {"rank", i(r)}});
  }
  for (int t = 10; t <= 100; t += 10) {
    for (int r = 0; r < 2; ++r) {
      w += line(t * 1000, "steps", {{"instance", s("worker-0")}, {"step", i(t)}, {"rank", i(r)}});
    }
  }
  for (int r = 0; r < 2; ++r) {
    w += line(101000, "exit", {{"instance", s("worker-0")}, {"rank", i(r)}, {"exitCode", i(0)}});
  }
  w += line(101500, "finish", {{"exitCode", i(0)}, {"reason", s("the job succeeded")}});
  spit(dir / "logs/worker-0/events.jsonl", w + "{\"time\":\"2026-01-02T03:");
}

}  // namespace

TEST_CASE("pai-launch goodput prints each cause's rank-seconds and share") {
  TempDir dir;
  write_logs(dir);
  auto r = run_launcher(dir, {"goodput", dir / "logs"});
  REQUIRE(r.code == 0);
  CHECK(r.err.empty());
  CHECK(r.out.rfind("job gp-demo: 2 rank slots, wall 1m 43s, ETTR 88.3%\n", 0) == 0);
  CHECK(r.out.find("\nproductive                         182.0    88.3%\n") != std::string::npos);
  CHECK(r.out.find("\nstart-up                             4.0     1.9%\n") != std::string::npos);
  CHECK(r.out.find("\ntotal                              206.0   100.0%\n") != std::string::npos);
  CHECK(r.out.find("note: 2 journal lines were skipped") != std::string::npos);
}

TEST_CASE("pai-launch goodput --format json: the causes sum to the rank-seconds of the wall time") {
  TempDir dir;
  write_logs(dir);
  auto r = run_launcher(dir, {"goodput", dir / "logs", "--format", "json"});
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["job"] == "gp-demo");
  CHECK(j["rankSlots"] == 2);
  CHECK(j["wallSeconds"].get<double>() == Approx(103));
  CHECK(j["causes"]["productive"].get<double>() == Approx(182));
  CHECK(j["causes"]["framework-init"].get<double>() == Approx(14));
  CHECK(j["ettr"].get<double>() == Approx(91.0 / 103));
  CHECK(j["skippedLines"] == 2);
  double sum = 0;
  for (const auto& [cause, seconds] : j["causes"].items()) sum += seconds.get<double>();
  CHECK(std::abs(sum - 2 * 103) <= 0.01 * 2 * 103);
  REQUIRE(j["attempts"].size() == 1);
  CHECK(j["attempts"][0]["rankSeconds"].get<double>() == Approx(sum));
}

TEST_CASE("a restart's parts are shown under its attempt, with its warm and cold ranks") {
  using launcher::goodput::Cause;
  launcher::goodput::Account a;
  a.first_ms = 1767323045000;
  a.last_ms = a.first_ms + 20000;
  a.rank_slots = 2;
  a.attempts.resize(2);
  a.attempts[0].attempt = 0;
  a.attempts[0].first_ms = a.first_ms;
  a.attempts[0].last_ms = a.first_ms + 12000;
  a.attempts[0].causes[Cause::StopTeardown] = 1.5;
  a.attempts[0].causes[Cause::RestartBackoff] = 4;
  a.attempts[0].cold_starts = 2;
  a.attempts[1].attempt = 1;
  a.attempts[1].first_ms = a.first_ms + 12000;
  a.attempts[1].last_ms = a.last_ms;
  a.attempts[1].causes[Cause::RendezvousChecks] = 0.25;
  a.attempts[1].causes[Cause::StartUp] = 0.05;
  a.attempts[1].causes[Cause::FrameworkInit] = 0.4;
  a.attempts[1].warm_starts = 2;
  const std::string text = launcher::goodput_text("warm-job", a);
  INFO(text);
  CHECK(text.find("attempt 1: 8.0 s from 2026-01-02 03:04:17Z, productive 0.0%\n"
                  "  restart: stop-and-teardown 1.5 + restart-backoff 4.0 (attempt 0), "
                  "rendezvous-and-checks 0.2 + start-up 0.1 + framework-init 0.4 rank-seconds; "
                  "ranks started warm 2, cold 0\n") != std::string::npos);
  CHECK(count_lines_with(text, "restart:") == 1);  // attempt 0 was no restart
  const auto j = nlohmann::json::parse(launcher::goodput_json("warm-job", a));
  CHECK(j["attempts"][1]["warmStarts"] == 2);
  CHECK(j["attempts"][0]["coldStarts"] == 2);
}

TEST_CASE("pai-launch goodput without a log folder exits 2 naming it") {
  TempDir dir;
  auto missing = run_launcher(dir, {"goodput", dir / "logs"});
  CHECK(missing.code == 2);
  CHECK(missing.out.empty());
  CHECK(missing.err ==
        "pai-launch: error: cannot read the log folder " + dir / "logs" + ": no such directory\n");
  auto bad_format = run_launcher(dir, {"goodput", dir / "logs", "--format", "yaml"});
  CHECK(bad_format.code == 2);
  CHECK(bad_format.err.find("--format: yaml not in {text,json}") != std::string::npos);
}

}  // namespace goodput_command_test
