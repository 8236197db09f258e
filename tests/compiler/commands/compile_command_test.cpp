#include "compiler/commands/compile_command.h"

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/temp_dir.h"

namespace compile_command_test {

using pai::CompileOptions;
using pai::DiagnosticsFormat;
using pai::run_compile;
using pai::testing::slurp;
using pai::testing::spit;
using pai::testing::TempDir;

namespace fs = std::filesystem;

namespace {

// Runs a test inside `dir` and returns to the previous folder even when a check throws.
struct WorkingDir {
  explicit WorkingDir(const std::string& dir) : previous(fs::current_path()) {
    fs::current_path(dir);
  }
  ~WorkingDir() { fs::current_path(previous); }
  fs::path previous;
};

struct Result {
  int code = -1;
  std::string out, err;
};

Result compile(const CompileOptions& options) {
  std::ostringstream out, err;
  std::streambuf* old_out = std::cout.rdbuf(out.rdbuf());
  std::streambuf* old_err = std::cerr.rdbuf(err.rdbuf());
  Result r;
  r.code = run_compile(options);
  std::cout.rdbuf(old_out);
  std::cerr.rdbuf(old_err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

const std::string kSpec =
    "apiVersion: pai/v1\n"
    "kind: Job\n"
    "name: demo\n"
    "hosts: [{name: node-1, address: 127.0.0.1, slots: 2}, {name: node-2, slots: 2}]\n"
    "roles:\n"
    "  worker:\n"
    "    instances: 2\n"
    "    nprocPerNode: 2\n"
    "    command: python train.py\n";

}  // namespace

TEST_CASE("a valid spec compiles to the artifacts and a summary") {
  TempDir dir;
  spit(dir / "job.yaml", kSpec);
  CompileOptions options;
  options.spec = dir / "job.yaml";
  options.out_dir = dir / "out";
  const Result r = compile(options);
  CHECK(r.err.empty());
  REQUIRE(r.code == 0);
  CHECK(fs::exists(dir / "out/plan.json"));
  CHECK(fs::exists(dir / "out/env/worker-1.sh"));
  CHECK(r.out ==
        "demo: 1 role, 2 instances on 2 hosts, world size 4\n"
        "checkpoint plan: every 9h 43m (expected ETTR 99.7%, job MTBF 118d 12h over 2 nodes)\n"
        "wrote " +
            dir / "out" +
            ": .pai-compile, env/ (2 files), hostfile, job.token, "
            "launch.sh, plan.json, roles/ (1 file)\n");
  const std::string token = slurp(dir / "out/job.token");
  REQUIRE(token.size() >= 32);
  CHECK(r.out.find(token.substr(0, 16)) == std::string::npos);
}

TEST_CASE("check-only validates and writes nothing") {
  TempDir dir;
  spit(dir / "job.yaml", kSpec);
  CompileOptions options;
  options.spec = dir / "job.yaml";
  options.out_dir = dir / "out";
  options.check_only = true;
  const Result r = compile(options);
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  CHECK(
      r.out ==
      dir / "job.yaml" + ": ok (demo: 1 role, 2 instances on 2 hosts, world size 4)\n" +
          "checkpoint plan: every 9h 43m (expected ETTR 99.7%, job MTBF 118d 12h over 2 nodes)\n");
  CHECK_FALSE(fs::exists(dir / "out"));
}

TEST_CASE("checkpointPlan: the interval printed - in plan.json - and in the env scripts") {
  TempDir dir;
  spit(dir / "job.yaml", kSpec +
                             "faultTolerance:\n"
                             "  checkpointPlan: {nodeMtbf: 1d, checkpointCost: 1m}\n");
  CompileOptions options;
  options.spec = dir / "job.yaml";
  options.out_dir = dir / "out";
  const Result r = compile(options);
  CHECK(r.err.empty());
  REQUIRE(r.code == 0);
  // M = 86400 s / 2 nodes; Daly: sqrt(2 x 60 x 43200) (1 + ...) - 60 = 2237 s.
  CHECK(r.out.find("\ncheckpoint plan: every 37m 17s (expected ETTR 93.5%, job MTBF 12h 00m over "
                   "2 nodes)\n") != std::string::npos);
  const std::string plan = slurp(dir / "out/plan.json");
  CHECK(plan.find("\"intervalSeconds\": 2237,") != std::string::npos);
  CHECK(plan.find("\"jobMtbfSeconds\": 43200.0,") != std::string::npos);
  CHECK(plan.find("\"restartCostSeconds\": 600,") != std::string::npos);
  CHECK(plan.find("\"source\": \"spec+defaults\"") != std::string::npos);
  CHECK(slurp(dir / "out/env/worker-1.sh").find("export PAI_CHECKPOINT_INTERVAL_SECONDS=2237\n") !=
        std::string::npos);
}

TEST_CASE("checkpointPlan: the node MTBF from the hosts' check histories - and what they skipped") {
  TempDir dir;
  auto record = [](const std::string& node, const std::string& day, bool passed) {
    return "{\"time\":\"2024-05-" + day + "T00:00:00Z\",\"node\":\"" + node +
           "\",\"passed\":" + (passed ? "true" : "false") + ",\"failed\":[]}\n";
  };
  // 4 failures in 8 node-days: a node fails every 2 days.
  fs::create_directories(dir / "history");
  spit(dir / "history/node-1.jsonl", record("node-1", "01", true) + record("node-1", "03", false) +
                                         record("node-1", "05", false) + "not a record\n");
  spit(dir / "history/node-2.jsonl", record("node-2", "01", true) + record("node-2", "03", false) +
                                         record("node-2", "05", false));
  spit(dir / "job.yaml", kSpec + "sanityCheck:\n  history: {dir: " + dir.path() + "/history}\n");
  CompileOptions options;
  options.spec = dir / "job.yaml";
  options.out_dir = dir / "out";
  const Result r = compile(options);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("; node MTBF 2d 00h from 4 failed checks in 8d 00h of 2 nodes' histories\n") !=
        std::string::npos);
  // Located at the folder's field, one warning for the lines skipped.
  CHECK(r.err.find(dir / "job.yaml:") == 0);
  CHECK(r.err.find("warning: sanityCheck.history.dir: the checkpoint plan skipped 1 line of the "
                   "node histories; the first: " +
                   dir.path() + "/history/node-1.jsonl:4: ignored: not JSON") != std::string::npos);
  const auto plan = nlohmann::json::parse(slurp(dir / "out/plan.json"));
  const auto& c = plan["faultTolerance"]["checkpointPlan"];
  CHECK(c["nodeMtbfSeconds"] == 2 * 86400);
  CHECK(c["nodeMtbfHistory"] ==
        nlohmann::json{{"nodes", 2}, {"failures", 4}, {"nodeSeconds", 8 * 86400}, {"used", true}});

  // A nodeMtbf in the spec is the spec's word: the histories are not read.
  spit(dir / "job.yaml", kSpec + "sanityCheck:\n  history: {dir: " + dir.path() +
                             "/history}\nfaultTolerance:\n  checkpointPlan: {nodeMtbf: 30d}\n");
  options.force = true;
  const Result stated = compile(options);
  REQUIRE(stated.code == 0);
  CHECK(stated.err.empty());
  const auto again = nlohmann::json::parse(slurp(dir / "out/plan.json"));
  CHECK(again["faultTolerance"]["checkpointPlan"]["nodeMtbfSeconds"] == 30 * 86400);
  CHECK_FALSE(again["faultTolerance"]["checkpointPlan"].contains("nodeMtbfHistory"));
}

TEST_CASE("the world size of an MPI job leaves out its launcher role") {
  TempDir dir;
  spit(dir / "job.yaml",
       "apiVersion: pai/v1\nkind: Job\nname: demo\nframework: mpi\nmasterRole: launcher\n"
       "hosts: [{name: l, slots: 1}, {name: a, slots: 2}, {name: b, slots: 2}]\n"
       "roles:\n"
       "  launcher: {instances: 1, command: mpirun -np 4 x}\n"
       "  worker: {instances: 2, nprocPerNode: 2, command: sleep infinity}\n");
  CompileOptions options;
  options.spec = dir / "job.yaml";
  options.check_only = true;
  const Result r = compile(options);
  CHECK(r.err.empty());
  CHECK(r.code == 0);
  CHECK(r.out ==
        dir / "job.yaml" + ": ok (demo: 2 roles, 3 instances on 3 hosts, world size 4)\n" +
            "checkpoint plan: every 7h 56m (expected ETTR 99.6%, job MTBF 79d 00h over 3 nodes)\n");
}

TEST_CASE("an invalid spec exits 1 with located diagnostics and writes nothing") {
  TempDir dir;
  WorkingDir cwd(dir.path());
  spit("job.yaml", "apiVersion: pai/v1\nkind: Job\nname: demo\nhosts: [a]\n"
                   "roles:\n  worker:\n    instances: two\n    command: x\n");
  CompileOptions options;
  options.spec = "job.yaml";
  options.out_dir = "out";
  const Result r = compile(options);
  CHECK(r.code == 1);
  CHECK(r.out.empty());
  CHECK(r.err ==
        "job.yaml:7:16: error: roles.worker.instances: expected an integer between 1 and 100000, "
        "got \"two\"\n"
        "    7 |     instances: two\n"
        "      |                ^\n"
        "1 error\n");
  CHECK_FALSE(fs::exists("out"));
}

TEST_CASE("JSON diagnostics print diagnostics as a JSON array") {
  TempDir dir;
  spit(dir / "job.yaml", "apiVersion: pai/v1\nkind: Job\nname: demo\nhosts: [a]\n"
                         "roles:\n  worker: {command: x, nprocPerNod: 2}\n");
  CompileOptions options;
  options.spec = dir / "job.yaml";
  options.check_only = true;
  options.format = DiagnosticsFormat::Json;
  const Result r = compile(options);
  CHECK(r.code == 1);
  CHECK(r.err.empty());
  const auto json = nlohmann::json::parse(r.out);
  REQUIRE(json.is_array());
  REQUIRE(json.size() == 1);
  CHECK(json[0] == nlohmann::json{{"file", dir / "job.yaml"},
                                  {"line", 6},
                                  {"column", 24},
                                  {"path", "roles.worker"},
                                  {"severity", "error"},
                                  {"message", "unknown key \"nprocPerNod\" (did you mean \"nprocPerNode\"?)"}});
}

TEST_CASE("JSON diagnostics of a clean spec are [] on stdout - the summary on stderr") {
  TempDir dir;
  spit(dir / "job.yaml", kSpec);
  CompileOptions options;
  options.spec = dir / "job.yaml";
  options.format = DiagnosticsFormat::Json;
  SECTION("--check") {
    options.check_only = true;
    const Result r = compile(options);
    CHECK(r.code == 0);
    CHECK(r.out == "[]\n");
    CHECK(r.err == dir / "job.yaml" +
                       ": ok (demo: 1 role, 2 instances on 2 hosts, world size 4)\n" +
                       "checkpoint plan: every 9h 43m (expected ETTR 99.7%, job MTBF 118d 12h over "
                       "2 nodes)\n");
  }
  SECTION("-o") {
    options.out_dir = dir / "out";
    const Result r = compile(options);
    CHECK(r.code == 0);
    CHECK(r.out == "[]\n");
    CHECK(r.err.starts_with(
        "demo: 1 role, 2 instances on 2 hosts, world size 4\n"
        "checkpoint plan: every 9h 43m (expected ETTR 99.7%, job MTBF 118d 12h over 2 nodes)\n"
        "wrote "));
  }
}

TEST_CASE("JSON diagnostics put a whole-file error at line 1") {
  TempDir dir;
  spit(dir / "job.yaml", kSpec);
  spit(dir / "hosts.txt", "node-1 slots=2\n");
  CompileOptions options;
  options.spec = dir / "job.yaml";
  options.hosts_file = dir / "hosts.txt";
  options.check_only = true;
  options.format = DiagnosticsFormat::Json;
  const Result r = compile(options);
  CHECK(r.code == 1);
  const auto json = nlohmann::json::parse(r.out);
  REQUIRE(json.size() == 1);
  CHECK(json[0]["file"] == dir / "hosts.txt");
  CHECK(json[0]["line"] == 1);
  CHECK(json[0]["column"] == 1);
}

TEST_CASE("a load error is a located diagnostic with exit 1") {
  TempDir dir;
  spit(dir / "job.yaml", "a: [1, 2\n");
  CompileOptions options;
  options.spec = dir / "job.yaml";
  options.check_only = true;
  options.format = DiagnosticsFormat::Json;
  const Result r = compile(options);
  CHECK(r.code == 1);
  CHECK(r.err.empty());
  const auto json = nlohmann::json::parse(r.out);
  REQUIRE(json.size() == 1);
  CHECK(json[0]["file"] == dir / "job.yaml");
  CHECK(json[0]["severity"] == "error");
  CHECK(json[0]["line"].get<int>() >= 1);
}

TEST_CASE("usage and I/O errors exit 2") {
  TempDir dir;
  WorkingDir cwd(dir.path());
  CompileOptions options;
  options.spec = "job.yaml";
  options.check_only = true;
  Result r = compile(options);
  CHECK(r.code == 2);
  CHECK(r.err == "pai-compile: error: cannot read job.yaml: No such file or directory\n");

  spit("job.yaml", kSpec);
  options.check_only = false;
  r = compile(options);
  CHECK(r.code == 2);
  CHECK(r.err == "pai-compile: error: -o/--out DIR is required (or use --check to validate only)\n");

  spit("job.txt", kSpec);
  options.spec = "job.txt";
  options.check_only = true;
  r = compile(options);
  CHECK(r.code == 2);
  CHECK(r.err == "pai-compile: error: cannot tell the format of job.txt from its name: use .yaml, "
                 ".yml, .json or .jsonnet\n");

  options.spec = "job.yaml";
  options.check_only = true;
  options.hosts_file = "missing-hosts";
  r = compile(options);
  CHECK(r.code == 2);
  CHECK(
      r.err ==
      "pai-compile: error: cannot read --hosts file 'missing-hosts': No such file or directory\n");
}

TEST_CASE("a hosts file must be a regular file of at most 64 MiB") {
  TempDir dir;
  spit(dir / "job.yaml", kSpec);
  CompileOptions options;
  options.spec = dir / "job.yaml";
  options.check_only = true;
  // Today's failure: /dev/zero was read until memory ran out, a FIFO blocked forever.
  options.hosts_file = "/dev/zero";
  Result r = compile(options);
  CHECK(r.code == 2);
  CHECK(r.err ==
        "pai-compile: error: cannot read --hosts file '/dev/zero': it is a character "
        "device, not a regular file\n");
  REQUIRE(::mkfifo((dir / "fifo").c_str(), 0600) == 0);
  options.hosts_file = dir / "fifo";
  r = compile(options);
  CHECK(r.code == 2);
  CHECK(r.err == "pai-compile: error: cannot read --hosts file '" + dir / "fifo" +
                     "': it is a FIFO, not a regular file\n");
  // Sparse: refused by its size before a byte is read.
  spit(dir / "big", "h1\n");
  fs::resize_file(dir / "big", (64u << 20) + 1);
  options.hosts_file = dir / "big";
  r = compile(options);
  CHECK(r.code == 2);
  CHECK(r.err == "pai-compile: error: cannot read --hosts file '" + dir / "big" +
                     "': it is larger than 64MiB, the limit\n");
}

TEST_CASE("a failure to write the artifacts exits 2 naming the problem") {
  TempDir dir;
  spit(dir / "job.yaml", kSpec);
  spit(dir / "out", "a file, not a folder");
  CompileOptions options;
  options.spec = dir / "job.yaml";
  options.out_dir = dir / "out";
  const Result r = compile(options);
  CHECK(r.code == 2);
  CHECK(r.err.rfind("pai-compile: error: ", 0) == 0);
  CHECK(r.err.find(dir / "out") != std::string::npos);
}

TEST_CASE("-o into a folder pai-compile did not write exits 2 naming --force") {
  TempDir dir;
  spit(dir / "job.yaml", kSpec);
  fs::create_directories(dir / "mine/env");
  spit(dir / "mine/env/precious.sh", "mine");
  spit(dir / "mine/hostfile", "mine");
  CompileOptions options;
  options.spec = dir / "job.yaml";
  options.out_dir = dir / "mine";
  Result r = compile(options);
  CHECK(r.code == 2);
  CHECK(r.err == "pai-compile: error: refusing to write into '" + dir / "mine" +
                     "': it is not empty and has no .pai-compile mark, so pai-compile did not "
                     "write it; use a new or empty folder, or pass --force to replace its "
                     "plan.json, roles, hostfile, env, job.token, launch.sh, k8s and job.sbatch "
                     "(other files are kept)\n");
  CHECK(r.out.empty());
  CHECK(slurp(dir / "mine/env/precious.sh") == "mine");
  CHECK(slurp(dir / "mine/hostfile") == "mine");
  CHECK_FALSE(fs::exists(dir / "mine/plan.json"));

  options.force = true;
  r = compile(options);
  CHECK(r.err.empty());
  REQUIRE(r.code == 0);
  CHECK(fs::exists(dir / "mine/env/worker-1.sh"));
  CHECK_FALSE(fs::exists(dir / "mine/env/precious.sh"));
  // Marked now: a recompile needs no --force.
  options.force = false;
  r = compile(options);
  CHECK(r.err.empty());
  CHECK(r.code == 0);
}

TEST_CASE("the summary counts a kept folder's files - links to files, not links to folders") {
  TempDir dir;
  spit(dir / "job.yaml", kSpec);
  fs::create_directories(dir / "out/keep/sub/deeper");
  spit(dir / "out/keep/a", "1");
  spit(dir / "out/keep/sub/b", "2");
  spit(dir / "out/keep/sub/deeper/c", "3");
  fs::create_symlink("a", dir / "out/keep/file-link");                // counts
  fs::create_directory_symlink("sub", dir / "out/keep/folder-link");  // not entered
  fs::create_symlink("nowhere", dir / "out/keep/dangling");
  REQUIRE(::mkfifo((dir / "out/keep/fifo").c_str(), 0600) == 0);
  fs::create_directory_symlink("keep", dir / "out/keep-link");  // a folder: listed, counted
  CompileOptions options;
  options.spec = dir / "job.yaml";
  options.out_dir = dir / "out";
  options.force = true;
  const Result r = compile(options);
  CHECK(r.err.empty());
  REQUIRE(r.code == 0);
  CHECK(r.out.find("wrote " + dir / "out" +
                   ": .pai-compile, env/ (2 files), hostfile, job.token, keep-link/ (4 files), "
                   "keep/ (4 files), launch.sh, plan.json, roles/ (1 file)\n") !=
        std::string::npos);
}

TEST_CASE("-o into a symbolic link exits 2 and writes nothing through it") {
  TempDir dir;
  spit(dir / "job.yaml", kSpec);
  fs::create_directory(dir / "etc");
  fs::create_directory_symlink(dir / "etc", dir / "out");
  CompileOptions options;
  options.spec = dir / "job.yaml";
  options.out_dir = dir / "out";
  options.force = true;
  const Result r = compile(options);
  CHECK(r.code == 2);
  CHECK(r.err == "pai-compile: error: refusing to write into '" + dir / "out" +
                     "': it is a symbolic link (to '" + dir / "etc" +
                     "') and pai-compile does not write through links; name the folder itself "
                     "with -o, or remove the link\n");
  CHECK(fs::is_empty(dir / "etc"));
}

TEST_CASE("a recompile keeps the logs of earlier runs in its output folder") {
  TempDir dir;
  WorkingDir cwd(dir.path());
  spit("job.yaml", kSpec);
  CompileOptions options;
  options.spec = "job.yaml";
  options.out_dir = "out";
  REQUIRE(compile(options).code == 0);
  fs::create_directories("out/logs/worker-0");
  spit("out/logs/worker-0/events.jsonl", "a run");
  options.target = "k8s";
  Result r = compile(options);
  REQUIRE(r.code == 0);
  CHECK(fs::exists("out/k8s/job.yaml"));
  options.target = "bare";
  r = compile(options);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("wrote out: .pai-compile, env/ (2 files), hostfile, job.token, launch.sh, "
                   "logs/ (1 file), plan.json, roles/ (1 file)\n") != std::string::npos);
  CHECK_FALSE(fs::exists("out/k8s"));
  CHECK(slurp("out/logs/worker-0/events.jsonl") == "a run");
}

TEST_CASE("a hosts file replaces the spec's inventory") {
  TempDir dir;
  spit(dir / "job.yaml", kSpec);
  spit(dir / "hosts", "# cluster\nh1 slots=2\nh2 slots=2\n");
  CompileOptions options;
  options.spec = dir / "job.yaml";
  options.hosts_file = dir / "hosts";
  options.out_dir = dir / "out";
  const Result r = compile(options);
  CHECK(r.err.empty());
  REQUIRE(r.code == 0);
  const std::string hostfile = slurp(dir / "out/hostfile");
  CHECK(hostfile.find("h1") != std::string::npos);
  CHECK(hostfile.find("node-1") == std::string::npos);
}

TEST_CASE("rules about hosts follow the hosts file") {
  TempDir dir;
  spit(dir / "job.yaml", kSpec);
  spit(dir / "hosts", "h1 slots=1\n");
  CompileOptions options;
  options.spec = dir / "job.yaml";
  options.hosts_file = dir / "hosts";
  options.check_only = true;
  const Result r = compile(options);
  CHECK(r.code == 1);
  CHECK(r.err.find(dir / "hosts: error: hosts: not enough hosts: the roles have 2 instances "
                         "(worker: 2) but there is 1 host; each instance needs its own host\n") !=
        std::string::npos);
}

TEST_CASE("the Slurm target needs no hosts and writes job.sbatch and the logs folder") {
  TempDir dir;
  WorkingDir cwd(dir.path());
  spit("job.yaml", "apiVersion: pai/v1\nkind: Job\nname: demo\n"
                   "roles:\n  worker:\n    instances: 3\n    command: python train.py\n");
  CompileOptions options;
  options.spec = "job.yaml";
  options.out_dir = "out";
  // Without the Slurm target the spec has no inventory.
  options.check_only = true;
  CHECK(compile(options).code == 1);
  options.check_only = false;
  options.target = "slurm";
  const Result r = compile(options);
  CHECK(r.err.empty());
  REQUIRE(r.code == 0);
  CHECK(r.out ==
        "demo: 1 role, 3 instances on 3 hosts, world size 3\n"
        "checkpoint plan: every 7h 56m (expected ETTR 99.6%, job MTBF 79d 00h over 3 nodes)\n"
        "wrote out: .pai-compile, env/ (3 files), hostfile, job.sbatch, job.token, "
        "launch.sh, logs/ (0 files), plan.json, roles/ (1 file)\n");
  const std::string script = slurp("out/job.sbatch");
  CHECK(script.find("#SBATCH --nodes=3\n") != std::string::npos);
  CHECK(script.find("#SBATCH --output=out/logs/slurm-%j.out\n") != std::string::npos);
  CHECK(script.find("default_dir=\"${SLURM_SUBMIT_DIR:?submit this script with sbatch}\"/out\n") !=
        std::string::npos);
  CHECK((fs::status("out/job.sbatch").permissions() & fs::perms::owner_exec) != fs::perms::none);
  CHECK(fs::is_directory("out/logs"));
  const auto plan = nlohmann::json::parse(slurp("out/plan.json"));
  CHECK(plan["inventory"] == "slurm");
  CHECK(plan["hosts"][2]["name"] == "slurm-2");
}

TEST_CASE("the Slurm target ignores a hosts file with a warning located in it") {
  TempDir dir;
  spit(dir / "job.yaml", kSpec);
  spit(dir / "hosts", "h1 slots=1\n");
  CompileOptions options;
  options.spec = dir / "job.yaml";
  options.hosts_file = dir / "hosts";
  options.target = "slurm";
  options.check_only = true;
  const Result r = compile(options);
  CHECK(r.code == 0);
  CHECK(r.err == dir / "hosts: warning: hosts: --target slurm: the hosts are ignored: the job "
                       "runs on the nodes Slurm allocates to it\n1 warning\n");
}

TEST_CASE("a target that all_targets() lacks is a usage error") {
  TempDir dir;
  spit(dir / "job.yaml", kSpec);
  CompileOptions options;
  options.spec = dir / "job.yaml";
  options.check_only = true;
  options.target = "K8S";  // the command line takes any case; the name itself is lower case
  const Result r = compile(options);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "pai-compile: error: unknown target \"K8S\"\n");
}

TEST_CASE("a Jsonnet spec compiles with its template path") {
  TempDir dir;
  fs::create_directories(dir / "tpl");
  spit(dir / "tpl/base.libsonnet", "{ apiVersion: 'pai/v1', kind: 'Job' }");
  spit(dir / "job.jsonnet",
       "local base = import 'pai/base.libsonnet';\n"
       "base { name: std.extVar('name'), hosts: ['n1'], roles: { w: { command: 'true' } } }\n");
  CompileOptions options;
  options.spec = dir / "job.jsonnet";
  options.check_only = true;
  options.jsonnet.template_dir = dir / "tpl";
  options.jsonnet.ext_str = {{"name", "from-jsonnet"}};
  const Result r = compile(options);
  CHECK(r.err.empty());
  CHECK(r.code == 0);
  CHECK(r.out.find("from-jsonnet: 1 role") != std::string::npos);
}

TEST_CASE("SARIF diagnostics go to stdout for code scanning - the summary to stderr") {
  TempDir dir;
  spit(dir / "job.yaml", "apiVersion: pai/v1\nkind: Job\nname: demo\nhosts: [a]\n"
                         "roles:\n  worker: {command: x, nprocPerNod: 2}\n");
  CompileOptions options;
  options.spec = dir / "job.yaml";
  options.check_only = true;
  options.format = DiagnosticsFormat::Sarif;
  Result r = compile(options);
  CHECK(r.code == 1);
  CHECK(r.err.empty());
  auto log = nlohmann::json::parse(r.out);
  REQUIRE(log["runs"][0]["results"].size() == 1);
  const auto& result = log["runs"][0]["results"][0];
  CHECK(result["level"] == "error");
  CHECK(result["locations"][0]["physicalLocation"]["region"]["startLine"] == 6);
  CHECK(result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] ==
        dir / "job.yaml");

  spit(dir / "job.yaml", kSpec);
  r = compile(options);
  CHECK(r.code == 0);
  log = nlohmann::json::parse(r.out);
  CHECK(log["runs"][0]["results"].empty());
  CHECK(r.err.find(": ok (demo: 1 role") != std::string::npos);
}

}  // namespace compile_command_test
