// `pai-launch drill-burn` (a drill's slow-gpu) on the fake libcuda and cuBLASLt
// (tests/launcher/checks/fixtures: built from the driver API's documented calls, no GPU here),
// found by the loader as a real node would find the real ones, through LD_LIBRARY_PATH.
#include "launcher/commands/drill_burn_command.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "launcher/checks/burn_kernel_image.h"
#include "launcher/checks/fake_env.h"
#include "launcher/checks/test_plan.h"
#include "launcher/launcher_harness.h"

namespace drill_burn_command_test {

using pai::checks::kBurnKernelImageSize;
using pai::launcher::drill_burn_command;
using pai::testing::run_launcher;
using pai::testing::TempDir;
namespace fake = pai::checks::test;

// A folder holding libcuda.so.1 and libcublasLt.so.13 as links to the fakes, set as
// LD_LIBRARY_PATH with `gpus` for the fake driver while it lives.
struct FakeNode {
  TempDir libs;
  fake::FakeCudaEnv cuda;
  fake::FakeEnv kernels{"PAI_FAKE_CUDA_KERNELS", "1"};
  fake::FakeEnv path;
  explicit FakeNode(const char* gpus) : cuda(gpus), path("LD_LIBRARY_PATH", libs.path().c_str()) {
    std::filesystem::create_symlink(fake::kFakeCuda, libs / "libcuda.so.1");
    std::filesystem::create_symlink(fake::kFakeCublasLt, libs / "libcublasLt.so.13");
  }
};

TEST_CASE("drill-burn refuses malformed arguments with 2") {
  CHECK(drill_burn_command({}) == 2);
  CHECK(drill_burn_command({"1"}) == 2);
  CHECK(drill_burn_command({"-1", "5"}) == 2);
  CHECK(drill_burn_command({"1", "0"}) == 2);
  CHECK(drill_burn_command({"1", "3661"}) == 2);
  CHECK(drill_burn_command({"1", "99999999999999999999"}) == 2);
  CHECK(drill_burn_command({"x", "5"}) == 2);
  CHECK(drill_burn_command({"1", "5", fake::kMissingLibrary, "extra"}) == 2);
}

TEST_CASE("drill-burn without a CUDA driver says so and exits 1 without burning") {
  TempDir dir;
  const auto run = run_launcher(dir, {"drill-burn", "0", "5", fake::kMissingLibrary});
  CHECK(run.code == 1);
  CHECK(run.out.empty());
  if (kBurnKernelImageSize == 0) {
    CHECK(run.err == "pai-launch drill-burn: built without GPU kernels\n");
  } else {
    CHECK(run.err.starts_with("pai-launch drill-burn: no CUDA driver ("));
  }
}

TEST_CASE("drill-burn of a GPU the node does not have names it and exits 1") {
  if (kBurnKernelImageSize == 0) {
    WARN("built without GPU kernels: drill-burn cannot burn");
    return;
  }
  FakeNode node("NVIDIA H100 80GB HBM3");
  TempDir dir;
  const auto run = run_launcher(dir, {"drill-burn", "1", "5"});
  CHECK(run.code == 1);
  CHECK(run.out.empty());
  CHECK(run.err == "pai-launch drill-burn: no GPU 1 on this node (1 GPUs)\n");
}

TEST_CASE("drill-burn says it burns the GPU once its first GEMMs ran and burns its seconds") {
  if (kBurnKernelImageSize == 0) {
    WARN("built without GPU kernels: drill-burn cannot burn");
    return;
  }
  FakeNode node("NVIDIA H100 80GB HBM3;NVIDIA H100 80GB HBM3");
  TempDir dir;
  const auto run = run_launcher(dir, {"drill-burn", "1", "2"});
  INFO(run.err);
  CHECK(run.code == 0);
  CHECK(run.out == "burning GPU 1 (NVIDIA H100 80GB HBM3) for 2 s\n");
  CHECK(run.seconds >= 1.9);
  CHECK(run.seconds < 10);
}

TEST_CASE("drill-burn whose GPU cannot run its kernels says why") {
  if (kBurnKernelImageSize == 0) {
    WARN("built without GPU kernels: drill-burn cannot burn");
    return;
  }
  FakeNode node("NVIDIA H100 80GB HBM3");
  fake::FakeEnv no_kernels("PAI_FAKE_CUDA_KERNELS", "0");  // modules never load
  TempDir dir;
  const auto run = run_launcher(dir, {"drill-burn", "0", "5"});
  CHECK(run.code == 1);
  CHECK(run.out.empty());
  CHECK(run.err.starts_with("pai-launch drill-burn: GPU 0: "));
  CHECK(run.err.find("cannot load the burn kernels") != std::string::npos);
  CHECK(run.err.find("CUDA_ERROR_NO_BINARY_FOR_GPU") != std::string::npos);
}

}  // namespace drill_burn_command_test
