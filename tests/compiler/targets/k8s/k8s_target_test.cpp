#include "compiler/targets/k8s/k8s_target.h"

#include <catch2/catch.hpp>
#include <filesystem>

#include "compiler/targets/k8s/k8s_manifest.h"
#include "libpai/plan_json.h"
#include "support/plan_fixture.h"
#include "support/temp_dir.h"

namespace k8s_target_test {

namespace fs = std::filesystem;

TEST_CASE("the Kubernetes target keeps the spec's hosts and checks the plan for pods") {
  const pai::KubernetesTarget k8s;
  CHECK(k8s.name() == "k8s");
  pai::JobSpec spec;
  spec.job = pai::testing::make_test_plan();
  pai::Diagnostics diags;
  CHECK_FALSE(k8s.replace_inventory(spec, diags));
  CHECK(spec.job.hosts[0].name == "node-0");
  pai::Plan plan = pai::testing::make_test_plan();
  k8s.check_plan(plan, spec, diags);
  CHECK(diags.all().empty());
  plan.image.clear();
  k8s.check_plan(plan, spec, diags);
  REQUIRE(diags.all().size() == 1);
  CHECK(diags.all()[0].severity == pai::Severity::Warning);
  CHECK(diags.all()[0].path == "image");
}

TEST_CASE("the Kubernetes target runs the plan in pods and writes k8s/job.yaml alone") {
  const pai::KubernetesTarget k8s;
  pai::Plan plan = pai::testing::make_test_plan();
  k8s.adapt_plan(plan);
  CHECK(pai::plan_to_json_unkeyed(plan) ==
        pai::plan_to_json_unkeyed(pai::plan_for_pods(pai::testing::make_test_plan())));
  CHECK(plan.placements[0].host.name == "test-job-node-0-0");  // Trainer v2, the default
  pai::testing::TempDir dir;
  k8s.write_files(plan, dir.path(), "out");
  CHECK(pai::testing::slurp(dir / "k8s/job.yaml") == pai::render_k8s_manifest(plan));
  std::size_t entries = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir.path())) {
    entries += entry.path() != fs::path(dir / "k8s") ? 1 : 0;
  }
  CHECK(entries == 1);
}

}  // namespace k8s_target_test
