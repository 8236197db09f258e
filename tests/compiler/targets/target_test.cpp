#include "compiler/targets/target.h"

#include <catch2/catch.hpp>

#include "libpai/plan_json.h"
#include "support/plan_fixture.h"
#include "support/temp_dir.h"

namespace target_test {

namespace fs = std::filesystem;

namespace {

// A target that overrides nothing it need not.
class NamedOnly final : public pai::Target {
 public:
  std::string_view name() const override { return "named-only"; }
};

}  // namespace

TEST_CASE("a target's defaults keep the spec's hosts, check nothing, and write nothing") {
  const NamedOnly target;
  pai::JobSpec spec;
  spec.job = pai::testing::make_test_plan();
  const std::string spec_before = pai::plan_to_json_unkeyed(spec.job);
  pai::Diagnostics diags;
  CHECK_FALSE(target.replace_inventory(spec, diags));
  CHECK(pai::plan_to_json_unkeyed(spec.job) == spec_before);

  pai::Plan plan = pai::testing::make_test_plan();
  plan.image.clear();  // which the Kubernetes target would warn about
  target.check_plan(plan, spec, diags);
  CHECK(diags.all().empty());

  const std::string plan_before = pai::plan_to_json_unkeyed(plan);
  target.adapt_plan(plan);
  CHECK(pai::plan_to_json_unkeyed(plan) == plan_before);

  pai::testing::TempDir dir;
  target.write_files(plan, dir.path(), "out");
  CHECK(fs::is_empty(dir.path()));
}

}  // namespace target_test
