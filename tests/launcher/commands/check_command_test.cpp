#include "launcher/commands/check_command.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "libpai/plan_json.h"
#include "launcher/checks/test_plan.h"

using namespace pai::checks;
using pai::launcher::CheckCommandOptions;
using pai::launcher::format_check_table;
using pai::launcher::run_check_command;

namespace {

// plan.json for a one-node plan in a temporary file, removed on destruction.
struct PlanFile {
  std::string path = "/tmp/pai-check-plan-" + std::to_string(getpid()) + ".json";
  explicit PlanFile(const pai::Plan& plan) { std::ofstream(path) << pai::plan_to_json(plan); }
  ~PlanFile() { std::remove(path.c_str()); }
};

pai::Plan plan_with_custom(const std::string& command) {
  pai::Plan plan = test::one_node_plan();
  plan.fabric.type = pai::FabricType::Ethernet;
  plan.fabric.interface = "lo";
  plan.sanity_check.custom = {{"probe", command, 10}};
  return plan;
}

struct Run {
  int code;
  std::string out;
  std::string err;
};

Run run(const CheckCommandOptions& options) {
  std::ostringstream out, err;
  int code = run_check_command(options, out, err);
  return {code, out.str(), err.str()};
}

}  // namespace

TEST_CASE("the node doctor prints a table and exits 0 when nothing failed") {
  PlanFile file(plan_with_custom("echo fine"));
  CheckCommandOptions options;
  options.plan_path = file.path;
  options.node.name = "node-0";
  options.only = {"gpu", "network", "custom"};
  options.checks.cuda_library = test::kMissingLibrary;
  Run r = run(options);
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  std::istringstream lines(r.out);
  std::string line;
  std::getline(lines, line);
  CHECK(line == "node node-0 (worker-0, node rank 0)");
  std::getline(lines, line);
  CHECK(line == "CHECK         RESULT   FIGURE  TIME");
  std::getline(lines, line);
  CHECK(line.rfind("gpu           skipped          0.", 0) == 0);
  std::getline(lines, line);
  CHECK(line == "    no CUDA driver (" + test::kMissingLibrary +
                    ": cannot open shared object file: No such file or directory)");
  std::getline(lines, line);
  CHECK(line.rfind("network       passed   lo up   0.", 0) == 0);
  std::getline(lines, line);
  CHECK(line == "    lo up (127.0.0.1 ::1)");
  std::getline(lines, line);
  CHECK(line.rfind("custom:probe  passed           0.", 0) == 0);
}

TEST_CASE("a failed check exits 1 and shows its output tail") {
  PlanFile file(plan_with_custom("echo link mlx5_1 down; exit 3"));
  CheckCommandOptions options;
  options.plan_path = file.path;
  options.only = {"custom"};
  Run r = run(options);
  CHECK(r.code == 1);
  CHECK(r.out.find("custom:probe  failed           ") != std::string::npos);
  CHECK(r.out.find("\n    exited with status 3\n      link mlx5_1 down\n") != std::string::npos);
}

TEST_CASE("JSON output has the node - the verdict and every result") {
  PlanFile file(plan_with_custom("exit 1"));
  CheckCommandOptions options;
  options.plan_path = file.path;
  options.node.node_rank = 0;
  options.only = {"network", "custom"};
  options.json = true;
  Run r = run(options);
  CHECK(r.code == 1);
  auto doc = nlohmann::json::parse(r.out);
  CHECK(doc["node"] == "node-0");
  CHECK(doc["passed"] == false);
  REQUIRE(doc["results"].size() == 2);
  CHECK(doc["results"][0]["name"] == "network");
  CHECK(doc["results"][0]["status"] == "passed");
  CHECK(doc["results"][1]["status"] == "failed");
}

TEST_CASE("usage and plan errors exit 2 with a message") {
  PlanFile file(plan_with_custom("true"));
  CheckCommandOptions options;
  options.plan_path = file.path;
  options.only = {"gpu", "warp-drive"};
  Run unknown = run(options);
  CHECK(unknown.code == 2);
  CHECK(unknown.out.empty());
  CHECK(unknown.err ==
        "pai-launch check: unknown check \"warp-drive\" (known: gpu, burn, nccl, network, mounts, "
        "disk, custom)\n");

  options.only.clear();
  options.node.name = "gpu-099";
  Run node = run(options);
  CHECK(node.code == 2);
  CHECK(node.err == "pai-launch check: " + file.path + ": node 'gpu-099' is not in the plan (hosts: node-0)\n");

  options.node.name.reset();
  options.plan_path = "/nonexistent/plan.json";
  Run missing = run(options);
  CHECK(missing.code == 2);
  CHECK(missing.err.rfind("pai-launch check: ", 0) == 0);
  CHECK(missing.err.find("/nonexistent/plan.json") != std::string::npos);
}

TEST_CASE("a failure's detail is cut to its last lines in the table") {
  CheckResult r = make_result("custom:x", CheckResult::Failed, "exited with status 1");
  for (int i = 0; i < 30; ++i) r.detail += "line " + std::to_string(i) + "\n";
  std::string table = format_check_table({r});
  CHECK(table.find("line 9\n") == std::string::npos);
  CHECK(table.find("      line 10\n") != std::string::npos);
  CHECK(table.find("      line 29\n") != std::string::npos);
}
