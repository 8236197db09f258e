#include "compiler/spec/framework_rules.h"

#include <catch2/catch.hpp>

#include "compiler/document/yaml_loader.h"
#include "compiler/spec/spec_parser.h"

namespace framework_rules_test {

using namespace pai;

namespace {

// "path: message" of check_framework() on a spec that parses cleanly; warnings start "warning: ".
std::vector<std::string> rules(const std::string& yaml) {
  Diagnostics parse_diags;
  const JobSpec spec = parse_spec(load_yaml("job.yaml", yaml), parse_diags);
  for (const Diagnostic& d : parse_diags.all()) UNSCOPED_INFO(d.message);
  REQUIRE(parse_diags.all().empty());
  Diagnostics diags;
  check_framework(spec, diags);
  std::vector<std::string> out;
  for (const Diagnostic& d : diags.all()) {
    out.push_back(std::string(d.severity == Severity::Warning ? "warning: " : "") + d.path + ": " +
                  d.message);
  }
  return out;
}

const std::string kJob = "apiVersion: pai/v1\nkind: Job\nname: j\nhosts: [a, b, c, d]\n";

}  // namespace

TEST_CASE("megatron: the parallel sizes divide the world size") {
  const std::string roles = "roles: {worker: {instances: 2, nprocPerNode: 8, command: x}}\n";
  CHECK(rules(kJob + "framework: megatron\nmegatron: {tensorParallel: 8, pipelineParallel: 2}\n" +
              roles)
            .empty());
  CHECK(rules(kJob + "framework: megatron\nmegatron: {tensorParallel: 4, pipelineParallel: 3}\n" +
              roles) ==
        std::vector<std::string>{
            "megatron.tensorParallel: tensorParallel 4 x pipelineParallel 3 x contextParallel 1 "
            "= 12 does not divide the world size 16 (worker: 2 x 8 processes): Megatron-LM needs "
            "world size = tensor x pipeline x context x data parallel"});
  CHECK(rules(kJob + "framework: megatron\nmegatron: {contextParallel: 32}\n" + roles) ==
        std::vector<std::string>{
            "megatron.contextParallel: tensorParallel 1 x pipelineParallel 1 x contextParallel "
            "32 = 32 does not divide the world size 16 (worker: 2 x 8 processes): Megatron-LM "
            "needs world size = tensor x pipeline x context x data parallel"});
}

TEST_CASE("megatron: tensor-parallel groups across nodes are a warning") {
  CHECK(rules(kJob + "framework: megatron\nmegatron: {tensorParallel: 4}\n"
                     "roles: {worker: {instances: 4, nprocPerNode: 2, command: x}}\n") ==
        std::vector<std::string>{
            "warning: megatron.tensorParallel: tensorParallel 4 does not divide "
            "roles.worker.nprocPerNode 2: tensor-parallel groups span nodes, whose links are "
            "much slower than NVLink"});
}

TEST_CASE("ray: a head of one instance and workers that take no command") {
  CHECK(rules(kJob + "framework: ray\nroles: {head: {command: x}, worker: {instances: 3}}\n")
            .empty());
  CHECK(rules(kJob + "framework: ray\nroles: {main: {command: x}}\n") ==
        std::vector<std::string>{
            "roles: framework ray needs a role named \"head\": the Ray head, which runs the "
            "entrypoint (its command)",
            "roles.main.command: a Ray worker runs `ray start --address ... --block`, which pai "
            "renders: it takes no command (the head's command is the entrypoint)"});
  CHECK(rules(kJob + "framework: ray\nmasterRole: worker\n"
                     "roles: {head: {instances: 2, nprocPerNode: 2, command: x}, worker: {}}\n") ==
        std::vector<std::string>{
            "roles.head.instances: the Ray head has one instance, got 2",
            "masterRole: the master role of a ray job is its head, not \"worker\"",
            "roles.head.nprocPerNode: a Ray node runs one `ray start` and Ray starts its workers: "
            "nprocPerNode must be 1, got 2 (resources.gpu and resources.cpu give Ray the node's "
            "GPUs and CPUs)"});
}

TEST_CASE("other frameworks have no rules of their own here") {
  CHECK(
      rules(kJob + "framework: jax\nroles: {worker: {instances: 2, nprocPerNode: 3, command: x}}\n")
          .empty());
}

TEST_CASE("masterStore launcher: ranks of torch.distributed, no perNode role") {
  const std::string per_process = "roles: {worker: {instances: 2, nprocPerNode: 4, command: x}}\n";
  CHECK(rules(kJob + "framework: pytorch\nmasterStore: launcher\n" + per_process).empty());
  CHECK(rules(kJob + "masterStore: launcher\n" + per_process).empty());  // custom
  CHECK(rules(kJob + "framework: tensorflow\nmasterStore: launcher\n" + per_process) ==
        std::vector<std::string>{
            "masterStore: masterStore launcher serves torch's TCPStore on MASTER_PORT for ranks "
            "that meet through torch.distributed's env://; framework tensorflow does not"});
  CHECK(rules(kJob + "framework: pytorch\nmasterStore: launcher\n"
                     "roles: {worker: {instances: 2, command: x}}\n") ==
        std::vector<std::string>{
            "roles.worker.envConvention: masterStore launcher: the perNode command (the default "
            "of nprocPerNode 1) may run a torchrun of its own, whose store needs MASTER_PORT; set "
            "envConvention perProcess or torchrun"});
  CHECK(rules(kJob + "framework: pytorch\nmasterStore: launcher\n"
                     "roles: {worker: {instances: 2, envConvention: perProcess, command: x}}\n")
            .empty());
  // The default, rank0, has no rule.
  CHECK(rules(kJob + "framework: tensorflow\nmasterStore: rank0\n"
                     "roles: {worker: {instances: 2, command: x}}\n")
            .empty());
}

TEST_CASE("warmStart: Python roles that exist, module names") {
  const std::string roles =
      "roles:\n"
      "  trainer: {instances: 2, command: [python3, -u, train.py, --lr, '1']}\n"
      "  module: {command: [/usr/bin/python3.11, -m, pkg.train]}\n"
      "  shell: {command: python3 train.py}\n"
      "  odd: {command: [python3, -X, dev, train.py]}\n";
  CHECK(rules(kJob + roles +
              "faultTolerance: {warmStart: {roles: [trainer, module], preload: "
              "[torch, torch.distributed, my_pkg2]}}\n")
            .empty());
  CHECK(rules(kJob + roles + "faultTolerance: {warmStart: {roles: [nobody, shell, odd]}}\n") ==
        std::vector<std::string>{
            "faultTolerance.warmStart.roles[0]: no role is named \"nobody\"",
            "faultTolerance.warmStart.roles[1]: role \"shell\" cannot start warm: the command "
            "does not start with a Python interpreter (python, python3, python3.11, or a path to "
            "one); a container runtime, a shell or a wrapper script cannot be forked warm (give "
            "the command as a list: [python3, train.py, ...])",
            "faultTolerance.warmStart.roles[2]: role \"odd\" cannot start warm: the interpreter "
            "option -X is not one a warm interpreter can honour (only -u, -B and -m are) (give "
            "the command as a list: [python3, train.py, ...])"});
  CHECK(rules(kJob + roles +
              "faultTolerance: {warmStart: {roles: [trainer], preload: [torch, 'my-pkg', "
              "'a..b']}}\n") ==
        std::vector<std::string>{
            "faultTolerance.warmStart.preload[1]: \"my-pkg\" is not a Python module name (like "
            "torch or torch.distributed)",
            "faultTolerance.warmStart.preload[2]: \"a..b\" is not a Python module name (like "
            "torch or torch.distributed)"});
  CHECK(rules(kJob + "runtime: docker\nimage: x\n" + roles +
              "faultTolerance: {warmStart: {roles: [trainer]}}\n") ==
        std::vector<std::string>{
            "faultTolerance.warmStart.roles[0]: role \"trainer\" cannot start warm: runtime "
            "docker starts each rank through its container's wrapper, which cannot be forked "
            "warm; warm starts need runtime host"});
  CHECK(rules(kJob + roles + "faultTolerance: {warmStart: {preload: [torch]}}\n") ==
        std::vector<std::string>{"faultTolerance.warmStart.roles: warmStart preloads modules but "
                                 "names no role to start warm"});
}

}  // namespace framework_rules_test
