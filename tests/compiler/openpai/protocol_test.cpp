#include "compiler/openpai/protocol.h"

#include <catch2/catch.hpp>

#include "compiler/document/yaml_loader.h"
#include "compiler/spec/spec_parser.h"

namespace openpai_protocol_test {

using namespace pai;

namespace {

struct Translated {
  Diagnostics diags;
  Document doc;
  JobSpec spec;

  std::vector<std::string> messages() const {
    std::vector<std::string> out;
    for (const Diagnostic& d : diags.all()) {
      out.push_back(std::string(d.severity == Severity::Error ? "error " : "warning ") +
                    std::to_string(d.loc.line) + ":" + std::to_string(d.loc.column) + " " +
                    (d.path.empty() ? "" : d.path + ": ") + d.message);
    }
    return out;
  }
};

// The command of a task role whose script is `script`: bash with the options OpenPAI's
// runtime sets (openpai-runtime src/runtime.d/user.sh).
std::vector<std::string> bash(const std::string& script) {
  return {"/bin/bash", "-o", "errexit", "-o", "nounset", "-o", "pipefail", "-c", script};
}

// `role`'s env without what every OpenPAI role gets (PAI_VIRTUAL_CLUSTER, PAI_DEFAULT_FS_URI).
std::vector<std::pair<std::string, std::string>> own_env(const Role& role) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& kv : role.env) {
    if (kv.first != "PAI_VIRTUAL_CLUSTER" && kv.first != "PAI_DEFAULT_FS_URI") out.push_back(kv);
  }
  return out;
}

// Translates `yaml` and, when that has no errors, parses the result as pai-compile does.
std::unique_ptr<Translated> translate(const std::string& yaml) {
  auto t = std::make_unique<Translated>();
  t->doc = translate_openpai(load_yaml("job.yaml", yaml), t->diags);
  if (!t->diags.has_errors()) t->spec = parse_spec(t->doc, t->diags, RoleOrder::AsWritten);
  return t;
}

const std::string kSingleRole =
    "protocolVersion: 2\n"                                     // 1
    "name: mnist\n"                                            // 2
    "type: job\n"                                              // 3
    "jobRetryCount: 2\n"                                       // 4
    "prerequisites:\n"                                         // 5
    "  - type: dockerimage\n"                                  // 6
    "    name: img\n"                                          // 7
    "    uri: pytorch/pytorch:2.1\n"                           // 8
    "taskRoles:\n"                                             // 9
    "  train:\n"                                               // 10
    "    instances: 2\n"                                       // 11
    "    dockerImage: img\n"                                   // 12
    "    completion: {minFailedInstances: null, minSucceededInstances: 1}\n"  // 13
    "    extraContainerOptions: {shmMB: 64}\n"                 // 14
    "    resourcePerInstance:\n"                               // 15
    "      gpu: 8\n"                                           // 16
    "      cpu: 16\n"                                          // 17
    "      memoryMB: 4096\n"                                   // 18
    "      ports: {http: 2}\n"                                 // 19
    "    commands:\n"                                          // 20
    "      - cd /work\n"                                       // 21
    "      - python train.py\n";                               // 22

}  // namespace

TEST_CASE("is_openpai_protocol looks for protocolVersion at the root") {
  CHECK(is_openpai_protocol(load_yaml("job.yaml", "protocolVersion: 2\nname: x\n")));
  CHECK_FALSE(is_openpai_protocol(load_yaml("job.yaml", "apiVersion: pai/v1\n")));
  CHECK_FALSE(is_openpai_protocol(load_yaml("job.yaml", "- protocolVersion\n")));
}

TEST_CASE("a single task role becomes a pai role with the same meaning") {
  auto t = translate(kSingleRole);
  INFO(t->messages().size());
  REQUIRE(t->messages().empty());
  const Plan& job = t->spec.job;
  CHECK(job.name == "mnist");
  CHECK(job.image == "pytorch/pytorch:2.1");
  CHECK(job.runtime == Runtime::Docker);
  CHECK(job.fault_tolerance.max_restarts == 2);
  REQUIRE(job.roles.size() == 1);
  const Role& role = job.roles[0];
  CHECK(role.name == "train");
  CHECK(role.instances == 2);
  CHECK(role.command == bash("cd /work\npython train.py"));
  CHECK(role.resources.gpu == 8);
  CHECK(role.resources.cpu == 16);
  CHECK(role.resources.memory_bytes == 4096l << 20);
  CHECK(role.resources.shm_bytes == 64l << 20);
  // OpenPAI's null minFailedInstances is 1 (rest-server k8s.js).
  CHECK(role.completion.min_failed == 1);
  CHECK(role.completion.min_succeeded == 1);
  // OpenPAI adds an ssh port to the http ports asked for.
  REQUIRE(role.ports.size() == 2);
  CHECK(role.ports[0].label == "http");
  CHECK(role.ports[0].count == 2);
  CHECK(role.ports[1].label == "ssh");
  CHECK(role.ports[1].count == 1);
  CHECK(role.env == std::vector<std::pair<std::string, std::string>>{
                        {"PAI_DEFAULT_FS_URI", ""}, {"PAI_VIRTUAL_CLUSTER", "default"}});
}

TEST_CASE("later errors point into the OpenPAI file") {
  std::string yaml = kSingleRole;
  yaml.replace(yaml.find("instances: 2"), 12, "instances: 0");
  auto t = translate(yaml);
  CHECK(t->messages() == std::vector<std::string>{
                             "error 11:16 roles.train.instances: expected an integer between 1 "
                             "and 100000, got 0"});
}

TEST_CASE("without jobRetryCount an OpenPAI job is not restarted") {
  auto t = translate(
      "protocolVersion: 2\nname: x\ntaskRoles:\n  a:\n    commands: [echo hi]\n");
  REQUIRE_FALSE(t->diags.has_errors());
  CHECK(t->spec.job.fault_tolerance.max_restarts == 0);
}

TEST_CASE("taskRetryCount becomes async restarts with a warning") {
  auto t = translate(
      "protocolVersion: 2\nname: x\ntaskRoles:\n  a:\n    taskRetryCount: 2\n"
      "    commands: [echo hi]\n");
  CHECK(t->messages() ==
        std::vector<std::string>{
            "warning 5:21 taskRoles.a.taskRetryCount: taskRetryCount 2 becomes faultTolerance "
            "mode async with maxRestarts 2: pai restarts only the failed instance, but from one "
            "budget for the whole job, not one per instance"});
  CHECK(t->spec.job.fault_tolerance.mode == FaultToleranceMode::Async);
  CHECK(t->spec.job.fault_tolerance.max_restarts == 2);
}

TEST_CASE("taskRetryCount that differs from jobRetryCount is a warning") {
  auto t = translate(
      "protocolVersion: 2\nname: x\njobRetryCount: 1\ntaskRoles:\n  a:\n"
      "    taskRetryCount: 3\n    commands: [echo hi]\n  b:\n    taskRetryCount: 1\n"
      "    commands: [echo hi]\n");
  CHECK(t->messages() ==
        std::vector<std::string>{
            "warning 6:21 taskRoles.a.taskRetryCount: taskRetryCount 3 is not applied: pai has "
            "one restart budget per job, faultTolerance.restart.maxRestarts 1 from "
            "jobRetryCount, and restarts every instance (sync mode)"});
  CHECK(t->spec.job.fault_tolerance.mode == FaultToleranceMode::Sync);
}

TEST_CASE("parameter and secret templates become pai parameter references") {
  auto t = translate(
      "protocolVersion: 2\nname: x\nparameters: {lr: 0.1}\nsecrets: {key: abc}\n"
      "taskRoles:\n  a:\n    commands:\n      - run --lr <% $parameters.lr %> --k <%$secrets.key%>\n");
  REQUIRE_FALSE(t->diags.has_errors());
  CHECK(t->spec.job.roles[0].command.back() == "run --lr 0.1 --k abc");
  CHECK(t->messages() ==
        std::vector<std::string>{
            "warning 4:1 secrets: secrets become parameters: their values are written in clear "
            "text into the commands in plan.json and roles/*.json like any parameter; keep the "
            "output folder private"});
}

TEST_CASE("undefined and unsupported templates are errors at the template") {
  auto t = translate(
      "protocolVersion: 2\nname: x\nparameters: {lr: 0.1}\n"
      "taskRoles:\n  a:\n    commands:\n"
      "      - run <% $parameters.lrr %> <% $script.uri %> <% $job.name %>\n");
  CHECK(t->messages() ==
        std::vector<std::string>{
            "error 7:13 taskRoles.a.commands[0]: undefined parameter \"lrr\" in "
            "<% $parameters.lrr %> (did you mean \"lr\"? defined: lr)",
            "error 7:35 taskRoles.a.commands[0]: template <% $script.uri %> names the task "
            "role's script prerequisite, but task role a has no script field",
            "error 7:53 taskRoles.a.commands[0]: unsupported OpenPAI template <% $job.name %>: "
            "only $parameters, $secrets, $data, $script and $output are rendered"});
}

TEST_CASE("secret values never appear in diagnostics") {
  const std::string secret = "sup3r-s3cret";
  auto t = translate("protocolVersion: 2\nname: x\nparameters: {key: 1}\nsecrets:\n  key: " +
                     secret + "\n  nested: {a: " + secret +
                     "}\ntaskRoles:\n  a:\n    commands: [echo <% $secrets.kye %>]\n");
  CHECK(t->messages() ==
        std::vector<std::string>{
            "warning 4:1 secrets: secrets become parameters: their values are written in clear "
            "text into the commands in plan.json and roles/*.json like any parameter; keep the "
            "output folder private",
            "error 5:3 secrets.key: parameter and secret \"key\" have the same name: both "
            "become pai parameters",
            "error 6:11 secrets.nested: expected a string or a number, got a mapping",
            "error 9:21 taskRoles.a.commands[0]: undefined secret \"kye\" in "
            "<% $secrets.kye %> (the file defines no secrets)"});
  for (const std::string& m : t->messages()) CHECK(m.find(secret) == std::string::npos);
}

TEST_CASE("unknown keys are errors with a suggestion") {
  auto t = translate(
      "protocolVersion: 2\nname: x\ntaskRole: {}\ntaskRoles:\n  a:\n    comands: [x]\n");
  CHECK(t->messages() ==
        std::vector<std::string>{
            "error 3:1 unknown key \"taskRole\" (did you mean \"taskRoles\"?)",
            "error 6:5 taskRoles.a: unknown key \"comands\" (did you mean \"commands\"?)"});
}

TEST_CASE("only protocol version 2 is read") {
  auto t = translate("protocolVersion: 1\nname: x\ntaskRoles: {}\n");
  CHECK(t->messages() ==
        std::vector<std::string>{
            "error 1:18 protocolVersion: expected 2 (the OpenPAI job protocol version pai "
            "reads), got 1"});
}

TEST_CASE("every dropped field is listed in one warning, located at the first") {
  auto t = translate(
      "protocolVersion: 2\nname: x\nversion: 1.0\ndefaults: {virtualCluster: vc1}\n"
      "prerequisites:\n  - {type: dockerimage, name: i, uri: img, auth: {username: u}}\n"
      "extras:\n  hivedScheduler: {}\n  gangAllocation: false\n"
      "  com.microsoft.pai.runtimeplugin:\n    - {plugin: tensorboard}\n"
      "    - {plugin: ssh, parameters: {jobssh: true, userssh: {type: custom, value: k}}}\n"
      "taskRoles:\n  a:\n    dockerImage: i\n    extraContainerOptions: {infiniband: true}\n"
      "    commands: [echo hi]\n");
  CHECK(t->messages() ==
        std::vector<std::string>{
            "warning 3:1 7 OpenPAI fields are dropped, having no meaning in pai: version (3:1, "
            "job metadata); prerequisites[0].auth (6:50, pai does not log in to registries: docker "
            "login on every host); extras.hivedScheduler (8:3, HiveD's SKUs: the hosts come "
            "from --hosts or hosts); extras.gangAllocation (9:3, pai always starts every "
            "instance together); extras.com.microsoft.pai.runtimeplugin[0].plugin (11:16, "
            "runtime plugin \"tensorboard\"); extras.com.microsoft.pai.runtimeplugin[1]."
            "parameters.userssh (12:48, no sshd runs in the job: pai-launch run or ctl reach "
            "it); taskRoles.a.extraContainerOptions.infiniband (16:29)"});
}

TEST_CASE("a file with nothing to drop gets no dropped-fields warning") {
  auto t = translate("protocolVersion: 2\nname: x\ntaskRoles:\n  a:\n    commands: [echo hi]\n");
  CHECK(t->messages().empty());
}

TEST_CASE("roles in different images are an error") {
  auto t = translate(
      "protocolVersion: 2\nname: x\nprerequisites:\n"
      "  - {type: dockerimage, name: a, uri: img-a}\n"
      "  - {type: dockerimage, name: b, uri: img-b}\n"
      "taskRoles:\n  one:\n    dockerImage: a\n    commands: [x]\n"
      "  two:\n    dockerImage: b\n    commands: [x]\n");
  CHECK(t->messages() ==
        std::vector<std::string>{
            "error 5:39 taskRoles.two.dockerImage: task role two uses image \"img-b\" but task "
            "role one uses \"img-a\": pai runs every role of a job in one image"});
}

TEST_CASE("a launcher role makes an mpi job and storages become mounts") {
  auto t = translate(
      "protocolVersion: 2\nname: x\nhosts: [n1, n2]\n"
      "extras:\n  com.microsoft.pai.runtimeplugin:\n"
      "    - {plugin: teamwise_storage, parameters: {storageConfigNames: [nfs]}}\n"
      "taskRoles:\n  launcher:\n    commands: [mpirun x]\n  worker:\n    commands: [x]\n");
  REQUIRE_FALSE(t->diags.has_errors());
  CHECK(t->spec.job.framework == Framework::Mpi);
  REQUIRE(t->spec.job.mounts.size() == 1);
  CHECK(t->spec.job.mounts[0].name == "nfs");
  CHECK(t->spec.job.mounts[0].source == "/mnt/nfs");
  CHECK(t->spec.job.mounts[0].target == "/mnt/nfs");
  CHECK(t->spec.job.hosts.size() == 2);
  CHECK(t->messages() ==
        std::vector<std::string>{
            "warning 6:68 extras.com.microsoft.pai.runtimeplugin[0].parameters."
            "storageConfigNames[0]: storage \"nfs\" becomes mount /mnt/nfs -> /mnt/nfs "
            "(OpenPAI's mount point): it must be mounted at /mnt/nfs on every host"});
}

TEST_CASE("a job name that is no DNS label becomes one with a warning, the original kept") {
  auto t = translate(
      "protocolVersion: 2\nname: CPU_500Task.MNIST_\ntaskRoles:\n  a:\n    commands: [x]\n");
  CHECK(t->messages() ==
        std::vector<std::string>{
            "warning 2:7 name: the job is named \"cpu-500task-mnist\": pai job names are DNS "
            "labels (hostnames, Kubernetes and file names); the OpenPAI name "
            "\"CPU_500Task.MNIST_\" is kept in PAI_OPENPAI_JOB_NAME"});
  CHECK(t->spec.job.name == "cpu-500task-mnist");
  CHECK(own_env(t->spec.job.roles[0]) == std::vector<std::pair<std::string, std::string>>{
                                             {"PAI_OPENPAI_JOB_NAME", "CPU_500Task.MNIST_"}});
}

TEST_CASE("a job name with no letter or digit is an error") {
  auto t = translate("protocolVersion: 2\nname: ___\ntaskRoles:\n  a:\n    commands: [x]\n");
  CHECK(t->messages() ==
        std::vector<std::string>{
            "error 2:7 name: the job name \"___\" has no letter or digit to make a DNS label of"});
}

TEST_CASE("a long job name is cut to 47 characters: a DNS label with room for its pods' suffix") {
  auto t = translate("protocolVersion: 2\nname: " + std::string(70, 'a') +
                     "\ntaskRoles:\n  a:\n    commands: [x]\n");
  REQUIRE_FALSE(t->diags.has_errors());
  CHECK(t->spec.job.name == std::string(47, 'a'));
}

TEST_CASE("a task role name with '-' becomes a pai role name with a warning") {
  auto t = translate("protocolVersion: 2\nname: x\ntaskRoles:\n  ps-server:\n    commands: [x]\n");
  CHECK(t->messages() ==
        std::vector<std::string>{
            "warning 4:3 taskRoles.ps-server: task role \"ps-server\" becomes role "
            "\"ps_server\": pai role names are part of env var names "
            "(PAI_TASK_ROLE_TASK_COUNT_ps_server)"});
  REQUIRE(t->spec.job.roles.size() == 1);
  CHECK(t->spec.job.roles[0].name == "ps_server");
}

const std::string kDeployed =
    "protocolVersion: 2\nname: x\n"                               // 1-2
    "taskRoles:\n  train:\n    commands:\n      - ./train.sh\n"   // 3-6
    "  eval:\n    commands: [./eval.sh]\n"                        // 7-8
    "deployments:\n"                                              // 9
    "  - name: prod\n    taskRoles:\n      train:\n"              // 10-12
    "        preCommands: [./get_data.sh, '  ./convert.sh  ']\n"  // 13
    "        postCommands: [./upload.sh]\n"                       // 14
    "  - name: dev\n    taskRoles: {}\n"                          // 15-16
    "defaults:\n  deployment: prod\n";                            // 17-18

TEST_CASE("the default deployment's preCommands run before the commands, postCommands after") {
  auto t = translate(kDeployed);
  CHECK(t->messages() ==
        std::vector<std::string>{
            "warning 15:5 1 OpenPAI field is dropped, having no meaning in pai: deployments[1] "
            "(15:5, defaults.deployment selects \"prod\")"});
  const Role* train = find_role(t->spec.job, "train");
  REQUIRE(train != nullptr);
  CHECK(train->command == bash("./get_data.sh\n./convert.sh\n./train.sh\n./upload.sh"));
  const Role* eval = find_role(t->spec.job, "eval");
  REQUIRE(eval != nullptr);
  CHECK(eval->command == bash("./eval.sh"));
}

TEST_CASE("without defaults.deployment no deployment applies, and each one is listed dropped") {
  std::string yaml = kDeployed;
  yaml.erase(yaml.find("defaults:"));
  auto t = translate(yaml);
  CHECK(t->messages() ==
        std::vector<std::string>{
            "warning 10:5 2 OpenPAI fields are dropped, having no meaning in pai: "
            "deployments[0] (10:5, no defaults.deployment selects it); deployments[1] (15:5, "
            "no defaults.deployment selects it)"});
  CHECK(find_role(t->spec.job, "train")->command == bash("./train.sh"));
}

TEST_CASE("a default deployment that does not exist is an error") {
  std::string yaml = kDeployed;
  yaml.replace(yaml.find("deployment: prod"), 16, "deployment: prdo");
  auto t = translate(yaml);
  CHECK(t->messages() ==
        std::vector<std::string>{
            "error 18:15 defaults.deployment: no deployment named \"prdo\" (did you mean "
            "\"prod\"? defined: prod, dev)"});
}

TEST_CASE("a deployment of an unknown task role is an error") {
  std::string yaml = kDeployed;
  yaml.replace(yaml.find("      train:\n        pre"), 12, "      trian:");
  auto t = translate(yaml);
  CHECK(t->messages() ==
        std::vector<std::string>{
            "error 12:7 deployments[0].taskRoles.trian: no task role named \"trian\" (did you "
            "mean \"train\"? defined: train, eval)",
            "warning 15:5 1 OpenPAI field is dropped, having no meaning in pai: deployments[1] "
            "(15:5, defaults.deployment selects \"prod\")"});
}

TEST_CASE("commands run with bash, as OpenPAI runs them: ${!NAME} works") {
  auto t = translate(
      "protocolVersion: 2\nname: x\ntaskRoles:\n  a:\n    commands:\n"
      "      - MY_PORT=PAI_PORT_LIST_a_0_http\n      - echo ${!MY_PORT}\n");
  REQUIRE_FALSE(t->diags.has_errors());
  CHECK(t->spec.job.roles[0].command == bash("MY_PORT=PAI_PORT_LIST_a_0_http\necho ${!MY_PORT}"));
}

TEST_CASE("$data, $script and $output templates read the task role's prerequisites") {
  auto t = translate(
      "protocolVersion: 2\nname: x\nprerequisites:\n"
      "  - {type: data, name: cifar, uri: [http://d/a.tgz, http://d/b.tgz]}\n"
      "  - {type: script, name: bench, uri: http://g/b, version: abc}\n"
      "  - {type: output, name: model, uri: hdfs://m}\n"
      "taskRoles:\n  a:\n    data: cifar\n    script: bench\n    output: model\n"
      "    commands:\n"
      "      - get <% $data.uri[1] %> <% $data.uri %> && git checkout <% $script.version %>\n"
      "      - cp out <%$output.uri%>/<% $data.name %>\n");
  REQUIRE(t->messages().empty());
  CHECK(t->spec.job.roles[0].command.back() ==
        "get http://d/b.tgz http://d/a.tgz,http://d/b.tgz && git checkout abc\n"
        "cp out hdfs://m/cifar");
}

TEST_CASE("a template naming a missing field or item of a prerequisite is an error") {
  auto t = translate(
      "protocolVersion: 2\nname: x\nprerequisites:\n"
      "  - {type: data, name: cifar, uri: [http://d/a.tgz]}\n"
      "taskRoles:\n  a:\n    data: cifr\n    commands: [x]\n"
      "  b:\n    data: cifar\n    commands: ['<% $data.uri[1] %> <% $data.md5 %>']\n");
  CHECK(t->messages() ==
        std::vector<std::string>{
            "error 7:11 taskRoles.a.data: no prerequisite of type data is named \"cifr\" (did "
            "you mean \"cifar\"? defined: cifar)",
            "error 11:17 taskRoles.b.commands[0]: template <% $data.uri[1] %>: the "
            "prerequisite has no text field \"uri[1]\"",
            "error 11:36 taskRoles.b.commands[0]: template <% $data.md5 %>: the prerequisite "
            "has no text field \"md5\""});
}

TEST_CASE("a port count of 0 reserves one port, with a warning") {
  auto t = translate(
      "protocolVersion: 2\nname: x\ntaskRoles:\n  a:\n    commands: [x]\n"
      "    resourcePerInstance: {gpu: 0, cpu: 1, memoryMB: 100, ports: {serve: 0, ssh: 2}}\n");
  CHECK(t->messages() ==
        std::vector<std::string>{
            "warning 6:73 taskRoles.a.resourcePerInstance.ports.serve: 0 ports: pai reserves 1 "
            "port labelled serve, the port the commands read from "
            "PAI_CONTAINER_HOST_serve_PORT_LIST"});
  // ssh's count is the file's, http is added as OpenPAI adds it.
  REQUIRE(t->spec.job.roles[0].ports.size() == 3);
  CHECK(t->spec.job.roles[0].ports[0].label == "http");
  CHECK(t->spec.job.roles[0].ports[0].count == 1);
  CHECK(t->spec.job.roles[0].ports[1].label == "serve");
  CHECK(t->spec.job.roles[0].ports[1].count == 1);
  CHECK(t->spec.job.roles[0].ports[2].label == "ssh");
  CHECK(t->spec.job.roles[0].ports[2].count == 2);
}

TEST_CASE("jobRetryCount -2 retries every failure without limit") {
  auto t = translate(
      "protocolVersion: 2\nname: x\njobRetryCount: -2\ntaskRoles:\n  a:\n    commands: [x]\n");
  CHECK(t->messages() ==
        std::vector<std::string>{
            "warning 3:16 jobRetryCount: jobRetryCount -2 (retry every failure without limit) "
            "becomes faultTolerance.restart.maxRestarts 2147483647 with policy onFailure"});
  CHECK(t->spec.job.fault_tolerance.max_restarts == INT32_MAX);
  CHECK(t->spec.job.fault_tolerance.policy == RestartPolicy::OnFailure);
}

TEST_CASE("jobRetryCount below -2 is an error") {
  auto t = translate(
      "protocolVersion: 2\nname: x\njobRetryCount: -3\ntaskRoles:\n  a:\n    commands: [x]\n");
  CHECK(t->messages() ==
        std::vector<std::string>{
            "error 3:16 jobRetryCount: expected -2, -1 or a number of retries (0 or more), got "
            "-3"});
}

const std::string kSsh =
    "protocolVersion: 2\nname: x\nhosts: [n1, n2]\n"
    "extras:\n  com.microsoft.pai.runtimeplugin:\n"
    "    - {plugin: ssh, parameters: {jobssh: true, sshbarrier: true}}\n"
    "taskRoles:\n  master:\n    commands: [mpirun -H master-0,worker-0 x]\n"
    "  worker:\n    commands: [sleep infinity]\n";

TEST_CASE("the ssh plugin gives every role pai's remote shell agent for mpirun") {
  auto t = translate(kSsh);
  REQUIRE(t->messages().empty());
  const std::vector<std::pair<std::string, std::string>> agent = {
      {"OMPI_MCA_orte_leave_session_attached", "1"},
      {"OMPI_MCA_plm_rsh_agent", "pai-launch rsh"},
      {"OMPI_MCA_plm_rsh_no_tree_spawn", "1"}};
  for (const Role& role : t->spec.job.roles) CHECK(own_env(role) == agent);
}

TEST_CASE("without jobssh the ssh plugin asks nothing") {
  std::string yaml = kSsh;
  yaml.replace(yaml.find("jobssh: true"), 12, "jobssh: false");
  auto t = translate(yaml);
  REQUIRE(t->messages().empty());
  for (const Role& role : t->spec.job.roles) CHECK(own_env(role).empty());
}

TEST_CASE("an mpi job's roles get the agent from the env contract, not from their env") {
  std::string yaml = kSsh;
  yaml.replace(yaml.find("  master:"), 9, "  launcher:");
  auto t = translate(yaml);
  REQUIRE(t->messages().empty());
  CHECK(t->spec.job.framework == Framework::Mpi);
  for (const Role& role : t->spec.job.roles) CHECK(own_env(role).empty());
}

TEST_CASE("two task roles that become the same pai role are an error") {
  auto t = translate(
      "protocolVersion: 2\nname: x\ntaskRoles:\n  a_b:\n    commands: [x]\n"
      "  a-b:\n    commands: [x]\n");
  CHECK(t->messages() ==
        std::vector<std::string>{
            "error 6:3 taskRoles.a-b: task role \"a-b\" becomes role \"a_b\", the name of an "
            "earlier task role's pai role"});
}

TEST_CASE("task roles keep the file's order, the first one the master") {
  auto t = translate(
      "protocolVersion: 2\nname: x\ntaskRoles:\n  worker:\n    commands: [x]\n"
      "  ps:\n    commands: [x]\n");
  REQUIRE_FALSE(t->diags.has_errors());
  REQUIRE(t->spec.job.roles.size() == 2);
  CHECK(t->spec.job.roles[0].name == "worker");
  CHECK(t->spec.job.roles[1].name == "ps");
  CHECK(t->spec.job.master_role == "worker");
}

TEST_CASE("completion takes OpenPAI's defaults: minFailed 1, minSucceeded the instances") {
  auto t = translate(
      "protocolVersion: 2\nname: x\ntaskRoles:\n"
      "  a:\n    instances: 3\n    commands: [x]\n"
      "  b:\n    instances: 2\n"
      "    completion: {minFailedInstances: 0, minSucceededInstances: null}\n"
      "    commands: [x]\n"
      "  c:\n    completion: {minFailedInstances: -1, minSucceededInstances: -1}\n"
      "    commands: [x]\n");
  REQUIRE_FALSE(t->diags.has_errors());
  const auto completion = [&](const char* role) {
    const Completion& c = find_role(t->spec.job, role)->completion;
    return std::pair{c.min_failed, c.min_succeeded};
  };
  CHECK(completion("a") == std::pair{1, 3});
  CHECK(completion("b") == std::pair{1, 2});
  CHECK(completion("c") == std::pair{-1, -1});
}

TEST_CASE("defaults.virtualCluster becomes PAI_VIRTUAL_CLUSTER, and portRange is an extension") {
  auto t = translate(
      "protocolVersion: 2\nname: x\ndefaults: {virtualCluster: vc1}\n"
      "portRange: {min: 30000, max: 30099}\ntaskRoles:\n  a:\n    commands: [x]\n");
  REQUIRE(t->messages().empty());
  CHECK(t->spec.job.port_range_min == 30000);
  CHECK(t->spec.job.port_range_max == 30099);
  CHECK(t->spec.job.roles[0].env ==
        std::vector<std::pair<std::string, std::string>>{{"PAI_DEFAULT_FS_URI", ""},
                                                         {"PAI_VIRTUAL_CLUSTER", "vc1"}});
}

const std::string kCmd =
    "protocolVersion: 2\nname: x\n"                                      // 1-2
    "prerequisites:\n"                                                   // 3
    "  - name: setup\n    type: script\n"                                // 4-5
    "    plugin: com.microsoft.pai.runtimeplugin.cmd\n"                  // 6
    "    callbacks:\n"                                                   // 7
    "      - {event: taskStarts, commands: [apt-get install -y git]}\n"  // 8
    "      - {event: taskFails, commands: [echo failed]}\n"              // 9
    "  - {name: board, type: script, plugin: com.microsoft.pai.runtimeplugin.tensorboard}\n"
    "  - {name: cifar, type: data, uri: [http://d/c.tgz]}\n"                     // 11
    "taskRoles:\n"                                                               // 12
    "  a:\n    data: cifar\n    prerequisites: [setup, board, cifar]\n"          // 13-15
    "    commands: [python train.py]\n"                                          // 16
    "  b:\n    commands: [echo b]\n"                                             // 17-18
    "extras:\n  com.microsoft.pai.runtimeplugin:\n"                              // 19-20
    "    - plugin: cmd\n      taskroles: [a, c]\n      failurePolicy: ignore\n"  // 21-23
    "      parameters:\n"                                                        // 24
    "        preCommands: ['git clone <% $data.uri[0] %>']\n"                    // 25
    "        postCommands: [echo done]\n";                                       // 26

TEST_CASE("the cmd plugin's commands run before and after a task role's, as OpenPAI runs them") {
  auto t = translate(kCmd);
  CHECK(t->messages() ==
        std::vector<std::string>{
            "warning 9:17 prerequisites[0].callbacks[1].event: event \"taskFails\": OpenPAI's "
            "cmd plugin runs only taskStarts and taskSucceeds callbacks, so these commands "
            "never run",
            "warning 22:22 extras.com.microsoft.pai.runtimeplugin[0].taskroles[1]: the cmd "
            "plugin names no task role \"c\" (did you mean \"a\"? defined: a, b)",
            "warning 15:28 1 OpenPAI field is dropped, having no meaning in pai: "
            "taskRoles.a.prerequisites[1] (15:28, prerequisite \"board\"'s plugin "
            "\"com.microsoft.pai.runtimeplugin.tensorboard\")"});
  // The prerequisite's plugin first, then extras'; each in a subshell, as OpenPAI runs each
  // plugin's script with /bin/bash; the post commands after the commands succeeded.
  CHECK(find_role(t->spec.job, "a")->command ==
        bash("# prerequisites[0]\n(\nset +o nounset +o pipefail\nset -o errexit\n"
             "apt-get install -y git\n)\n"
             "# extras.com.microsoft.pai.runtimeplugin[0]\n(\nset +o nounset +o pipefail\n"
             "set +o errexit\ngit clone http://d/c.tgz\nset -o errexit\n)\n"
             "(\npython train.py\n)\n"
             "# extras.com.microsoft.pai.runtimeplugin[0] (after the commands)\n(\n"
             "set +o nounset +o pipefail\nset +o errexit\necho done\nset -o errexit\n)\n"));
  CHECK(find_role(t->spec.job, "b")->command == bash("echo b"));
}

TEST_CASE("a cmd plugin with callbacks and preCommands, or an unknown prerequisite, is an error") {
  auto t = translate(
      "protocolVersion: 2\nname: x\ntaskRoles:\n"
      "  a:\n    prerequisites: [setpu]\n    commands: [x]\n"
      "extras:\n  com.microsoft.pai.runtimeplugin:\n    - plugin: cmd\n      parameters:\n"
      "        callbacks: [{event: taskStarts, commands: [x]}]\n        preCommands: [y]\n");
  CHECK(t->messages() ==
        std::vector<std::string>{
            "error 12:9 extras.com.microsoft.pai.runtimeplugin[0].parameters.preCommands: a cmd "
            "plugin has callbacks or preCommands, not both: OpenPAI's runtime refuses the job",
            "error 5:21 taskRoles.a.prerequisites[0]: no prerequisite is named \"setpu\" (the "
            "file has no prerequisites)"});
}

}  // namespace openpai_protocol_test
