#include "compiler/targets/slurm/slurm_target.h"

#include <catch2/catch.hpp>
#include <filesystem>

#include "compiler/targets/slurm/slurm_script.h"
#include "libpai/plan_json.h"
#include "support/plan_fixture.h"
#include "support/temp_dir.h"

namespace slurm_target_test {

namespace fs = std::filesystem;

TEST_CASE("the Slurm target replaces the spec's hosts with the allocation's placeholders") {
  const pai::SlurmTarget slurm;
  CHECK(slurm.name() == "slurm");
  pai::JobSpec spec;
  spec.job = pai::testing::make_test_plan();
  pai::Diagnostics diags;
  CHECK(slurm.replace_inventory(spec, diags));
  CHECK(spec.job.inventory == pai::Inventory::Slurm);
  REQUIRE(spec.job.hosts.size() == 3);
  CHECK(spec.job.hosts[2].name == "slurm-2");
  // The spec's hosts and spares are not used: a warning each.
  REQUIRE(diags.all().size() == 2);
  CHECK(diags.all()[0].path == "hosts");
  CHECK(diags.all()[1].path == "spares");
  CHECK_FALSE(diags.has_errors());
}

TEST_CASE("the Slurm target keeps the plan and writes job.sbatch and logs/") {
  const pai::SlurmTarget slurm;
  pai::Plan plan = pai::testing::make_test_plan();
  const std::string before = pai::plan_to_json_unkeyed(plan);
  pai::JobSpec spec;
  spec.job = plan;
  pai::Diagnostics diags;
  slurm.check_plan(plan, spec, diags);
  slurm.adapt_plan(plan);
  CHECK(diags.all().empty());
  CHECK(pai::plan_to_json_unkeyed(plan) == before);
  pai::testing::TempDir dir;
  slurm.write_files(plan, dir.path(), "/jobs/out");
  CHECK(pai::testing::slurp(dir / "job.sbatch") == pai::render_slurm_script(plan, "/jobs/out"));
  CHECK((fs::status(dir / "job.sbatch").permissions() & fs::perms::owner_exec) != fs::perms::none);
  CHECK(fs::is_directory(dir / "logs"));
  CHECK(fs::is_empty(dir / "logs"));
}

TEST_CASE("the Slurm target checks the segment and runs a container's plan on the host runtime") {
  const pai::SlurmTarget slurm;
  pai::Plan plan = pai::testing::make_test_plan(2, 1);  // workers, ps, spare: 2 + 1 + 1 nodes
  plan.slurm.segment = 2;
  pai::JobSpec spec;
  spec.job = plan;
  spec.locations["slurm.segment"] = pai::Location{"job.yaml", 7, 12};
  pai::Diagnostics diags;
  slurm.check_plan(plan, spec, diags);
  REQUIRE(diags.error_count() == 2);  // ps' and the spare's components
  CHECK(diags.all()[0].loc.line == 7);
  plan.slurm.container.image = "img";
  plan.runtime = pai::Runtime::Apptainer;
  slurm.adapt_plan(plan);
  CHECK(plan.runtime == pai::Runtime::Host);
}

}  // namespace slurm_target_test
