#include "compiler/spec/framework_parser.h"

#include <catch2/catch.hpp>

#include "compiler/document/yaml_loader.h"
#include "compiler/spec/spec_parser.h"

namespace framework_parser_test {

using namespace pai;

namespace {

const std::string kJob = "apiVersion: pai/v1\nkind: Job\nname: j\nhosts: [a, b]\n";

// Diagnostics of parse_spec() as "line:col: path: message".
std::vector<std::string> errors(const std::string& yaml, JobSpec* out = nullptr) {
  Diagnostics diags;
  JobSpec spec = parse_spec(load_yaml("job.yaml", yaml), diags);
  std::vector<std::string> lines;
  for (const Diagnostic& d : diags.all()) {
    lines.push_back(std::to_string(d.loc.line) + ":" + std::to_string(d.loc.column) + ": " +
                    d.path + ": " + d.message);
  }
  if (out) *out = std::move(spec);
  return lines;
}

}  // namespace

TEST_CASE("megatron's parallel sizes") {
  JobSpec spec;
  CHECK(errors(kJob + "framework: megatron\n"
                      "megatron: {tensorParallel: 4, pipelineParallel: 2, contextParallel: 2}\n"
                      "roles: {worker: {command: x}}\n",
               &spec)
            .empty());
  CHECK(spec.job.megatron == Megatron{4, 2, 2});
  CHECK(errors(kJob + "framework: megatron\nmegatron: {tensorParallel: 0, dataParallel: 2}\n"
                      "roles: {worker: {command: x}}\n") ==
        std::vector<std::string>{
            "6:31: megatron: unknown key \"dataParallel\"",
            "6:28: megatron.tensorParallel: expected an integer between 1 and 65536, got 0"});
}

TEST_CASE("a framework's section under another framework is an error at its key") {
  CHECK(errors(kJob + "framework: pytorch\nmegatron: {tensorParallel: 2}\n"
                      "roles: {worker: {command: x}}\n") ==
        std::vector<std::string>{
            "6:11: megatron: megatron is for framework megatron (the framework is pytorch)"});
  CHECK(errors(kJob + "ray: {entrypoint: submit}\nroles: {head: {command: x}}\n") ==
        std::vector<std::string>{"5:6: ray: ray is for framework ray (the framework is custom)"});
}

TEST_CASE("ray's entrypoint, and workers without a command") {
  JobSpec spec;
  CHECK(errors(kJob + "framework: ray\nray: {entrypoint: submit}\n"
                      "roles: {head: {command: python drive.py}, worker: {instances: 1}}\n",
               &spec)
            .empty());
  CHECK(spec.ray.submit);
  CHECK(spec.job.master_role == "head");
  CHECK(spec.job.roles.front().name == "head");
  CHECK(spec.job.roles.back().command.empty());
  CHECK(errors(kJob + "framework: ray\nray: {entrypoint: job}\nroles: {head: {command: x}}\n") ==
        std::vector<std::string>{
            "6:19: ray.entrypoint: expected one of driver, submit, got \"job\""});
  // The head runs the entrypoint: its command is required.
  CHECK(errors(kJob + "framework: ray\nroles: {head: {instances: 1}}\n") ==
        std::vector<std::string>{"6:9: roles.head: missing required field \"command\""});
}

}  // namespace framework_parser_test
