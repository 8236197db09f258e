#include "libpai/plan.h"

#include <catch2/catch.hpp>
#include <string>

#include "support/plan_fixture.h"

namespace plan_test {

TEST_CASE("enums are spelled as in the job spec") {
  using std::string;
  CHECK(string(pai::to_string(pai::Runtime::Host)) == "host");
  CHECK(string(pai::to_string(pai::Runtime::Docker)) == "docker");
  CHECK(string(pai::to_string(pai::Runtime::Apptainer)) == "apptainer");
  CHECK(string(pai::to_string(pai::Framework::PyTorch)) == "pytorch");
  CHECK(string(pai::to_string(pai::Framework::Mpi)) == "mpi");
  CHECK(string(pai::to_string(pai::Framework::TensorFlow)) == "tensorflow");
  CHECK(string(pai::to_string(pai::Framework::DeepSpeed)) == "deepspeed");
  CHECK(string(pai::to_string(pai::Framework::Custom)) == "custom");
  CHECK(string(pai::to_string(pai::FabricType::None)) == "none");
  CHECK(string(pai::to_string(pai::FabricType::Roce)) == "roce");
  CHECK(string(pai::to_string(pai::FabricType::Ib)) == "ib");
  CHECK(string(pai::to_string(pai::FabricType::Ethernet)) == "ethernet");
  CHECK(string(pai::to_string(pai::EnvConvention::PerProcess)) == "perProcess");
  CHECK(string(pai::to_string(pai::EnvConvention::PerNode)) == "perNode");
  CHECK(string(pai::to_string(pai::FaultToleranceMode::Sync)) == "sync");
  CHECK(string(pai::to_string(pai::FaultToleranceMode::Async)) == "async");
  CHECK(string(pai::to_string(pai::RestartPolicy::ExitCodeAndErrorMsg)) == "exitCodeAndErrorMsg");
  CHECK(string(pai::to_string(pai::RestartPolicy::ExitCode)) == "exitCode");
  CHECK(string(pai::to_string(pai::RestartPolicy::OnFailure)) == "onFailure");
  CHECK(string(pai::to_string(pai::RestartPolicy::Never)) == "never");
  CHECK(string(pai::to_string(pai::Inventory::Static)) == "static");
  CHECK(string(pai::to_string(pai::Inventory::Slurm)) == "slurm");
}

TEST_CASE("find_placement and find_role look up by name") {
  pai::Plan plan = pai::testing::make_test_plan(3, 2);
  REQUIRE(pai::find_placement(plan, "worker", 2) != nullptr);
  CHECK(pai::find_placement(plan, "worker", 2)->node_rank == 2);
  REQUIRE(pai::find_placement(plan, "ps", 0) != nullptr);
  CHECK(pai::find_placement(plan, "ps", 0)->node_rank == 3);
  CHECK(pai::find_placement(plan, "ps", 1) == nullptr);
  CHECK(pai::find_placement(plan, "worker", -1) == nullptr);
  CHECK(pai::find_placement(plan, "nope", 0) == nullptr);
  REQUIRE(pai::find_role(plan, "ps") != nullptr);
  CHECK(pai::find_role(plan, "ps")->nproc_per_node == 1);
  CHECK(pai::find_role(plan, "nope") == nullptr);

  // A hand-ordered plan still answers correctly.
  std::swap(plan.placements[0], plan.placements[3]);
  REQUIRE(pai::find_placement(plan, "ps", 0) != nullptr);
  CHECK(pai::find_placement(plan, "ps", 0)->role == "ps");
  CHECK(pai::find_placement(plan, "worker", 0)->index == 0);
}

}  // namespace plan_test
