// `pai-launch drill` against a real job (docs/drill.md): 2 nodes x 2 gloo DDP ranks (Debian's
// python3-torch, tests/launcher/multi_node/diagnosis_job.py, scenario drill: a checkpoint every
// 25 steps) and a spare, all on loopback. The drill puts its four faults into worker-1 (node-2,
// the node that does not serve the coordinator), one after another: its last rank SIGKILLed,
// stopped for a while (hang), slowed (stopped 3/4 of the time), then node-2's launcher
// SIGKILLed. The scorecard must say each was detected and, for the three that restart the job,
// recovered from with the steps since the last checkpoint lost; the report gets the section.
// Then faults that need what a job may not have: collective-hang without instrumented
// collectives, slow-gpu on nodes with and without the GPU (fake libcuda).
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "launcher/checks/burn_kernel_image.h"
#include "launcher/checks/test_plan.h"
#include "launcher/multi_node/cluster_harness.h"

namespace drill_job_test {

using namespace pai;
using namespace pai::testing;

namespace {

// Loopback addresses 127.157.0.1-3 and 127.158.0.1-2 of this test alone.
constexpr int kSubnet = 157;
constexpr int kNoCollectivesSubnet = 158;
constexpr int kSlowGpuSubnet = 159;

// Ranks that record their steps through pai.telemetry (so that the drill finds the job
// stepping) without instrument().
const std::string kSdkSteps = "PYTHONPATH=" PAI_SOURCE_DIR
                              "/sdk/python exec /usr/bin/python3 -c '"
                              "import time\nfrom pai import telemetry\nr = telemetry.ring()\n"
                              "for step in range(100000):\n"
                              "    r.step_begin(step); time.sleep(0.05); r.step_end(step)\n'";

// The field after the command's name in /proc/PID/stat (its state, then its parent), or "".
std::string stat_fields(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t paren = stat.rfind(')');
  return paren == std::string::npos ? "" : stat.substr(paren + 2);
}

// A `pai-launch drill-burn` whose parent is `parent`: its pid and its arguments after
// drill-burn ("1 9"); {0, ""} when there is none.
std::pair<int, std::string> burner_of(int parent) {
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const int pid = std::stoi(name);
    std::ifstream in("/proc/" + name + "/cmdline");
    std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::string> argv;
    for (std::size_t at = 0; at < cmdline.size();) {
      const std::size_t end = cmdline.find('\0', at);
      argv.push_back(cmdline.substr(at, end - at));
      at = end == std::string::npos ? cmdline.size() : end + 1;
    }
    if (argv.size() != 4 || argv[1] != "drill-burn") continue;
    std::istringstream fields(stat_fields(pid));
    std::string state;
    int ppid = 0;
    fields >> state >> ppid;
    if (ppid == parent) return {pid, argv[2] + " " + argv[3]};
  }
  return {0, ""};
}

// Whether `pid` ended: gone, or a zombie (reaped here when this process, a subreaper, adopted
// it).
bool ended(int pid) {
  ::waitpid(pid, nullptr, WNOHANG);
  const std::string fields = stat_fields(pid);
  return fields.empty() || fields[0] == 'Z';
}

}  // namespace

TEST_CASE("a drill scores four faults on a real DDP job - detected, named, recovered") {
  if (!have_torch()) {
    WARN("python3-torch is not installed: the DDP job cannot run");
    return;
  }
  TempDir scratch;
  const std::string finish = scratch / "finish";
  Plan plan = torch_job_plan("drill-ddp", kSubnet, "diagnosis_job.py",
                             "drill CHECKPOINTS=" + scratch.path() + " FINISH=" + finish);
  plan.spares.push_back(Host{"node-3", "127." + std::to_string(kSubnet) + ".0.3", 0});
  plan.fault_tolerance.max_restarts = 10;
  plan.fault_tolerance.backoff_seconds = 0;
  plan.fault_tolerance.max_tolerated_failure_rate = -1;
  // A stopped rank: named by the diagnosis after 3 s, the job restarted as hung after 6 s.
  plan.fault_tolerance.diagnosis.hang_seconds = 3;
  plan.fault_tolerance.hang.enabled = true;
  plan.fault_tolerance.hang.interval_seconds = 6;
  plan.fault_tolerance.diagnosis.slow_factor = 1.1;  // as in diagnosis_job_test
  Cluster cluster(plan);
  cluster.start_all();
  // The drill reads the journals: it starts once the coordinator's is there.
  REQUIRE(eventually(
      [&] { return std::filesystem::exists(cluster.dir() / "logs/coordinator/events.jsonl"); }));

  TempDir drill_dir;
  Launcher drill(drill_dir, {"drill", "--plan", cluster.dir() / "plan.json", "--hold", "15s",
                             "--settle", "90s", "--timeout", "60s", "--format", "json"});
  const int drill_code = drill.wait(230);
  spit(finish, "");
  const auto codes = cluster.wait_all(300);  // from the launchers' start
  INFO(cluster.transcript());
  INFO("drill: " << drill.out() << drill.err());
  CHECK(codes.at("node-1") == 0);
  CHECK(codes.at("node-2") == 128 + 9);  // its launcher was the node-loss
  CHECK(codes.at("node-3") == 0);
  CHECK(leftover_processes(plan.name).empty());

  const auto card = nlohmann::json::parse(drill.out());
  REQUIRE(card.at("faults").size() == 4);
  const auto& faults = card.at("faults");
  CHECK(faults[0].at("fault") == "rank-kill");
  CHECK(faults[1].at("fault") == "rank-hang");
  CHECK(faults[2].at("fault") == "slow-rank");
  CHECK(faults[3].at("fault") == "node-loss");
  for (const auto& f : faults) {
    INFO(f.dump());
    REQUIRE_FALSE(f.contains("skipped"));
    CHECK(f.at("instance") == "worker-1");
    CHECK(f.at("node") == "node-2");
    CHECK(f.at("detectSeconds").is_number());
    CHECK(f.at("jobEnded") == "");
  }
  // The deterministic verdicts name the right place; the restarts recover with at most the
  // steps since the last checkpoint (25) plus those of the verdict's wait lost.
  CHECK(faults[0].at("rank") == 3);
  CHECK(faults[0].at("namedRight") == true);
  CHECK(faults[3].at("rank") == -1);
  CHECK(faults[3].at("namedRight") == true);
  CHECK(faults[3].at("verdict") == "node-lost: node-2");
  for (int k : {0, 1, 3}) {
    INFO(faults[k].dump());
    CHECK(faults[k].at("restarted") == true);
    CHECK(faults[k].at("recoverSeconds").is_number());
    CHECK(faults[k].at("recoverSeconds").get<double>() >
          faults[k].at("detectSeconds").get<double>());
    REQUIRE(faults[k].at("lostSteps").is_number());
    CHECK(faults[k].at("lostSteps").get<long long>() >= 0);
    CHECK(faults[k].at("lostSteps").get<long long>() <= 25 + 150);
  }
  // The hang lasts longer than the hang interval: the job restarts before it ends.
  CHECK(faults[1].at("seconds") == 15);
  CHECK(faults[1].at("detectSeconds").get<double>() < 15);
  // A stopped or slowed rank is named by the telemetry's diagnosis; which rank it names
  // depends on where in its step the signal caught it, so a wrong name is reported, not
  // failed on (diagnosis_job_test checks the diagnosis itself).
  for (int k : {1, 2}) {
    if (faults[k].at("namedRight") != true) WARN("named wrong: " << faults[k].dump());
  }
  if (faults[0].at("namedRight") == true && faults[1].at("namedRight") == true &&
      faults[2].at("namedRight") == true && faults[3].at("namedRight") == true) {
    CHECK(drill_code == 0);
  } else {
    CHECK(drill_code == 1);
  }

  // The journals: the coordinator's and the nodes' fault-injected, the bounded faults undone.
  const std::string journal = slurp(cluster.dir() / "logs/coordinator/events.jsonl");
  CHECK(count_lines_with(journal, "\"event\":\"fault-injected\"") == 4);
  const std::string node_journal = slurp(cluster.dir() / "logs/worker-1/events.jsonl");
  CHECK(count_lines_with(node_journal, "\"event\":\"fault-injected\"") == 4);
  // The hang outlived the job's hang interval: continued when its instance was stopped; the
  // slowdown ran its seconds.
  CHECK(count_lines_with(node_journal, "\"event\":\"fault-reverted\",\"fault\":\"rank-hang\"") ==
        1);
  CHECK(count_lines_with(node_journal, "\"why\":\"the instance is stopping\"") == 1);
  CHECK(count_lines_with(node_journal, "\"event\":\"fault-reverted\",\"fault\":\"slow-rank\"") ==
        1);
  CHECK(count_lines_with(node_journal, "\"why\":\"its seconds passed\"") == 1);

  // The report has the drill's section.
  TempDir report_dir;
  const auto report = run_launcher(
      report_dir, {"report", cluster.dir() / "logs", "-o", report_dir / "report.html"});
  REQUIRE(report.code == 0);
  const std::string html = slurp(report_dir / "report.html");
  CHECK(html.find("<section id=\"drill\">") != std::string::npos);
  CHECK(count_lines_with(html, "rank-kill") >= 1);
}

TEST_CASE("a collective-hang into a rank that records no collective is refused by its node") {
  // Ranks that record their steps through pai.telemetry (so the drill finds the job stepping)
  // but never call instrument(): nothing would read the hold. node-2 says why, journals no
  // fault-injected, and the drill scores the fault as not carried out, exit code 1.
  Plan plan = cluster_plan("drill-no-collectives", kNoCollectivesSubnet, 2, 0, kSdkSteps);
  Cluster cluster(plan);
  cluster.start_all();
  REQUIRE(eventually(
      [&] { return std::filesystem::exists(cluster.dir() / "logs/coordinator/events.jsonl"); }));
  TempDir drill_dir;
  Launcher drill(drill_dir,
                 {"drill", "--plan", cluster.dir() / "plan.json", "--faults", "collective-hang",
                  "--hold", "5s", "--settle", "30s", "--format", "json"});
  const int drill_code = drill.wait(90);
  TempDir scratch;
  CHECK(run_launcher(scratch, {"cancel", "--plan", cluster.dir() / "plan.json"}, 30).code == 0);
  cluster.wait_all(60);
  INFO(cluster.transcript());
  INFO("drill: " << drill.out() << drill.err());
  CHECK(drill_code == 1);
  const auto card = nlohmann::json::parse(drill.out());
  REQUIRE(card.at("faults").size() == 1);
  const auto& f = card.at("faults")[0];
  CHECK(f.at("fault") == "collective-hang");
  REQUIRE_FALSE(f.contains("skipped"));
  CHECK(f.at("carriedOut") == false);
  CHECK(f.at("passed") == false);
  CHECK(count_lines_with(cluster.transcript(),
                         "drill: collective-hang: worker-1 rank 1 records no collective in its "
                         "telemetry ring: collective-hang needs a rank whose collectives "
                         "pai.telemetry.instrument() records") == 1);
  CHECK(count_lines_with(slurp(cluster.dir() / "logs/worker-1/events.jsonl"),
                         "\"event\":\"fault-injected\"") == 0);
  CHECK(leftover_processes(plan.name).empty());
}

TEST_CASE(
    "a slow-gpu burns its rank's GPU for its seconds - or says why it cannot - and leaves no burn "
    "behind") {
  if (pai::checks::kBurnKernelImageSize == 0) {
    WARN("built without GPU kernels: slow-gpu cannot burn");
    return;
  }
  // node-2 has two GPUs, node-1 one: fake libcuda and cuBLASLt (tests/launcher/checks/
  // fixtures), found through LD_LIBRARY_PATH as a real node finds the real ones. The ranks do
  // not use them (no GPU here): what is tested is the burn's life, not the slowdown. The role
  // shows the ranks the GPUs in reverse (CUDA_VISIBLE_DEVICES 1,0): the burn must see them as
  // the rank does, never burn a GPU the job was not given.
  TempDir libs;
  std::filesystem::create_symlink(pai::checks::test::kFakeCuda, libs / "libcuda.so.1");
  std::filesystem::create_symlink(pai::checks::test::kFakeCublasLt, libs / "libcublasLt.so.13");
  auto gpus = [&](const char* names) {
    return std::map<std::string, std::string>{{"LD_LIBRARY_PATH", libs.path()},
                                              {"PAI_FAKE_CUDA_GPUS", names},
                                              {"PAI_FAKE_CUDA_KERNELS", "1"}};
  };
  Plan plan = cluster_plan("drill-slow-gpu", kSlowGpuSubnet, 2, 0, kSdkSteps, 2);
  plan.roles[0].env.emplace_back("CUDA_VISIBLE_DEVICES", "1,0");
  Cluster cluster(plan);
  cluster.start("node-1", {}, gpus("NVIDIA H100 80GB HBM3"));
  cluster.start("node-2", {}, gpus("NVIDIA H100 80GB HBM3;NVIDIA H200"));
  REQUIRE(eventually(
      [&] { return std::filesystem::exists(cluster.dir() / "logs/coordinator/events.jsonl"); }));
  const int node2 = cluster.launcher("node-2").pid();
  const std::string node2_journal = cluster.dir() / "logs/worker-1/events.jsonl";

  // 1. Into worker-1's last rank (rank 3, its GPU 1: node-2's first, the H100) for 4 s:
  // burned, then ended.
  TempDir drill_dir;
  Launcher drill(drill_dir, {"drill", "--plan", cluster.dir() / "plan.json", "--faults", "slow-gpu",
                             "--hold", "4s", "--settle", "30s", "--format", "json"});
  std::pair<int, std::string> burner;
  CHECK(eventually([&] { return (burner = burner_of(node2)).first > 0; }, 30));
  CHECK(burner.second == "1 9");  // its GPU, its seconds and the margin
  drill.wait(90);
  INFO(cluster.transcript());
  INFO("drill: " << drill.out() << drill.err());
  const auto card = nlohmann::json::parse(drill.out());
  REQUIRE(card.at("faults").size() == 1);
  const auto& f = card.at("faults")[0];
  CHECK(f.at("fault") == "slow-gpu");
  CHECK(f.at("rank") == 3);
  CHECK(f.at("carriedOut") == true);
  if (burner.first > 0) CHECK(eventually([&] { return ended(burner.first); }, 10));
  const std::string journal = slurp(node2_journal);
  CHECK(count_lines_with(journal, "\"event\":\"fault-injected\",\"fault\":\"slow-gpu\"") == 1);
  CHECK(count_lines_with(journal, "\"place\":\"GPU 1\"") == 1);
  CHECK(count_lines_with(journal,
                         "\"event\":\"fault-reverted\",\"fault\":\"slow-gpu\","
                         "\"instance\":\"worker-1\",\"rank\":3,\"why\":\"its seconds "
                         "passed\"") == 1);
  CHECK(count_lines_with(cluster.transcript(),
                         "drill: slow-gpu: GPU 1 (NVIDIA H100 80GB HBM3) of worker-1 rank 3 shares "
                         "its time with a burn") == 1);

  // 2. Into worker-0's rank 1 on node-1, which has one GPU, and that one not shown to the
  // ranks: not carried out, and said why.
  TempDir refused_dir;
  Launcher refused(refused_dir, {"drill", "--plan", cluster.dir() / "plan.json", "--faults",
                                 "slow-gpu", "--instance", "worker-0", "--rank", "1", "--hold",
                                 "4s", "--settle", "30s", "--format", "json"});
  CHECK(refused.wait(90) == 1);
  INFO("refused drill: " << refused.out() << refused.err());
  const auto refused_card = nlohmann::json::parse(refused.out());
  REQUIRE(refused_card.at("faults").size() == 1);
  CHECK(refused_card.at("faults")[0].at("carriedOut") == false);
  CHECK(count_lines_with(cluster.transcript(),
                         "drill: slow-gpu: worker-0 rank 1: the burn on GPU 1 did not start: exit "
                         "code 1: pai-launch drill-burn: no GPU 1 on this node (0 GPUs)") == 1);
  CHECK(count_lines_with(slurp(cluster.dir() / "logs/worker-0/events.jsonl"),
                         "\"event\":\"fault-injected\"") == 0);

  // 3. node-2's launcher SIGKILLed while it burns: the burn goes with it.
  TempDir killed_dir;
  Launcher killed(killed_dir, {"drill", "--plan", cluster.dir() / "plan.json", "--faults",
                               "slow-gpu", "--hold", "300s", "--settle", "30s"});
  burner = {0, ""};
  REQUIRE(eventually([&] { return (burner = burner_of(node2)).first > 0; }, 30));
  ::kill(node2, SIGKILL);
  CHECK(eventually([&] { return ended(burner.first); }, 10));
  TempDir scratch;
  run_launcher(scratch, {"cancel", "--plan", cluster.dir() / "plan.json"}, 30);
  killed.wait(60);
  cluster.wait_all(60);
  CHECK(leftover_processes(plan.name).empty());
}

}  // namespace drill_job_test
