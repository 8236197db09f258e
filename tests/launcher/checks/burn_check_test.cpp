#include "launcher/checks/burn_check.h"

#include <catch2/catch.hpp>
#include <cstring>
#include <functional>

#include "fake_env.h"
#include "launcher/checks/burn_kernel_image.h"
#include "test_plan.h"

namespace burn_check_test {

using namespace pai::checks;
using test::FakeCudaEnv;
using test::FakeEnv;

namespace {

const char* const kFourH100 =
    "NVIDIA H100 80GB HBM3;NVIDIA H100 80GB HBM3;NVIDIA H100 80GB HBM3;NVIDIA H100 80GB HBM3";

// GPUs whose kernels "run" (fake libcuda, PAI_FAKE_CUDA_KERNELS=1) and that NVML sees (fake
// NVML, one GPU per utilization entry).
struct FakeGpus {
  FakeCudaEnv cuda;
  FakeEnv kernels{"PAI_FAKE_CUDA_KERNELS", "1"};
  FakeEnv nvml;
  explicit FakeGpus(const char* names = kFourH100, const char* nvml_gpus = "0,0,0,0")
      : cuda(names), nvml("PAI_FAKE_NVML_UTILIZATION", nvml_gpus) {}
};

CheckOptions fake_options() {
  CheckOptions options;
  options.cuda_library = test::kFakeCuda;
  options.nvml_library = test::kFakeNvml;
  options.burn.cublaslt_libraries = {test::kFakeCublasLt};
  options.burn.health_interval_seconds = 0.05;
  return options;
}

CheckResult burn(const CheckOptions& options, int gpus = 4,
                 const std::function<void(pai::SanityCheck&)>& settings = {}) {
  pai::Plan plan = test::one_node_plan(gpus);
  plan.sanity_check.burn_seconds = 1;
  if (settings) settings(plan.sanity_check);
  return run_burn_check(plan, options, 60);
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("the burn kernels are embedded as a CUDA fatbin - or the burn says they are not") {
  if (kBurnKernelImageSize == 0) {
    CheckResult r = run_burn_check(test::one_node_plan(8), CheckOptions{}, 20);
    CHECK(r.status == CheckResult::Skipped);
    CHECK(r.summary == "built without GPU kernels");
    return;
  }
  REQUIRE(kBurnKernelImageSize > 16);
  std::uint32_t magic = 0;
  std::memcpy(&magic, kBurnKernelImage, sizeof magic);
  CHECK(magic == 0xBA55ED50u);  // fatbin header magic
  std::string image(reinterpret_cast<const char*>(kBurnKernelImage), kBurnKernelImageSize);
  CHECK(image.find("pai_burn_gemm") != std::string::npos);
  CHECK(image.find("pai_burn_fill_bf16") != std::string::npos);
  CHECK(image.find("pai_burn_fill_fp8") != std::string::npos);
  CHECK(image.find("sm_90") != std::string::npos);
}

TEST_CASE("without a CUDA driver the burn is skipped with the reason") {
  pai::Plan plan = test::one_node_plan(8);
  CheckOptions options;
  options.cuda_library = test::kMissingLibrary;
  CheckResult r = run_burn_check(plan, options, 20);
  CHECK(r.name == "burn");
  CHECK(r.status == CheckResult::Skipped);
  CHECK(r.summary == (kBurnKernelImageSize == 0
                          ? "built without GPU kernels"
                          : "no CUDA driver (" + test::kMissingLibrary +
                                ": cannot open shared object file: No such file or directory)"));
}

TEST_CASE("GPUs that cannot load the kernels fail the burn") {
  if (kBurnKernelImageSize == 0) return;  // nothing to load; covered by the first test
  FakeCudaEnv env("NVIDIA H100 80GB HBM3;NVIDIA H100 80GB HBM3");
  CheckOptions options;
  options.cuda_library = test::kFakeCuda;
  options.nvml_library = test::kMissingLibrary;
  options.burn.cublaslt_libraries = {test::kMissingLibrary};
  CheckResult r = burn(options, 2);
  CHECK(r.status == CheckResult::Failed);
  CHECK(r.summary ==
        "GPU 0 (0000:18:00.0): cannot load the burn kernels (built for sm_80, sm_90 and "
        "compute_90 PTX): error 209 (CUDA_ERROR_NO_BINARY_FOR_GPU) (and 1 more)");
}

TEST_CASE("a node without GPUs skips the burn") {
  if (kBurnKernelImageSize == 0) return;
  FakeCudaEnv env("");
  CheckOptions options;
  options.cuda_library = test::kFakeCuda;
  CheckResult r = run_burn_check(test::one_node_plan(0), options, 20);
  CHECK(r.status == CheckResult::Skipped);
  CHECK(r.summary == "no GPU on this node");
}

TEST_CASE("without cuBLASLt the embedded kernel burns alone - and the result names the fallback") {
  if (kBurnKernelImageSize == 0) return;
  FakeGpus gpus("NVIDIA H100 80GB HBM3;NVIDIA H100 80GB HBM3", "0,0");
  CheckOptions options = fake_options();
  options.burn.cublaslt_libraries = {test::kMissingLibrary};
  CheckResult r = burn(options, 2);
  CHECK(r.status == CheckResult::Passed);
  CHECK(r.summary ==
        "2 GPUs (WMMA), median TFLOPS per GPU fp16-wmma 1099.5, results bit-identical; no "
        "cuBLASLt: burned with the embedded WMMA kernel");
  CHECK(r.figure == "1099.5 TFLOPS");
  CHECK(r.facts.at("engine") == "WMMA");
  CHECK(has(r.detail, "engine: the embedded WMMA kernel, as fallback: no cuBLASLt (" +
                          test::kMissingLibrary + ": cannot open shared object file"));
}

TEST_CASE(
    "cuBLASLt burns BF16 and FP8 on every GPU at once, cross-checked by the embedded kernel") {
  if (kBurnKernelImageSize == 0) return;
  FakeGpus gpus;
  CheckResult r = burn(fake_options());
  CHECK(r.status == CheckResult::Passed);
  CHECK(r.summary ==
        "4 GPUs (cuBLASLt), median TFLOPS per GPU bf16 1099.5, fp8 1099.5, results "
        "bit-identical");
  CHECK(r.figure == "1099.5 TFLOPS");
  CHECK(r.facts.at("engine") == "cuBLASLt");
  CHECK(has(r.detail, "engine: cuBLASLt (" + test::kFakeCublasLt + ", version 130100)"));
  CHECK(has(r.detail,
            "GPU 3 (0000:1b:00.0, serial 165000000003) NVIDIA H100 80GB HBM3: fp16-wmma "
            "cross-check 2 GEMMs; bf16 1099.5 TFLOPS ("));
  CHECK(has(r.detail, "GPU 3 (0000:1b:00.0, serial 165000000003): max 53 C, 400 W\n"));
}

TEST_CASE("GPUs older than compute capability 8.9 burn BF16 only") {
  if (kBurnKernelImageSize == 0) return;
  FakeGpus gpus("NVIDIA A100-SXM4-80GB!sm80;NVIDIA A100-SXM4-80GB!sm80", "0,0");
  CheckResult r = burn(fake_options(), 2);
  CHECK(r.status == CheckResult::Passed);
  CHECK(r.summary == "2 GPUs (cuBLASLt), median TFLOPS per GPU bf16 1099.5, results bit-identical");
}

TEST_CASE("a GPU 10% slower than the node median fails") {
  if (kBurnKernelImageSize == 0) return;
  FakeGpus gpus;
  FakeEnv slow("PAI_FAKE_CUDA_SPEED", "2:0.90");
  CheckResult r = burn(fake_options());
  CHECK(r.status == CheckResult::Failed);
  CHECK(r.summary ==
        "GPU 2 (0000:1a:00.0, serial 165000000002): bf16 989.6 TFLOPS is 10.0% below the node "
        "median of 1099.5 (fails at 7.0%) (and 1 more)");
  CHECK(has(r.detail,
            "GPU 2 (0000:1a:00.0, serial 165000000002): fp8 989.6 TFLOPS is 10.0% "
            "below the node median of 1099.5 (fails at 7.0%)\n"));
}

TEST_CASE("a GPU 4% slower than the node median is a warning") {
  if (kBurnKernelImageSize == 0) return;
  FakeGpus gpus;
  FakeEnv slow("PAI_FAKE_CUDA_SPEED", "2:0.96");
  CheckResult r = burn(fake_options());
  CHECK(r.status == CheckResult::Passed);
  CHECK(has(r.summary,
            "; warning: GPU 2 (0000:1a:00.0, serial 165000000002): bf16 1055.5 TFLOPS is 4.0% "
            "below the node median of 1099.5 (warns at 3.5%) (and 1 more)"));
  CHECK(has(r.detail, "warning: GPU 2 (0000:1a:00.0, serial 165000000002): fp8 1055.5 TFLOPS"));
}

TEST_CASE("the per-model baseline judges every GPU") {
  if (kBurnKernelImageSize == 0) return;
  FakeGpus gpus;
  CheckResult r = burn(fake_options(), 4, [](pai::SanityCheck& s) {
    s.burn_baselines = {{"NVIDIA H100 80GB HBM3", "fp8", 1250}};
  });
  CHECK(r.status == CheckResult::Failed);
  CHECK(r.summary ==
        "GPU 0 (0000:18:00.0, serial 165000000000): fp8 1099.5 TFLOPS is 12.0% below the NVIDIA "
        "H100 80GB HBM3 baseline of 1250.0 (fails at 7.0%) (and 3 more)");
}

TEST_CASE("FP8 can be turned off") {
  if (kBurnKernelImageSize == 0) return;
  FakeGpus gpus("NVIDIA H100 80GB HBM3", "0");
  CheckResult r = burn(fake_options(), 1, [](pai::SanityCheck& s) { s.burn_fp8 = false; });
  CHECK(r.summary == "1 GPU (cuBLASLt), median TFLOPS per GPU bf16 1099.5, results bit-identical");
}

TEST_CASE("hardware slowdown during the burn fails the GPU, named by index, bus id and serial") {
  if (kBurnKernelImageSize == 0) return;
  FakeGpus gpus;
  FakeEnv faults("PAI_FAKE_NVML_FAULTS", "gpu=1,throttle=0x8");
  CheckResult r = burn(fake_options());
  CHECK(r.status == CheckResult::Failed);
  CHECK(r.summary ==
        "GPU 1 (0000:19:00.0, serial 165000000001): throttled during the burn: HW slowdown");
}

TEST_CASE("an Xid event during the burn fails the GPU") {
  if (kBurnKernelImageSize == 0) return;
  FakeGpus gpus;
  FakeEnv faults("PAI_FAKE_NVML_FAULTS", "gpu=3,xid=79");
  CheckResult r = burn(fake_options());
  CHECK(r.status == CheckResult::Failed);
  CHECK(r.summary ==
        "GPU 3 (0000:1b:00.0, serial 165000000003): Xid 79 (GPU has fallen off the bus) during "
        "the burn");
}

TEST_CASE("uncorrected ECC errors fail the GPU - old lifetime ones are only reported") {
  if (kBurnKernelImageSize == 0) return;
  FakeGpus gpus;
  FakeEnv faults("PAI_FAKE_NVML_FAULTS",
                 "gpu=0,ecc_volatile=1;gpu=2,ecc_aggregate=5,ecc_aggregate_rise=2;"
                 "gpu=3,ecc_aggregate=4");
  CheckResult r = burn(fake_options());
  CHECK(r.status == CheckResult::Failed);
  CHECK(r.summary ==
        "GPU 0 (0000:18:00.0, serial 165000000000): 1 uncorrected ECC errors since the driver "
        "loaded (and 1 more)");
  CHECK(has(r.detail,
            "GPU 2 (0000:1a:00.0, serial 165000000002): 2 new uncorrected ECC errors "
            "during the burn (lifetime count 7)\n"));
  CHECK(has(r.detail,
            "GPU 3 (0000:1b:00.0, serial 165000000003): 4 uncorrected ECC errors over "
            "the board's lifetime, none during the burn\n"));
}

TEST_CASE("a pending row remap fails the GPU") {
  if (kBurnKernelImageSize == 0) return;
  FakeGpus gpus;
  FakeEnv faults("PAI_FAKE_NVML_FAULTS", "gpu=2,remap_pending=1");
  CheckResult r = burn(fake_options());
  CHECK(r.status == CheckResult::Failed);
  CHECK(r.summary ==
        "GPU 2 (0000:1a:00.0, serial 165000000002): a row remap is pending (reset the GPU)");
}

TEST_CASE("a corrupt checksum on one GPU of 4 fails that GPU") {
  if (kBurnKernelImageSize == 0) return;
  FakeGpus gpus;
  FakeEnv corrupt("PAI_FAKE_CUBLASLT_CORRUPT", "2");
  CheckResult r = burn(fake_options());
  CHECK(r.status == CheckResult::Failed);
  CHECK(r.summary ==
        "GPU 2 (0000:1a:00.0, serial 165000000002): bf16 results differ from the majority's (3 "
        "of 4 GPUs agree): silent data corruption (and 1 more)");
  CHECK(has(r.detail, "GPU 2 (0000:1a:00.0, serial 165000000002): fp8 results differ"));
  CHECK_FALSE(has(r.detail, "GPU 0 (0000:18:00.0, serial 165000000000): bf16 results differ"));
}

TEST_CASE("the embedded kernel's cross-check catches a GPU cuBLASLt did not") {
  if (kBurnKernelImageSize == 0) return;
  FakeGpus gpus;
  FakeEnv corrupt("PAI_FAKE_CUDA_CORRUPT", "1");
  CheckResult r = burn(fake_options());
  CHECK(r.status == CheckResult::Failed);
  CHECK(r.summary ==
        "GPU 1 (0000:19:00.0, serial 165000000001): fp16-wmma results differ from the majority's "
        "(3 of 4 GPUs agree): silent data corruption");
}

TEST_CASE("a cuBLASLt GEMM that fails fails its GPU with cuBLAS's status") {
  if (kBurnKernelImageSize == 0) return;
  FakeGpus gpus;
  FakeEnv fail("PAI_FAKE_CUBLASLT_FAIL", "1");
  CheckResult r = burn(fake_options());
  CHECK(r.status == CheckResult::Failed);
  CHECK(r.summary ==
        "GPU 1 (0000:19:00.0, serial 165000000001): cublasLtMatmul (bf16) failed: cuBLAS status "
        "13 (CUBLAS_STATUS_EXECUTION_FAILED)");
}

TEST_CASE("without NVML the burn runs unwatched and says so") {
  if (kBurnKernelImageSize == 0) return;
  FakeGpus gpus("NVIDIA H100 80GB HBM3;NVIDIA H100 80GB HBM3", "0,0");
  CheckOptions options = fake_options();
  options.nvml_library = test::kMissingLibrary;
  CheckResult r = burn(options, 2);
  CHECK(r.status == CheckResult::Passed);
  CHECK(has(r.detail, "no NVML (" + test::kMissingLibrary +
                          ": cannot open shared object file: No such file or directory): health "
                          "during the burn not watched\n"));
  CHECK(has(r.detail, "GPU 1 (0000:19:00.0) NVIDIA H100 80GB HBM3: fp16-wmma cross-check"));
}

}  // namespace burn_check_test
