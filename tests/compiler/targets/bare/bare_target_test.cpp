#include "compiler/targets/bare/bare_target.h"

#include <catch2/catch.hpp>

#include "libpai/plan_json.h"
#include "support/plan_fixture.h"
#include "support/temp_dir.h"

namespace bare_target_test {

TEST_CASE("the bare target runs the plan on the spec's hosts and adds no files") {
  const pai::BareTarget bare;
  CHECK(bare.name() == "bare");
  pai::JobSpec spec;
  spec.job = pai::testing::make_test_plan();
  pai::Diagnostics diags;
  CHECK_FALSE(bare.replace_inventory(spec, diags));
  CHECK(spec.job.hosts.size() == 3);
  CHECK(spec.job.hosts[0].name == "node-0");

  pai::Plan plan = pai::testing::make_test_plan();
  const std::string before = pai::plan_to_json_unkeyed(plan);
  bare.check_plan(plan, spec, diags);
  bare.adapt_plan(plan);
  CHECK(pai::plan_to_json_unkeyed(plan) == before);
  CHECK(diags.all().empty());
  pai::testing::TempDir dir;
  bare.write_files(plan, dir.path(), "out");
  CHECK(std::filesystem::is_empty(dir.path()));
}

}  // namespace bare_target_test
