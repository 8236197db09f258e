// Knowing the culprit in a real job (design §12): 2 nodes x 2 gloo DDP ranks (Debian's
// python3-torch) record their steps and collectives in telemetry rings
// (tests/launcher/multi_node/diagnosis_job.py); the launchers send the summaries with their
// heartbeats and the coordinator's diagnosis names the slow or hung rank in its journal; on
// the hang, every rank's stacks are kept under logs/forensics/ and name the culprit too.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "launcher/multi_node/cluster_harness.h"
#include "launcher/os/process.h"

namespace diagnosis_job_test {

using namespace pai;
using namespace pai::testing;

namespace {

// The job of `scenario` on 127.<subnet>.0.1-2, hang detection off.
Plan diagnosis_plan(const std::string& name, int subnet, const std::string& scenario) {
  Plan plan = torch_job_plan(name, subnet, "diagnosis_job.py", scenario);
  plan.fault_tolerance.hang.enabled = false;
  return plan;
}

// Runs the job; returns the coordinator's journal. `forensics` (when given) gets the files of
// logs/forensics/attempt-0, by name.
std::string run_job(const Plan& plan, std::map<std::string, std::string>* forensics = nullptr) {
  Cluster cluster(plan);
  cluster.start_all();
  const auto codes = cluster.wait_all(180);
  INFO(cluster.transcript());
  for (const auto& [node, code] : codes) CHECK(code == 0);
  CHECK(leftover_processes(plan.name).empty());
  const std::filesystem::path folder = cluster.dir() / "logs/forensics/attempt-0";
  if (forensics != nullptr && std::filesystem::is_directory(folder)) {
    for (const auto& entry : std::filesystem::directory_iterator(folder)) {
      (*forensics)[entry.path().filename().string()] = slurp(entry.path().string());
    }
  }
  return slurp(cluster.dir() / "logs/coordinator/events.jsonl");
}

bool on_path(const std::string& tool) {
  const char* path = std::getenv("PATH");
  return !pai::launcher::search_path(tool, path != nullptr ? path : "").empty();
}

}  // namespace

TEST_CASE("a healthy job gets no diagnosis in 300 steps") {
  if (!have_torch()) {
    WARN("python3-torch is not installed: the DDP job cannot run");
    return;
  }
  const std::string journal = run_job(diagnosis_plan("diag-healthy", 151, "healthy"));
  CHECK(count_lines_with(journal, "\"event\":\"diagnosis\"") == 0);
}

TEST_CASE("a rank computing twice as long is named RankNonCommSlow") {
  if (!have_torch()) {
    WARN("python3-torch is not installed: the DDP job cannot run");
    return;
  }
  // Twice as long and a factor of 1.1, not the 30% and the default 1.2: on CI's two
  // cores, under ctest -j2 and an ASan build, a 30% and then a 50% slower rank went unnamed
  // (everything else slows too, so the compute shares of the window draw together). The
  // detection of a 30% slower rank with the default settings is measured by
  // bench/diagnosis.sh instead.
  Plan plan = diagnosis_plan("diag-slow", 152, "slow SLOWDOWN=2 STEPS=60");
  plan.fault_tolerance.diagnosis.slow_factor = 1.1;
  const std::string journal = run_job(plan);
  INFO(journal);
  // Every verdict names rank 3 on node-2, and nothing else is blamed. A rank is named once per
  // episode (the unit tests pin that down); under load the whole machine slows and the rank
  // can stand out too little for 5 windows, which ends the episode, so a CI run saw it named
  // in two.
  const int verdicts = count_lines_with(journal, "\"event\":\"diagnosis\"");
  CHECK(verdicts >= 1);
  CHECK(count_lines_with(journal, "\"class\":\"RankNonCommSlow\"") == verdicts);
  CHECK(count_lines_with(journal, "\"node\":\"node-2\",\"rank\":3,") == verdicts);
}

TEST_CASE("a rank blocked outside collectives is named RankNonCommHang and blamed for the hang") {
  if (!have_torch()) {
    WARN("python3-torch is not installed: the DDP job cannot run");
    return;
  }
  Plan plan = diagnosis_plan("diag-hang", 153, "hang");
  plan.fault_tolerance.diagnosis.hang_seconds = 4;
  plan.fault_tolerance.hang.enabled = true;
  plan.fault_tolerance.hang.interval_seconds = 15;
  std::map<std::string, std::string> forensics;
  const std::string journal = run_job(plan, &forensics);
  INFO(journal);
  CHECK(count_lines_with(journal, "\"event\":\"diagnosis\",\"class\":\"RankNonCommHang\"") == 1);
  CHECK(count_lines_with(journal, "\"event\":\"diagnosis\"") == 1);
  // The job-wide hang names the verdict's rank as its culprit (a JSON object in the record).
  CHECK(count_lines_with(journal, "\"culprit\":{\"class\":\"RankNonCommHang\",\"rank\":1,") == 1);
  // The job-wide hang blames the instance of rank 1 (worker-0), not the one idle longest.
  CHECK(count_lines_with(journal, "\"instance\":\"worker-0\",\"jobWide\":true") == 1);
  CHECK(count_lines_with(journal, "rank 1 (node-1") >= 2);
  // Hang forensics before the stop: every rank's stacks, each node's Xid file.
  for (int rank = 0; rank < 4; ++rank) {
    const std::string name = "rank-" + std::to_string(rank) + ".txt";
    INFO(name);
    REQUIRE(forensics.count(name) == 1);
    CHECK(forensics[name].find("== python stack: what its log gained after SIGUSR1") !=
          std::string::npos);
    // faulthandler's dump, registered by the SDK's Monitor.
    CHECK(forensics[name].find("most recent call first") != std::string::npos);
    CHECK(forensics[name].find("== telemetry ==\nlast step: ") != std::string::npos);
  }
  CHECK(forensics.count("xid.worker-0.txt") == 1);
  CHECK(forensics.count("xid.worker-1.txt") == 1);
  CHECK(count_lines_with(journal, "\"event\":\"forensics\"") == 2);
  // DDP waits for its all-reduce under Python's backward: only a native stack shows it (gdb,
  // the fallback, may take longer than the stack-dump window to read libtorch's symbols).
  if (on_path("eu-stack")) {
    INFO(forensics["rank-1.txt"]);
    CHECK(forensics["rank-1.txt"].find("verdict: outside") != std::string::npos);
    CHECK(forensics["rank-2.txt"].find("verdict: collective: c10d::") != std::string::npos);
    CHECK(count_lines_with(journal, "\"culprits\":\"1\"") >= 1);
    CHECK(count_lines_with(journal, "\"outside\":\"1\"") == 1);
    CHECK(count_lines_with(journal, "\"evidence\":\"rank 1 is outside any collective") >= 1);
  } else {
    WARN("eu-stack (elfutils) is not installed: the stacks' culprit was not checked");
  }
}

}  // namespace diagnosis_job_test
