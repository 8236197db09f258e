// Real OpenPAI job files (tests/fixtures/openpai, copied from microsoft/pai) through the
// pai-compile binary, as a user would run them: `pai-compile --hosts hosts.txt job.yaml`.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "libpai/shell_quote.h"
#include "support/temp_dir.h"

namespace openpai_fixtures_test {

using pai::testing::slurp;
using pai::testing::spit;
using pai::testing::TempDir;

namespace {

const std::string kFixtures = std::string(PAI_SOURCE_DIR) + "/tests/fixtures/openpai";

struct Run {
  int code = -1;
  std::string err;
};

// pai-compile ARGS in `dir`, which holds hosts.txt: 600 hosts, enough for the largest file
// (501 instances).
Run pai_compile(const TempDir& dir, const std::string& args) {
  if (!std::filesystem::exists(dir / "hosts.txt")) {
    std::string hosts;
    for (int i = 1; i <= 600; ++i) {
      hosts += "10.0." + std::to_string(i / 250) + "." + std::to_string(i % 250 + 1) + "\n";
    }
    spit(dir / "hosts.txt", hosts);
  }
  const std::string command =
      "cd " + pai::shell_quote(dir.path()) + " && " +
      pai::shell_quote(std::string(PAI_BINARY_DIR) + "/compiler/pai-compile") +
      " --hosts hosts.txt " + args + " >stdout 2>stderr";
  const int status = std::system(command.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(dir / "stderr")};
}

std::string fixture(const std::string& name) { return pai::shell_quote(kFixtures + "/" + name); }

// The files that do not compile, with the errors pai-compile reports for them (the source
// line and caret after each error left out).
const std::map<std::string, std::vector<std::string>> kExpectedFailures = {
    {"marketplace-v2_sklearn-text-vectorizers.yaml",
     // The file is broken as published: OpenPAI rejects it too.
     {"taskRoles.worker.completion: unknown key \"minSucceededTaskCount\"",
      "taskRoles.worker.dockerImage: no prerequisite of type dockerimage is named "
      "\"pytorch_example\" (defined: sklearn_example)"}}};

std::vector<std::string> errors_of(const std::string& stderr_text) {
  std::vector<std::string> errors;
  const std::regex error_line(R"(^[^:\n]+:\d+:\d+: error: (.*)$)", std::regex::multiline);
  for (std::sregex_iterator it(stderr_text.begin(), stderr_text.end(), error_line), end; it != end;
       ++it) {
    errors.push_back((*it)[1]);
  }
  return errors;
}

}  // namespace

TEST_CASE("at least 32 of the 34 real OpenPAI job files compile - the rest say why") {
  TempDir dir;
  int files = 0;
  int compiled = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kFixtures)) {
    if (entry.path().extension() != ".yaml") continue;
    const std::string name = entry.path().filename().string();
    ++files;
    const Run run = pai_compile(dir, "--check " + fixture(name));
    INFO(name << "\n" << run.err);
    const auto expected = kExpectedFailures.find(name);
    if (expected == kExpectedFailures.end()) {
      CHECK(run.code == 0);
      compiled += run.code == 0 ? 1 : 0;
      continue;
    }
    CHECK(run.code == 1);
    CHECK(errors_of(run.err) == expected->second);
  }
  CHECK(files == 34);
  CHECK(compiled >= 32);
  CHECK(compiled == files - static_cast<int>(kExpectedFailures.size()));
}

TEST_CASE("caffe-mnist downloads and converts its dataset before training") {
  TempDir dir;
  REQUIRE(pai_compile(dir, "-o out " + fixture("marketplace-v2_caffe-mnist.yaml")).code == 0);
  const std::string plan = slurp(dir / "out/plan.json");
  CHECK(plan.find(R"("/bin/bash",)") != std::string::npos);
  CHECK(plan.find(R"("./data/mnist/get_mnist.sh\n./examples/mnist/create_mnist.sh\n)"
                  R"(./examples/mnist/train_lenet.sh")") != std::string::npos);
}

TEST_CASE("tensorflow-serving reads its port from PAI_CONTAINER_HOST_<label>_PORT_LIST") {
  TempDir dir;
  REQUIRE(
      pai_compile(dir, "-o out " + fixture("marketplace-v2_tensorflow-serving-mnist.yaml")).code ==
      0);
  const std::string env = slurp(dir / "out/env/worker-0.sh");
  std::smatch port;
  REQUIRE(std::regex_search(
      env, port, std::regex(R"(export PAI_CONTAINER_HOST_model_server_PORT_LIST=(\d+))")));
  CHECK(env.find("export PAI_PORT_LIST_worker_0_model_server=" + port[1].str() + "\n") !=
        std::string::npos);
  // With the http and ssh ports OpenPAI adds to every task role.
  CHECK(std::regex_search(
      env, std::regex("export PAI_CONTAINER_HOST_PORT_LIST='http:\\d+;model_server:" +
                      port[1].str() + ";ssh:\\d+;'\n")));
  CHECK(env.find("export PAI_MIN_FAILED_TASK_COUNT_worker=1\n") != std::string::npos);
  // OpenPAI's default: the role's instance count.
  CHECK(env.find("export PAI_MIN_SUCCEEDED_TASK_COUNT_worker=1\n") != std::string::npos);
  CHECK(env.find("export PAI_JOB_TASK_COUNT=1\n") != std::string::npos);
  CHECK(env.find("export PAI_CONTAINER_HOST_IP=10.0.0.2\n") != std::string::npos);
  CHECK(env.find("export PAI_OPENPAI_JOB_NAME=tensorflow_serving_mnist\n") != std::string::npos);
}

TEST_CASE("an OpenPAI command runs with bash, its options and the job's env: ${!NAME} resolves") {
  TempDir dir;
  spit(dir / "job.yaml",
       "protocolVersion: 2\nname: port_echo\ntype: job\n"
       "taskRoles:\n  server:\n    resourcePerInstance: {cpu: 1, memoryMB: 100, gpu: 0,"
       " ports: {http: 1}}\n"
       "    commands:\n"
       "      - MY_PORT=PAI_PORT_LIST_${PAI_CURRENT_TASK_ROLE_NAME}_"
       "${PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX}_http\n"
       "      - echo \"${!MY_PORT} $PAI_CONTAINER_HOST_http_PORT_LIST $PAI_USER_NAME\" > result\n");
  REQUIRE(pai_compile(dir, "-o out job.yaml").code == 0);
  const std::string plan = slurp(dir / "out/plan.json");
  std::smatch script;
  REQUIRE(std::regex_search(plan, script,
                            std::regex(R"re("pipefail",\s*"-c",\s*"((?:[^"\\]|\\.)*)")re")));
  std::string command = std::regex_replace(script[1].str(), std::regex(R"(\\n)"), "\n");
  command = std::regex_replace(command, std::regex(R"(\\")"), "\"");
  // What pai-launch gives the process: the env script's variables, PAI_USER_NAME.
  const std::string run = "cd " + pai::shell_quote(dir.path()) +
                          " && set -a && . out/env/server-0.sh && PAI_USER_NAME=alice"
                          " && exec /bin/bash -o errexit -o nounset -o pipefail -c " +
                          pai::shell_quote(command);
  REQUIRE(std::system(run.c_str()) == 0);
  std::smatch port;
  const std::string env = slurp(dir / "out/env/server-0.sh");
  REQUIRE(std::regex_search(env, port, std::regex(R"(PAI_PORT_LIST_server_0_http=(\d+))")));
  CHECK(slurp(dir / "result") == port[1].str() + " " + port[1].str() + " alice\n");
}

}  // namespace openpai_fixtures_test
