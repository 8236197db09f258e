#include "launcher/commands/check_command.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "launcher/checks/test_plan.h"
#include "libpai/plan_json.h"
#include "support/temp_dir.h"

namespace check_command_test {

using namespace pai::checks;
using pai::launcher::CheckCommandOptions;
using pai::launcher::format_check_table;
using pai::launcher::run_check_command;

namespace {

// plan.json for a one-node plan, without a job token (an unkeyed seal), in a folder of its
// own: a job.token beside it would be read.
struct PlanFile {
  pai::testing::TempDir dir;
  std::string path = dir / "plan.json";
  explicit PlanFile(const pai::Plan& plan) {
    std::ofstream(path) << pai::plan_to_json_unkeyed(plan);
  }
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
        "disk, custom, fingerprint)\n");

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

TEST_CASE("a plan edited after pai-compile runs no check - custom checks are its commands") {
  pai::testing::TempDir dir;
  const std::string marker = dir / "ran";
  const std::string path = dir / "plan.json";
  pai::testing::spit(dir / "job.token", "0123456789abcdef0123456789abcdef\n");
  std::string text =
      pai::plan_to_json(plan_with_custom("touch " + marker), "0123456789abcdef0123456789abcdef");
  const std::size_t at = text.find("touch ");
  REQUIRE(at != std::string::npos);
  text.replace(at, 5, "echo ");
  pai::testing::spit(path, text);
  CheckCommandOptions options;
  options.plan_path = path;
  options.node.name = "node-0";
  options.only = {"custom"};
  Run edited = run(options);
  CHECK(edited.code == 2);
  CHECK(edited.err == "pai-launch check: " + path +
                          ": the plan's seal does not verify with the job token " + dir.path() +
                          "/job.token: the plan was edited after pai-compile wrote it, or "
                          "compiled with another token; recompile with pai-compile\n");
  CHECK(edited.out.empty());

  // With the right seal the same check runs; --token-file names the token.
  pai::testing::spit(path, pai::plan_to_json(plan_with_custom("touch " + marker),
                                             "0123456789abcdef0123456789abcdef"));
  std::filesystem::rename(dir / "job.token", dir / "elsewhere.token");
  options.token_file = dir / "elsewhere.token";
  Run sealed = run(options);
  CHECK(sealed.code == 0);
  CHECK(std::filesystem::exists(marker));
}

TEST_CASE("a failure's detail is cut to its last lines in the table") {
  CheckResult r = make_result("custom:x", CheckResult::Failed, "exited with status 1");
  for (int i = 0; i < 30; ++i) r.detail += "line " + std::to_string(i) + "\n";
  std::string table = format_check_table({r});
  CHECK(table.find("line 9\n") == std::string::npos);
  CHECK(table.find("      line 10\n") != std::string::npos);
  CHECK(table.find("      line 29\n") != std::string::npos);
}

TEST_CASE("check --history records each run - and a second failure in 5 quarantines the node (exit 3)") {
  PlanFile file(plan_with_custom("exit 1"));
  pai::testing::TempDir history;
  CheckCommandOptions options;
  options.plan_path = file.path;
  options.node.name = "node-0";
  options.only = {"custom"};
  options.history_dir = history / "h";
  Run first = run(options);
  CHECK(first.code == 1);
  CHECK(first.out.find("history: failed 1 of its last 1 checks, not quarantined (" +
                       history / "h/node-0.jsonl" + ")\n") != std::string::npos);
  Run second = run(options);
  CHECK(second.code == pai::launcher::kQuarantinedExitCode);
  CHECK(second.err.find("pai-launch check: node node-0 is quarantined: failed 2 of its last 2 "
                        "checks (custom:probe at ") != std::string::npos);
  CHECK(second.out.find("node node-0 is quarantined: failed 2 of its last 2 checks") !=
        std::string::npos);
  // A passing run does not lift it: the node failed 2 of its last 3.
  PlanFile passing(plan_with_custom("true"));
  options.plan_path = passing.path;
  options.json = true;
  Run third = run(options);
  CHECK(third.code == pai::launcher::kQuarantinedExitCode);
  auto doc = nlohmann::json::parse(third.out);
  CHECK(doc["passed"] == true);
  CHECK(doc["history"]["quarantined"] == true);
  CHECK(doc["history"]["failed"] == 2);
  CHECK(doc["history"]["considered"] == 3);
}

TEST_CASE("check --history tolerates a torn and a garbage line with a warning") {
  PlanFile file(plan_with_custom("true"));
  pai::testing::TempDir history;
  pai::testing::spit(history / "node-0.jsonl", "garbage\n{\"time\":\"t\",\"no");
  CheckCommandOptions options;
  options.plan_path = file.path;
  options.node.name = "node-0";
  options.only = {"custom"};
  options.history_dir = history.path();
  Run r = run(options);
  CHECK(r.code == 0);
  CHECK(r.err ==
        "pai-launch check: warning: " + history / "node-0.jsonl" + ":1: ignored: not JSON\n" +
            "pai-launch check: warning: " + history / "node-0.jsonl" + ":2: ignored: not JSON\n");
  CHECK(r.out.find("history: failed 0 of its last 1 checks, not quarantined") != std::string::npos);
}

}  // namespace check_command_test

