#include "launcher/checks/burn_analysis.h"

#include <catch2/catch.hpp>

namespace burn_analysis_test {

using namespace pai::checks;

namespace {

// A GPU whose bf16 run did `gemms` GEMMs of 1 TFLOP each in 10 s of GPU time (0.1 × gemms
// TFLOPS), all with digest `d`.
GpuBurn gpu(int index, std::uint64_t gemms, std::uint64_t d = 42,
            const std::string& model = "NVIDIA H100") {
  GpuBurn g;
  g.gpu = index;
  g.name = model;
  g.engine = "cuBLASLt";
  GemmRun run;
  run.precision = kBf16;
  run.gemms = gemms;
  run.gpu_seconds = 10;
  run.flops_per_gemm = 1e12;
  run.hashes.assign(gemms, d);
  g.runs.push_back(run);
  return g;
}

std::string first_failure(const BurnVerdict& v) { return v.failures.empty() ? "" : v.failures[0]; }

}  // namespace

TEST_CASE("median of odd and even counts") {
  CHECK(median({}) == 0);
  CHECK(median({3, 1, 2}) == 2);
  CHECK(median({4, 1, 3, 2}) == 2.5);
}

TEST_CASE("throughput is GEMMs times FLOPs over GPU time") {
  CHECK(gpu(0, 4000).runs[0].tflops() == Approx(400));
  GemmRun idle;
  CHECK(idle.tflops() == 0);
}

TEST_CASE("identical results and even throughput pass") {
  auto v = analyse_burn({gpu(0, 4000), gpu(1, 4010), gpu(2, 3990)}, {});
  CHECK(v.passed());
  CHECK(v.warnings.empty());
  CHECK(v.median_tflops.at(kBf16) == Approx(400));
  CHECK(v.headline == kBf16);
  CHECK(v.figure == "400.0 TFLOPS");
  CHECK(v.summary == "3 GPUs (cuBLASLt), median TFLOPS per GPU bf16 400.0, results bit-identical");
  CHECK(v.detail.find("GPU 1 NVIDIA H100: bf16 401.0 TFLOPS (4010 GEMMs in 10.0s)\n") !=
        std::string::npos);
}

TEST_CASE("a GPU 10% below the node median fails - the default fail threshold is 7%") {
  auto v = analyse_burn({gpu(0, 4000), gpu(1, 4000), gpu(2, 3600), gpu(3, 4000)}, {});
  CHECK_FALSE(v.passed());
  CHECK(first_failure(v) ==
        "GPU 2: bf16 360.0 TFLOPS is 10.0% below the node median of 400.0 (fails at 7.0%)");
}

TEST_CASE("a GPU 4% below the node median is a warning - the burn still passes") {
  auto v = analyse_burn({gpu(0, 4000), gpu(1, 4000), gpu(2, 3840), gpu(3, 4000)}, {});
  CHECK(v.passed());
  REQUIRE(v.warnings.size() == 1);
  CHECK(v.warnings[0] ==
        "GPU 2: bf16 384.0 TFLOPS is 4.0% below the node median of 400.0 (warns at 3.5%)");
}

TEST_CASE("3% below the median is neither - thresholds come from the limits") {
  CHECK(analyse_burn({gpu(0, 1000), gpu(1, 970), gpu(2, 1000)}, {}).warnings.empty());
  BurnLimits strict;
  strict.warn_fraction = 0.01;
  strict.fail_fraction = 0.02;
  auto v = analyse_burn({gpu(0, 1000), gpu(1, 970), gpu(2, 1000)}, strict);
  CHECK(first_failure(v) ==
        "GPU 1: bf16 97.0 TFLOPS is 3.0% below the node median of 100.0 (fails at 2.0%)");
}

TEST_CASE("a model's baseline judges every GPU of that model, even a node of one") {
  BurnLimits limits;
  limits.baselines = {{"NVIDIA H100", kBf16, 420}, {"NVIDIA A100", kBf16, 100}};
  auto warned = analyse_burn({gpu(0, 4000)}, limits);
  CHECK(warned.passed());
  REQUIRE(warned.warnings.size() == 1);
  CHECK(warned.warnings[0] ==
        "GPU 0: bf16 400.0 TFLOPS is 4.8% below the NVIDIA H100 baseline of 420.0 (warns at "
        "3.5%)");
  limits.baselines[0].tflops = 440;
  auto failed = analyse_burn({gpu(0, 4000), gpu(1, 4000)}, limits);
  CHECK(failed.failures.size() == 2);
  CHECK(first_failure(failed) ==
        "GPU 0: bf16 400.0 TFLOPS is 9.1% below the NVIDIA H100 baseline of 440.0 (fails at "
        "7.0%)");
  limits.baselines[0].precision = kFp8;  // a baseline of another precision does not apply
  CHECK(analyse_burn({gpu(0, 4000)}, limits).warnings.empty());
}

TEST_CASE("the TFLOPS floor fails every GPU under it") {
  BurnLimits limits;
  limits.min_tflops = 450;
  auto v = analyse_burn({gpu(0, 4000), gpu(1, 4000)}, limits);
  CHECK(v.failures.size() == 2);
  CHECK(first_failure(v) == "GPU 0: bf16 400.0 TFLOPS is below the floor of 450.0");
  limits.min_tflops = 399.9;
  CHECK(analyse_burn({gpu(0, 4000)}, limits).passed());
}

TEST_CASE("a result that changes between iterations is silent data corruption") {
  GpuBurn flaky = gpu(1, 4000);
  flaky.runs[0].hashes[17] = 43;
  flaky.runs[0].hashes[99] = 44;
  auto v = analyse_burn({gpu(0, 4000), flaky}, {});
  CHECK_FALSE(v.passed());
  CHECK(first_failure(v) ==
        "GPU 1: bf16 results differ between iterations in 2 of 4000 GEMMs (silent data "
        "corruption)");
}

TEST_CASE(
    "a GPU outvoted by the others is silent data corruption - named with its bus and serial") {
  GpuBurn odd = gpu(2, 4000, 7);
  odd.pci_bus_id = "0000:1a:00.0";
  odd.serial = "1650000000002";
  auto v = analyse_burn({gpu(0, 4000), gpu(1, 4000), odd, gpu(3, 4000)}, {});
  CHECK(v.failures == std::vector<std::string>{
                          "GPU 2 (0000:1a:00.0, serial 1650000000002): bf16 results differ "
                          "from the majority's (3 of 4 GPUs agree): silent data corruption"});
}

TEST_CASE("two GPUs that disagree fail the node together - neither can be blamed") {
  auto v = analyse_burn({gpu(0, 4000, 1), gpu(1, 4000, 2)}, {});
  CHECK(v.failures ==
        std::vector<std::string>{"GPUs 0 and 1: bf16 results differ with no majority among 2 "
                                 "GPUs: silent data corruption on a GPU that cannot be told"});
}

TEST_CASE("GPUs of different models are not voted against each other") {
  auto v = analyse_burn({gpu(0, 4000, 1, "NVIDIA H100"), gpu(1, 4000, 2, "NVIDIA H200")}, {});
  CHECK(v.passed());
}

TEST_CASE("a cross-check run is voted on but not timed") {
  GpuBurn a = gpu(0, 4000), b = gpu(1, 4000), c = gpu(2, 4000);
  for (GpuBurn* g : {&a, &b, &c}) {
    GemmRun check;
    check.precision = kWmma;
    check.timed = false;
    check.hashes = {g == &c ? 9u : 5u, g == &c ? 9u : 5u};
    g->runs.insert(g->runs.begin(), check);
  }
  auto v = analyse_burn({a, b, c}, {});
  CHECK(v.failures ==
        std::vector<std::string>{"GPU 2: fp16-wmma results differ from the majority's (2 of 3 "
                                 "GPUs agree): silent data corruption"});
  CHECK(v.median_tflops.count(kWmma) == 0);
  CHECK(v.detail.find("GPU 0 NVIDIA H100: fp16-wmma cross-check 2 GEMMs; bf16 400.0 TFLOPS") !=
        std::string::npos);
}

TEST_CASE("without cuBLASLt the embedded kernel's throughput is the headline") {
  GpuBurn g = gpu(0, 3000);
  g.engine = "WMMA";
  g.runs[0].precision = kWmma;
  auto v = analyse_burn({g}, {});
  CHECK(v.headline == kWmma);
  CHECK(v.figure == "300.0 TFLOPS");
  CHECK(v.summary == "1 GPU (WMMA), median TFLOPS per GPU fp16-wmma 300.0, results bit-identical");
}

TEST_CASE("a GPU that could not run fails the burn with its error") {
  GpuBurn broken;
  broken.gpu = 3;
  broken.error = "cuMemAlloc failed: error 2 (CUDA_ERROR_OUT_OF_MEMORY)";
  auto v = analyse_burn({gpu(0, 4000), broken}, {});
  CHECK(v.failures ==
        std::vector<std::string>{"GPU 3: cuMemAlloc failed: error 2 (CUDA_ERROR_OUT_OF_MEMORY)"});
}

TEST_CASE("a GPU that completed nothing fails") {
  auto v = analyse_burn({gpu(0, 0)}, {});
  CHECK(first_failure(v) == "GPU 0: completed no bf16 GEMM");
  CHECK(first_failure(analyse_burn({}, {})) == "no GPU ran the burn");
}

}  // namespace burn_analysis_test
