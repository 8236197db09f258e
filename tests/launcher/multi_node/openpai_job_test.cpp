// OpenPAI job files run as OpenPAI runs them (issue 37): each difference pai had from
// OpenPAI's runtime (microsoft/openpai-runtime) and rest-server (microsoft/pai
// src/rest-server), compiled by the real pai-compile and run by real pai-launch processes,
// one per node, on loopback addresses of their own (127.19x.0.0/24, cluster_harness.h).
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "launcher/multi_node/cluster_harness.h"
#include "libpai/plan_json.h"

namespace openpai_job_test {

using namespace pai;
using namespace pai::testing;

namespace {

// `hosts` hosts node-1.. at 127.<subnet>.0.1.., as the OpenPAI file's `hosts` extension.
std::string hosts_yaml(int subnet, int hosts) {
  std::string out = "hosts:\n";
  for (int i = 1; i <= hosts; ++i) {
    out += "  - {name: node-" + std::to_string(i) + ", address: 127." + std::to_string(subnet) +
           ".0." + std::to_string(i) + "}\n";
  }
  return out;
}

// An OpenPAI job compiled by pai-compile and run by one launcher per host.
struct OpenPaiJob {
  TempDir dir;
  std::unique_ptr<Cluster> cluster;
  std::map<std::string, int> codes;
  std::string compile_log;

  // Compiles `yaml` (an OpenPAI job file); the test fails when pai-compile does.
  explicit OpenPaiJob(const std::string& yaml) {
    spit(dir / "job.yaml", yaml);
    const std::string out = dir / "out";
    const int status = std::system((PAI_BINARY_DIR "/compiler/pai-compile " + dir / "job.yaml" +
                                    " -o " + out + " > " + dir / "compile.log 2>&1")
                                       .c_str());
    compile_log = slurp(dir / "compile.log");
    INFO(compile_log);
    REQUIRE(status == 0);
    cluster = std::make_unique<Cluster>(
        load_plan_file(out + "/plan.json", JobToken{slurp(out + "/job.token"), "job.token"}));
  }

  // Runs every host's launcher to the end.
  void run(double timeout_s = 60) {
    cluster->start_all();
    codes = cluster->wait_all(timeout_s);
  }

  // Every launcher's output: the ranks' lines, prefixed.
  std::string output() const {
    std::string out;
    for (const Host& h : cluster->plan().hosts) out += cluster->launcher(h.name).out();
    return out;
  }
};

// "NAME=value" lines of file `path` as a map.
std::map<std::string, std::string> env_file(const std::string& path) {
  std::map<std::string, std::string> env;
  std::istringstream in(slurp(path));
  for (std::string line; std::getline(in, line);) {
    const auto eq = line.find('=');
    if (eq != std::string::npos) env[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return env;
}

}  // namespace

TEST_CASE(
    "OpenPAI's shell options: a failing command, an unset variable or a failing pipe ends "
    "the task") {
  // OpenPAI's runtime runs the commands under `set -o errexit -o nounset -o pipefail`
  // (src/runtime.d/user.sh); plain bash -c went on to `echo after` and exited 0.
  int subnet = 191;
  for (const char* failing : {"false", "echo $NOT_SET_BY_ANYONE", "false | true"}) {
    OpenPaiJob job("protocolVersion: 2\nname: openpai-shell-" + std::to_string(subnet) +
                   "\ntype: job\n" + hosts_yaml(subnet, 1) +
                   "taskRoles:\n  main:\n    commands:\n      - '" + failing +
                   "'\n      - echo after\n");
    job.run();
    INFO(failing << "\n" << job.cluster->transcript());
    CHECK(job.codes.at("node-1") == 1);
    CHECK(job.output().find("after") == std::string::npos);
    ++subnet;
  }
  CHECK(leftover_processes("openpai-shell-191").empty());
}

TEST_CASE(
    "OpenPAI's env, role order and completion: every task gets OpenPAI's variables, and the "
    "job ends when the workers succeeded") {
  // Roles in the file's order (worker before ps, which sorts first by name); ps never ends by
  // itself: as on OpenPAI, the job completes once every worker succeeded (minSucceeded
  // defaults to the role's instances, not -1: all of every role).
  TempDir results;
  const std::string dump = "env | grep -E '^PAI_' > " + results.path() +
                           "/$PAI_CURRENT_TASK_ROLE_NAME-$PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX";
  // The workers end once ps wrote its variables: on a loaded machine ps may start after the
  // workers ended, and the job's completion would stop it before it did.
  const std::string await_ps = "i=0; while [ ! -s " + results.path() +
                               "/ps-0 ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done";
  OpenPaiJob job("protocolVersion: 2\nname: openpai-env\ntype: job\n" + hosts_yaml(196, 3) +
                 "portRange: {min: 31900, max: 31999}\n"
                 "defaults: {virtualCluster: research}\n"
                 "taskRoles:\n"
                 "  worker:\n    instances: 2\n"
                 "    resourcePerInstance: {cpu: 1, memoryMB: 512, gpu: 0}\n"
                 "    commands: [\"" +
                 dump + "\", \"" + await_ps +
                 "\"]\n"
                 "  ps:\n    instances: 1\n"
                 "    resourcePerInstance: {cpu: 1, memoryMB: 512, gpu: 0, ports: {grpc: 1}}\n"
                 "    commands: [\"" +
                 dump + "\", sleep 120]\n");
  job.run(60);
  INFO(job.compile_log << job.cluster->transcript());
  for (const auto& [node, code] : job.codes) {
    INFO(node);
    CHECK(code == 0);
  }
  const Plan& plan = job.cluster->plan();
  std::map<std::string, const Placement*> instance;
  for (const Placement& p : plan.placements) {
    instance[p.role + "-" + std::to_string(p.index)] = &p;
  }
  REQUIRE(instance.size() == 3);
  const auto port = [&](const std::string& name, const std::string& label) {
    return std::to_string(instance.at(name)->ports.at(label).front());
  };
  const std::string user = env_file(results / "worker-0").at("PAI_USER_NAME");
  for (const auto& [name, p] : instance) {
    INFO(name);
    const auto env = env_file(results / name);
    CHECK(env.at("PAI_TASK_ROLE_LIST") == "worker,ps");
    // address:http-port, as OpenPAI's runtime lists them (init.d/framework_parser.py).
    CHECK(env.at("PAI_TASK_ROLE_worker_HOST_LIST") ==
          "127.196.0.1:" + port("worker-0", "http") + ",127.196.0.2:" + port("worker-1", "http"));
    CHECK(env.at("PAI_TASK_ROLE_ps_HOST_LIST") == "127.196.0.3:" + port("ps-0", "http"));
    // The ssh and http ports OpenPAI gives every task, in its variables (13 of each task).
    const std::string own = p->role + "_" + std::to_string(p->index);
    CHECK(env.at("PAI_HOST_IP_" + own) == p->host.address);
    CHECK(env.at("PAI_CONTAINER_HOST_IP") == p->host.address);
    CHECK(env.at("PAI_CURRENT_CONTAINER_IP") == p->host.address);
    CHECK(env.at("PAI_CONTAINER_HOST_PORT_LIST").find("http:" + port(name, "http") + ";") !=
          std::string::npos);
    CHECK(env.at("PAI_" + own + "_ssh_PORT") == port(name, "ssh"));
    CHECK(env.at("PAI_" + own + "_http_PORT") == port(name, "http"));
    CHECK(env.at("PAI_PORT_LIST_" + own + "_ssh") == port(name, "ssh"));
    CHECK(env.at("PAI_PORT_LIST_" + own + "_http") == port(name, "http"));
    CHECK(env.at("PAI_CONTAINER_SSH_PORT") == port(name, "ssh"));
    CHECK(env.at("PAI_CONTAINER_HOST_PORT") == port(name, "http"));
    CHECK(env.at("PAI_CURRENT_CONTAINER_PORT") == port(name, "http"));
    CHECK(env.at("PAI_CONTAINER_HOST_http_PORT_LIST") == port(name, "http"));
    CHECK(env.at("PAI_CONTAINER_HOST_ssh_PORT_LIST") == port(name, "ssh"));
    // The portRange extension placed them.
    const int ssh = std::stoi(port(name, "ssh"));
    CHECK((ssh >= 31900 && ssh <= 31999));
    // runtime-env.js: the virtual cluster, an empty default file system, "<user>~<job>".
    CHECK(env.at("PAI_VIRTUAL_CLUSTER") == "research");
    CHECK(env.count("PAI_DEFAULT_FS_URI") == 1);
    CHECK(env.at("PAI_DEFAULT_FS_URI").empty());
    CHECK(env.at("PAI_FRAMEWORK_NAME") == user + "~openpai-env");
    CHECK(env.at("PAI_MIN_SUCCEEDED_TASK_COUNT_worker") == "2");
    CHECK(env.at("PAI_MIN_SUCCEEDED_TASK_COUNT_ps") == "1");
    CHECK(env.at("PAI_MIN_FAILED_TASK_COUNT_worker") == "1");
  }
  CHECK(leftover_processes("openpai-env").empty());
}

TEST_CASE("the cmd plugin's commands run where OpenPAI's runtime runs them") {
  TempDir results;
  const std::string log = results / "log";
  // A prerequisite's cmd plugin (taskStarts) first, then extras' (preCommands), the
  // commands, and the postCommands once they succeeded; `exit 0` in the commands still runs
  // them (OpenPAI runs them in a script of their own).
  OpenPaiJob job("protocolVersion: 2\nname: openpai-cmd\ntype: job\n" + hosts_yaml(197, 1) +
                 "prerequisites:\n"
                 "  - name: setup\n    type: script\n"
                 "    plugin: com.microsoft.pai.runtimeplugin.cmd\n"
                 "    callbacks:\n"
                 "      - {event: taskStarts, commands: [echo prerequisite >> " +
                 log +
                 "]}\n"
                 "taskRoles:\n  main:\n    prerequisites: [setup]\n"
                 "    commands: [echo commands >> " +
                 log + ", exit 0, echo never >> " + log +
                 "]\n"
                 "extras:\n  com.microsoft.pai.runtimeplugin:\n"
                 "    - plugin: cmd\n      parameters:\n"
                 "        preCommands: [echo pre >> " +
                 log +
                 "]\n"
                 "        postCommands: [echo post >> " +
                 log + "]\n");
  job.run();
  INFO(job.compile_log << job.cluster->transcript());
  CHECK(job.codes.at("node-1") == 0);
  CHECK(slurp(log) == "prerequisite\npre\ncommands\npost\n");
}

TEST_CASE(
    "a failing cmd plugin command fails the task before its commands, unless its "
    "failurePolicy is ignore") {
  for (const bool ignore : {false, true}) {
    TempDir results;
    const std::string marker = results / "commands-ran";
    const int subnet = ignore ? 199 : 198;
    OpenPaiJob job("protocolVersion: 2\nname: openpai-cmd-" + std::to_string(subnet) +
                   "\ntype: job\n" + hosts_yaml(subnet, 1) +
                   "taskRoles:\n  main:\n    commands: [touch " + marker +
                   "]\n"
                   "extras:\n  com.microsoft.pai.runtimeplugin:\n"
                   "    - plugin: cmd\n" +
                   (ignore ? "      failurePolicy: ignore\n" : "") +
                   "      parameters:\n"
                   "        preCommands: ['git clone file:///no/such/repo /tmp/x', echo cloned]\n");
    job.run();
    INFO("ignore " << ignore << "\n" << job.compile_log << job.cluster->transcript());
    CHECK(job.codes.at("node-1") == (ignore ? 0 : 1));
    CHECK(std::filesystem::exists(marker) == ignore);
    // errexit: the command after the failed clone ran only where failures are ignored.
    CHECK((job.output().find("cloned") != std::string::npos) == ignore);
  }
}

}  // namespace openpai_job_test
