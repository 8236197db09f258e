#include "launcher/supervisor/latest_checkpoint.h"

#include <catch2/catch.hpp>
#include <filesystem>

#include "launcher/launcher_harness.h"

namespace latest_checkpoint_test {

using pai::launcher::latest_checkpoint;
using pai::testing::spit;
using pai::testing::TempDir;

namespace {

// A complete checkpoint of `step` under `out`, as pai.checkpoint leaves it.
void complete(const TempDir& out, int step) {
  const std::string dir = out / ("checkpoints/step-" + std::to_string(step));
  std::filesystem::create_directories(dir);
  spit(dir + "/meta.json", "{\"step\": " + std::to_string(step) + "}\n");
  spit(dir + "/state.pt", "...");
}

}  // namespace

TEST_CASE("the checkpoint latest names is found when it is complete") {
  TempDir out;
  CHECK(latest_checkpoint(out.path()).empty());  // no checkpoint yet
  complete(out, 100);
  complete(out, 200);
  spit(out / "checkpoints/latest", "step-200\n");
  CHECK(latest_checkpoint(out.path()) == out / "checkpoints/step-200");
  CHECK(latest_checkpoint("").empty());
  CHECK(latest_checkpoint("relative/out").empty());
}

TEST_CASE("a pointer to something partial - missing or not ours yields no checkpoint") {
  TempDir out;
  complete(out, 100);
  // A folder still being written (no meta.json) is never named.
  std::filesystem::create_directories(out / "checkpoints/step-300");
  for (const std::string& pointer : std::vector<std::string>{
           "step-300\n", "step-400\n", "../../etc\n", "step-\n", "step-1x\n", "",
        "step-100\nstep-200\n", std::string(1000, 'a')}) {
    INFO(pointer);
    spit(out / "checkpoints/latest", pointer);
    CHECK(latest_checkpoint(out.path()).empty());
  }
  std::filesystem::remove(out / "checkpoints/latest");
  std::filesystem::create_directories(out / "checkpoints/latest");
  CHECK(latest_checkpoint(out.path()).empty());
}

}  // namespace latest_checkpoint_test
