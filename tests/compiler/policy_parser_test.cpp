#include "compiler/policy_parser.h"

#include <catch2/catch.hpp>

#include "compiler/yaml_loader.h"

using namespace pai;

TEST_CASE("the built-in checks in run order") {
  CHECK(builtin_check_names() ==
        std::vector<std::string>{"gpu", "burn", "nccl", "network", "mounts", "disk"});
}

TEST_CASE("parse_fault_tolerance keeps AIMaster defaults for unwritten fields") {
  Diagnostics diags;
  std::map<std::string, Location> locations;
  FieldReader reader(diags, locations);
  FaultTolerance ft;
  parse_fault_tolerance(load_yaml("job.yaml", "policy: never\nhang: {interval: 1h}\n").root,
                        "faultTolerance", reader, &ft);
  CHECK(diags.all().empty());
  CHECK(ft.policy == RestartPolicy::Never);
  CHECK(ft.hang.interval_seconds == 3600);
  CHECK(ft.hang.exit_interval_seconds == 600);
  CHECK(ft.max_restarts == 3);
  CHECK(ft.backoff_seconds == 10);
  CHECK(ft.max_same_error == 10);
  CHECK(ft.max_tolerated_failure_rate == -1);
  CHECK(ft.grace_period_seconds == 30);
  CHECK(locations.at("faultTolerance.hang.interval").line == 2);
}

TEST_CASE("parse_fault_tolerance points misplaced keys to their section") {
  Diagnostics diags;
  std::map<std::string, Location> locations;
  FieldReader reader(diags, locations);
  FaultTolerance ft;
  parse_fault_tolerance(load_yaml("job.yaml", "interval: 1h\nbackof: 5s\n").root,
                        "faultTolerance", reader, &ft);
  REQUIRE(diags.all().size() == 2);
  CHECK(diags.all()[0].message == "unknown key \"interval\" (did you mean \"hang.interval\"?)");
  CHECK(diags.all()[1].message == "unknown key \"backof\" (did you mean \"restart.backoff\"?)");
  CHECK(ft.hang.interval_seconds == 1800);
}

TEST_CASE("parse_sanity_check reads custom checks with parameters and defaults") {
  Diagnostics diags;
  std::map<std::string, Location> locations;
  FieldReader reader(diags, locations);
  SanityCheck sc;
  sc.checks = builtin_check_names();
  parse_sanity_check(
      load_yaml("job.yaml", "custom: [{name: ib, command: \"check ${parameters.hca}\"}]\n").root,
      "sanityCheck", {{"hca", "mlx5_0"}}, reader, &sc);
  CHECK(diags.all().empty());
  CHECK(sc.checks.size() == 6);
  REQUIRE(sc.custom.size() == 1);
  CHECK(sc.custom[0].name == "ib");
  CHECK(sc.custom[0].command == "check mlx5_0");
  CHECK(sc.custom[0].timeout_seconds == 60);
}
