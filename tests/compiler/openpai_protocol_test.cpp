#include "compiler/openpai_protocol.h"

#include <catch2/catch.hpp>

#include "compiler/spec_parser.h"
#include "compiler/yaml_loader.h"

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

// Translates `yaml` and, when that has no errors, parses the result as pai-compile does.
std::unique_ptr<Translated> translate(const std::string& yaml) {
  auto t = std::make_unique<Translated>();
  t->doc = translate_openpai(load_yaml("job.yaml", yaml), t->diags);
  if (!t->diags.has_errors()) t->spec = parse_spec(t->doc, t->diags);
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
  CHECK(role.command == std::vector<std::string>{"/bin/sh", "-c", "cd /work\npython train.py"});
  CHECK(role.resources.gpu == 8);
  CHECK(role.resources.cpu == 16);
  CHECK(role.resources.memory_bytes == 4096l << 20);
  CHECK(role.resources.shm_bytes == 64l << 20);
  CHECK(role.completion.min_failed == -1);
  CHECK(role.completion.min_succeeded == 1);
  REQUIRE(role.ports.size() == 1);
  CHECK(role.ports[0].label == "http");
  CHECK(role.ports[0].count == 2);
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
  CHECK(t->spec.job.roles[0].command[2] == "run --lr 0.1 --k abc");
  CHECK(t->messages() ==
        std::vector<std::string>{
            "warning 4:1 secrets: secrets become parameters: their values are written in clear "
            "text into the commands in plan.json and roles/*.json like any parameter; keep the "
            "output folder private"});
}

TEST_CASE("undefined and unsupported templates are errors at the template") {
  auto t = translate(
      "protocolVersion: 2\nname: x\nparameters: {lr: 0.1}\n"
      "taskRoles:\n  a:\n    commands:\n      - run <% $parameters.lrr %> <% $script.uri %>\n");
  CHECK(t->messages() ==
        std::vector<std::string>{
            "error 7:13 taskRoles.a.commands[0]: undefined parameter \"lrr\" in "
            "<% $parameters.lrr %> (did you mean \"lr\"? defined: lr)",
            "error 7:35 taskRoles.a.commands[0]: unsupported OpenPAI template <% $script.uri %>: "
            "only <% $parameters.NAME %> and <% $secrets.NAME %> are translated"});
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

TEST_CASE("fields without a meaning in pai are located warnings") {
  auto t = translate(
      "protocolVersion: 2\nname: x\ndefaults: {virtualCluster: vc1}\n"
      "extras: {hivedScheduler: {}}\ntaskRoles:\n  a:\n    commands: [echo hi]\n");
  CHECK(t->messages() ==
        std::vector<std::string>{
            "warning 3:12 defaults.virtualCluster: ignored: defaults.virtualCluster has no "
            "meaning in pai (the hosts come from --hosts or hosts)",
            "warning 4:10 extras.hivedScheduler: ignored: extras.hivedScheduler has no meaning "
            "in pai"});
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
