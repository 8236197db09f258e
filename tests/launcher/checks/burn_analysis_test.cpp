#include "launcher/checks/burn_analysis.h"

#include <catch2/catch.hpp>

namespace burn_analysis_test {

using namespace pai::checks;

namespace {

// A GPU that ran `gemms` GEMMs of 1 TFLOP each in 10 s (0.1 × gemms TFLOPS), all with digest `d`.
GpuBurn gpu(int index, std::uint64_t gemms, std::uint64_t d = 42) {
  GpuBurn g;
  g.gpu = index;
  g.name = "NVIDIA H100";
  g.gemms = gemms;
  g.seconds = 10;
  g.flops_per_gemm = 1e12;
  g.hashes.assign(gemms, d);
  return g;
}

}  // namespace

TEST_CASE("median of odd and even counts") {
  CHECK(median({}) == 0);
  CHECK(median({3, 1, 2}) == 2);
  CHECK(median({4, 1, 3, 2}) == 2.5);
}

TEST_CASE("throughput is GEMMs times FLOPs over time") {
  CHECK(gpu(0, 4000).tflops() == Approx(400));
  GpuBurn idle;
  CHECK(idle.tflops() == 0);
}

TEST_CASE("identical results and even throughput pass") {
  auto v = analyse_burn({gpu(0, 4000), gpu(1, 4010), gpu(2, 3990)}, 0);
  CHECK(v.passed);
  CHECK(v.median_tflops == Approx(400));
  CHECK(v.figure == "400.0 TFLOPS");
  CHECK(v.summary == "3 GPUs, results bit-identical, median 400.0 TFLOPS per GPU");
  CHECK(v.detail.find("GPU 1 NVIDIA H100: 401.0 TFLOPS, 4010 GEMMs in 10.0s\n") !=
        std::string::npos);
}

TEST_CASE("a result that changes between iterations is silent data corruption") {
  GpuBurn flaky = gpu(1, 4000);
  flaky.hashes[17] = 43;
  flaky.hashes[99] = 44;
  auto v = analyse_burn({gpu(0, 4000), flaky}, 0);
  CHECK_FALSE(v.passed);
  CHECK(v.summary ==
        "GPU 1: results differ between iterations in 2 of 4000 GEMMs (silent data corruption)");
}

TEST_CASE("a GPU whose stable result differs from the others' is silent data corruption") {
  auto v = analyse_burn({gpu(0, 4000), gpu(1, 4000, 7), gpu(2, 4000)}, 0);
  CHECK_FALSE(v.passed);
  CHECK(v.summary == "GPU 1: results differ from the other GPUs' (silent data corruption)");
}

TEST_CASE("with two GPUs disagreeing - the lower-numbered one is the reference") {
  auto v = analyse_burn({gpu(0, 4000, 1), gpu(1, 4000, 2)}, 0);
  CHECK(v.summary == "GPU 1: results differ from the other GPUs' (silent data corruption)");
}

TEST_CASE("a GPU below 0.9x the node median is slow") {
  auto v = analyse_burn({gpu(0, 4000), gpu(1, 4000), gpu(2, 3500), gpu(3, 4000)}, 0);
  CHECK_FALSE(v.passed);
  CHECK(v.summary == "GPU 2: slow, 350.0 TFLOPS is below 0.9x the node median of 400.0");
}

TEST_CASE("0.91x the median is not slow - 0.89x is") {
  CHECK(analyse_burn({gpu(0, 1000), gpu(1, 910), gpu(2, 1000)}, 0).passed);
  CHECK_FALSE(analyse_burn({gpu(0, 1000), gpu(1, 890), gpu(2, 1000)}, 0).passed);
}

TEST_CASE("the TFLOPS floor fails every GPU under it") {
  auto v = analyse_burn({gpu(0, 4000), gpu(1, 4000)}, 450);
  CHECK_FALSE(v.passed);
  CHECK(v.summary == "GPU 0: 400.0 TFLOPS is below the floor of 450.0 (and 1 more)");
  CHECK(v.detail.find("GPU 1: 400.0 TFLOPS is below the floor of 450.0\n") != std::string::npos);
  CHECK(analyse_burn({gpu(0, 4000)}, 399.9).passed);
}

TEST_CASE("a GPU that could not run fails the burn with its error") {
  GpuBurn broken;
  broken.gpu = 3;
  broken.error = "cuMemAlloc failed: error 2 (CUDA_ERROR_OUT_OF_MEMORY)";
  auto v = analyse_burn({gpu(0, 4000), broken}, 0);
  CHECK_FALSE(v.passed);
  CHECK(v.summary == "GPU 3: cuMemAlloc failed: error 2 (CUDA_ERROR_OUT_OF_MEMORY)");
}

TEST_CASE("a GPU that completed nothing fails") {
  auto v = analyse_burn({gpu(0, 0)}, 0);
  CHECK_FALSE(v.passed);
  CHECK(v.summary == "GPU 0: completed no GEMM");
  CHECK(analyse_burn({}, 0).summary == "no GPU ran the burn");
}

}  // namespace burn_analysis_test
