#include "launcher/coordinator/job_forensics.h"

#include <catch2/catch.hpp>

#include "machine_harness.h"

namespace job_forensics_test {

using namespace pai::launcher::coordinator;
using namespace pai::launcher::coordinator::testing;

namespace {

// Worker-0 (node-0) runs ranks 0-1, worker-1 (node-1) ranks 2-3, ps-0 (node-2) rank 4.
pai::Plan failing_plan() {
  pai::Plan plan = pai::testing::make_test_plan();
  plan.fault_tolerance.max_restarts = 0;
  plan.fault_tolerance.max_tolerated_failure_rate = -1;
  return plan;
}

Json forensics(int instance, Json ranks) {
  return Json{{"type", "forensics"},
              {"instance", instance},
              {"attempt", 0},
              {"folder", "/runs/test-job/logs/forensics/attempt-0"},
              {"ranks", std::move(ranks)}};
}

Json stacks(int rank, const char* place, const char* frame) {
  return Json{{"rank", rank}, {"place", place}, {"frame", frame}};
}

// Every instance reports its stop as done.
void stop_all(MachineHarness& h) {
  for (int i = 0; i < 3; ++i) h.stopped("node-" + std::to_string(i), i);
}

constexpr const char* kEvidence =
    "rank 2 is outside any collective (rank 2 at <module> (train.py:8)) while 3 ranks wait in "
    "one (rank 0 at c10d::Reducer::finalize_backward()); stacks in "
    "node-1:/runs/test-job/logs/forensics/attempt-0";

}  // namespace

TEST_CASE("the stacks of every node name the rank outside collectives - in the failure summary") {
  MachineHarness h(failing_plan());
  h.join_all();
  h.receive("node-2", Json{{"type", "hang"}, {"instance", 2}, {"exiting", false}, {"seconds", 60}});
  h.clear();
  h.receive("node-0", forensics(0, {stacks(0, "collective", "c10d::Reducer::finalize_backward()"),
                                    stacks(1, "collective", "all_reduce (x.py:3)")}));
  auto records = h.records("forensics");
  REQUIRE(records.size() == 1);
  CHECK(records[0].fields.at("node") == "node-0");
  CHECK(records[0].fields.at("culprits") == "");
  CHECK(records[0].fields.at("inCollective") == "0,1");
  CHECK(records[0].line.empty());  // nobody outside yet
  h.receive("node-1", forensics(1, {stacks(2, "outside", "<module> (train.py:8)"),
                                    stacks(3, "collective", "")}));
  h.receive("node-2", forensics(2, {stacks(4, "unknown", "")}));
  records = h.records("forensics");
  REQUIRE(records.size() == 3);
  CHECK(records[1].fields.at("culprits") == "2");
  CHECK(records[1].fields.at("outside") == "2");
  CHECK(records[1].fields.at("inCollective") == "3");
  CHECK(records[1].fields.at("evidence") == kEvidence);
  CHECK(records[1].line ==
        std::string("hang forensics: the stacks name the culprit: ") + kEvidence);
  CHECK(records[2].line.empty());  // the same culprit: said once
  CHECK(records[2].fields.at("unknown") == "4");
  CHECK(records[2].fields.at("culprits") == "2");
  stop_all(h);
  const auto finish = h.finish();
  REQUIRE(finish.has_value());
  CHECK(finish->reason.ends_with(std::string("\nculprit from the stacks: ") + kEvidence));
  CHECK(h.records("job-failed").at(0).fields.at("stackCulprit") == kEvidence);
}

TEST_CASE("stacks of ranks the sender does not run are a protocol error") {
  MachineHarness h(failing_plan());
  h.join_all();
  h.clear();
  h.receive("node-0", forensics(0, {stacks(2, "outside", "")}));
  CHECK(h.records("protocol-error").at(0).fields.at("error") ==
        "forensics: ranks: rank 2 is not in instance 0");
  h.clear();
  h.receive("node-1", forensics(0, Json::array()));
  CHECK(h.records("protocol-error").at(0).fields.at("error") ==
        "forensics: instance: node node-1 does not run instance 0");
  h.clear();
  h.receive("node-2", forensics(2, {stacks(4, "outside", ""), stacks(4, "outside", "")}));
  CHECK(h.records("protocol-error").at(0).fields.at("error") ==
        "forensics: ranks: more entries than ranks");
}

TEST_CASE("a restart forgets the stacks of the attempt before") {
  pai::Plan plan = failing_plan();
  plan.fault_tolerance.max_restarts = 1;
  plan.fault_tolerance.backoff_seconds = 0;
  plan.sanity_check.enabled = false;
  MachineHarness h(plan);
  h.join_all();
  h.receive("node-2", Json{{"type", "hang"}, {"instance", 2}, {"exiting", false}, {"seconds", 60}});
  h.receive("node-1", forensics(1, {stacks(2, "outside", "f"), stacks(3, "collective", "g")}));
  CHECK(h.records("forensics").at(0).fields.at("culprits") == "2");
  stop_all(h);
  h.clear();
  h.advance(1s);
  REQUIRE(h.only("node-1", "start").at("attempt") == 1);
  h.clear();
  h.receive("node-1", exited(1, 0, 3, 0, false, "exit code 3: not retryable"));
  stop_all(h);
  const auto finish = h.finish();
  REQUIRE(finish.has_value());
  CHECK(finish->reason.find("culprit from the stacks") == std::string::npos);
}

}  // namespace job_forensics_test
