#include "compiler/plan/planner.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "support/plan_fixture.h"

namespace planner_test {

namespace {

pai::JobSpec make_spec() {
  pai::JobSpec spec;
  spec.job = pai::testing::make_test_plan();
  spec.job.compiler.clear();
  spec.job.placements.clear();
  spec.locations["hosts"] = pai::Location{"job.yaml", 10, 1};
  spec.locations["portRange"] = pai::Location{"job.yaml", 5, 3};
  spec.locations["roles"] = pai::Location{"job.yaml", 20, 1};
  return spec;
}

}  // namespace

TEST_CASE("make_plan names the compiler - places every instance and keeps host commands") {
  pai::Diagnostics diags;
  const pai::Plan plan = pai::make_plan(make_spec(), diags);
  CHECK_FALSE(diags.has_errors());
  CHECK(plan.compiler == std::string("pai-compile ") + PAI_VERSION);
  REQUIRE(plan.placements.size() == 3);
  CHECK(plan.placements[2].role == "ps");
  CHECK(plan.placements[2].host.name == "node-2");
  CHECK(plan.world_size == 5);
  CHECK(plan.nodes == 3);
  CHECK(plan.roles[0].launch_argv == std::vector<std::string>{"python", "train.py"});
}

TEST_CASE("make_plan wraps each role's command for its container runtime") {
  pai::JobSpec spec = make_spec();
  spec.job.runtime = pai::Runtime::Docker;
  pai::Diagnostics diags;
  const pai::Plan plan = pai::make_plan(spec, diags);
  CHECK_FALSE(diags.has_errors());
  for (const pai::Role& role : plan.roles) {
    REQUIRE(role.launch_argv.size() > role.command.size() + 2);
    CHECK(role.launch_argv[0] == "docker");
    CHECK(std::vector<std::string>(role.launch_argv.end() - role.command.size(),
                                   role.launch_argv.end()) == role.command);
  }
  CHECK(plan.roles[0].command == std::vector<std::string>{"python", "train.py"});
}

TEST_CASE("make_plan reports too few hosts at the hosts field") {
  pai::JobSpec spec = make_spec();
  spec.job.hosts.resize(2);
  pai::Diagnostics diags;
  pai::make_plan(spec, diags);
  REQUIRE(diags.all().size() == 1);
  const pai::Diagnostic& d = diags.all()[0];
  CHECK(d.severity == pai::Severity::Error);
  CHECK(d.path == "hosts");
  CHECK(d.loc.file == "job.yaml");
  CHECK(d.loc.line == 10);
  CHECK(d.message == "need 3 hosts for the instances of all roles, have 2");
}

TEST_CASE("make_plan reports an exhausted port range at portRange") {
  pai::JobSpec spec = make_spec();
  spec.job.port_range_min = 20000;
  spec.job.port_range_max = 20001;
  pai::Diagnostics diags;
  pai::make_plan(spec, diags);
  REQUIRE(diags.all().size() == 1);
  const pai::Diagnostic& d = diags.all()[0];
  CHECK(d.path == "portRange");
  CHECK(d.loc.line == 5);
  CHECK(d.loc.column == 3);
  CHECK(d.message == "port range 20000-20001 exhausted on host node-0");
}

TEST_CASE("make_plan reports an unknown coordinator host at coordinator.host") {
  pai::JobSpec spec = make_spec();
  spec.job.coordinator_host = "elsewhere";
  spec.locations["coordinator.host"] = pai::Location{"job.yaml", 7, 9};
  pai::Diagnostics diags;
  pai::make_plan(spec, diags);
  REQUIRE(diags.all().size() == 1);
  CHECK(diags.all()[0].path == "coordinator.host");
  CHECK(diags.all()[0].loc.line == 7);
  CHECK(diags.all()[0].message == "coordinator host \"elsewhere\" is not in the inventory");
}

}  // namespace planner_test
