#include "compiler/commands/targets.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace targets_test {

TEST_CASE("the targets are bare, k8s and slurm, in the order --target numbers them") {
  std::vector<std::string> names;
  for (const pai::Target* target : pai::all_targets()) names.emplace_back(target->name());
  CHECK(names == std::vector<std::string>{"bare", "k8s", "slurm"});
}

TEST_CASE("find_target finds a target by its exact name - and nothing else") {
  for (const pai::Target* target : pai::all_targets()) {
    CHECK(pai::find_target(target->name()) == target);
  }
  CHECK(pai::find_target("K8S") == nullptr);
  CHECK(pai::find_target("kubernetes") == nullptr);
  CHECK(pai::find_target("") == nullptr);
}

}  // namespace targets_test
