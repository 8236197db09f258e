// GPU-idle detection end to end (issue 18): real launchers on loopback, each loading the fake
// NVML (tests/launcher/checks/fixtures/fake_nvml.c) as libnvidia-ml.so.1 through
// LD_LIBRARY_PATH, with a window of 2 s.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "launcher/multi_node/cluster_harness.h"

namespace gpu_idle_job_test {

using namespace pai;
using namespace pai::testing;

// A folder holding the fake NVML under the name the launcher opens.
class FakeNvmlFolder {
 public:
  FakeNvmlFolder() {
    const std::string fake = PAI_BINARY_DIR "/launcher/checks/libpai_fake_nvml.so";
    REQUIRE(::symlink(fake.c_str(), (dir_ / "libnvidia-ml.so.1").c_str()) == 0);
  }
  const std::string& path() const { return dir_.path(); }

 private:
  TempDir dir_;
};

// A 2-node job of one rank each running `script`, GPUs idle below 30% for 2 s → `action`.
Plan gpu_idle_plan(const std::string& name, int subnet, const std::string& script,
                   GpuIdleAction action) {
  Plan plan = cluster_plan(name, subnet, 2, 0, script);
  plan.monitoring.gpu_idle = {.threshold_percent = 30, .window_seconds = 2, .action = action};
  return plan;
}

// The records of `kind` in the coordinator's journal.
std::vector<nlohmann::json> records(const Cluster& cluster, const std::string& kind) {
  std::vector<nlohmann::json> found;
  std::istringstream lines(slurp(cluster.dir() / "logs/coordinator/events.jsonl"));
  for (std::string line; std::getline(lines, line);) {
    nlohmann::json record = nlohmann::json::parse(line, nullptr, false);
    if (record.is_object() && record.value("event", "") == kind) found.push_back(record);
  }
  return found;
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path + ".new");
  out << text;
  out.close();
  REQUIRE(std::rename((path + ".new").c_str(), path.c_str()) == 0);
}

TEST_CASE("an idle GPU is journaled and shown once while the job runs on - action warn") {
  FakeNvmlFolder nvml;
  Cluster cluster(gpu_idle_plan("gpu-idle-warn", 190, "sleep 4", GpuIdleAction::Warn));
  // node-1: GPU 0 idle, GPU 1 busy; node-2 busy.
  cluster.start("node-1", {},
                {{"LD_LIBRARY_PATH", nvml.path()}, {"PAI_FAKE_NVML_UTILIZATION", "5,90"}});
  cluster.start("node-2", {},
                {{"LD_LIBRARY_PATH", nvml.path()}, {"PAI_FAKE_NVML_UTILIZATION", "95"}});
  const auto codes = cluster.wait_all();
  INFO(cluster.transcript());
  CHECK(codes == std::map<std::string, int>{{"node-1", 0}, {"node-2", 0}});
  // One episode, one record, though the GPU stayed idle for twice the window.
  const auto verdicts = records(cluster, "gpu-idle");
  REQUIRE(verdicts.size() == 1);
  nlohmann::json verdict = verdicts[0];
  INFO(verdict.dump());
  CHECK(verdict["idleSeconds"].get<int>() >= 2);
  verdict.erase("time");
  verdict.erase("idleSeconds");
  CHECK(verdict == nlohmann::json{{"event", "gpu-idle"},
                                  {"node", "node-1"},
                                  {"instance", "worker-0"},
                                  {"gpu", 0},
                                  {"utilization", 5},
                                  {"maxUtilization", 5},
                                  {"thresholdPercent", 30.0},
                                  {"windowSeconds", 2},
                                  {"action", "warn"}});
  CHECK(records(cluster, "restart").empty());
  // The coordinator runs in node-1's launcher: its terminal has the verdict.
  CHECK(count_lines_with(cluster.launcher("node-1").err(),
                         "gpu-idle: GPU 0 on node-1 (worker-0) below 30% for 2s (at most 5%, "
                         "now 5%); warning only") == 1);
  CHECK(leftover_processes("gpu-idle-warn").empty());
}

TEST_CASE("an idle GPU restarts the job with reason gpu-idle - action restart") {
  FakeNvmlFolder nvml;
  TempDir out;
  const std::string utilization = out / "utilization";
  write_text(utilization, "3\n");
  // Attempt 0 idles until the restart stops it; attempt 1 runs 3 s on a busy GPU and ends.
  const std::string script = "touch " + out.path() +
                             "/attempt-$PAI_RESTART_COUNT.rank-$RANK\n"
                             "[ \"$PAI_RESTART_COUNT\" = 0 ] && exec sleep 30\n"
                             "sleep 3\n";
  Plan plan = gpu_idle_plan("gpu-idle-restart", 191, script, GpuIdleAction::Restart);
  plan.fault_tolerance.max_restarts = 1;
  Cluster cluster(plan);
  const std::map<std::string, std::string> env = {{"LD_LIBRARY_PATH", nvml.path()},
                                                  {"PAI_FAKE_NVML_FILE", utilization}};
  cluster.start("node-1", {}, env);
  cluster.start("node-2", {},
                {{"LD_LIBRARY_PATH", nvml.path()}, {"PAI_FAKE_NVML_UTILIZATION", "99"}});
  REQUIRE(wait_for_file(out / "attempt-1.rank-0", 20));
  write_text(utilization, "97\n");  // busy from now on
  const auto codes = cluster.wait_all();
  INFO(cluster.transcript());
  CHECK(codes == std::map<std::string, int>{{"node-1", 0}, {"node-2", 0}});
  const auto verdicts = records(cluster, "gpu-idle");
  REQUIRE(verdicts.size() == 1);
  CHECK(verdicts[0]["node"] == "node-1");
  CHECK(verdicts[0]["action"] == "restart");
  // Sync mode: every instance restarts once, for the verdict.
  const auto restarts = records(cluster, "restart");
  REQUIRE(restarts.size() == 2);
  for (const auto& restart : restarts) {
    INFO(restart.dump());
    CHECK(restart["signature"] == "gpu-idle");
    CHECK(restart["reason"].get<std::string>().find("gpu-idle: GPU 0 on node-1 below 30% for 2s") !=
          std::string::npos);
  }
  CHECK(access((out / "attempt-1.rank-1").c_str(), F_OK) == 0);
  CHECK(leftover_processes("gpu-idle-restart").empty());
}

}  // namespace gpu_idle_job_test
