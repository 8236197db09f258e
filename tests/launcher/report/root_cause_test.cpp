#include "launcher/report/root_cause.h"

#include <catch2/catch.hpp>
#include <optional>
#include <type_traits>
#include <variant>

#include "launcher/report/journal_fixture.h"

namespace root_cause_test {

using namespace pai::launcher::report;
using namespace pai::testing;

namespace {

// The end of a job `text` (a journal line) reads as.
JobEnd record(const std::string& text) {
  const auto r = entry_of(text);
  REQUIRE(r);
  std::optional<JobEnd> end;
  std::visit(
      [&](const auto& e) {
        if constexpr (std::is_constructible_v<JobEnd, decltype(e)>) end = e;
      },
      r->event);
  REQUIRE(end);
  return *end;
}

}  // namespace

TEST_CASE("a one-node job's failure: reason, rank and matched line as the launcher wrote them") {
  const JobEnd end =
      record(line(0, "job-failed",
                  {{"job", s("t")},
                   {"reason", s("worker-0 local rank 1: exit code 3: not retryable")},
                   {"exitCode", i(3)},
                   {"rank", i(1)},
                   {"matchedLine", s("CUDA error: an illegal memory access")}}));
  RootCauseEvidence ev;
  ev.end = &end;
  ev.failure_summary = "root cause: rank 1\n| last line";
  const RootCause rc = find_root_cause(ev);
  CHECK(rc.outcome == JobOutcome::Failed);
  CHECK(rc.exit_code == 3);
  CHECK(rc.headline == "worker-0 local rank 1: exit code 3: not retryable");
  CHECK(rc.details ==
        std::vector<std::string>{"rank: 1", "matched line: CUDA error: an illegal memory access"});
  CHECK(rc.summary == "root cause: rank 1\n| last line");
}

TEST_CASE("a cancel says why - a node's finish is an end too - a success ignores old culprits") {
  const JobEnd cancelled =
      record(line(0, "job-cancelled", {{"reason", s("received SIGTERM")}, {"exitCode", i(143)}}));
  RootCauseEvidence ev;
  ev.end = &cancelled;
  CHECK(find_root_cause(ev).headline == "cancelled: received SIGTERM");
  CHECK(find_root_cause(ev).outcome == JobOutcome::Cancelled);

  const JobEnd finish =
      record(line(0, "finish", {{"exitCode", i(1)}, {"reason", s("node-2 lost\nmore")}}));
  ev.end = &finish;
  CHECK(find_root_cause(ev).headline == "node-2 lost");
  CHECK(find_root_cause(ev).outcome == JobOutcome::Failed);

  const JobEnd ok = record(line(0, "job-succeeded"));
  ev.end = &ok;
  ev.stack_culprit = "rank 3 outside";
  ev.failure_summary = "an old failure";
  ev.job_restarts = 2;
  ev.restart_reasons = {{"a", 1}, {"b", 5}, {"c", 2}, {"d", 1}};
  const RootCause rc = find_root_cause(ev);
  CHECK(rc.headline == "the job succeeded after 2 restarts");
  CHECK(rc.summary.empty());
  CHECK(rc.details ==
        std::vector<std::string>{"restarted 5x: b", "restarted 2x: c", "restarted 1x: a"});
}

}  // namespace root_cause_test
