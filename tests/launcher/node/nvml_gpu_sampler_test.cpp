#include "launcher/node/nvml_gpu_sampler.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>

namespace nvml_gpu_sampler_test {

using pai::launcher::NvmlGpuSampler;

const std::string kFakeNvmlLibrary = PAI_BINARY_DIR "/launcher/checks/libpai_fake_nvml.so";

TEST_CASE("the NVML sampler gives each GPU's utilization and memory as the protocol has them") {
  ::setenv("PAI_FAKE_NVML_UTILIZATION", "12,0,100", 1);
  NvmlGpuSampler sampler(kFakeNvmlLibrary);
  std::string why;
  const auto gpus = sampler.sample(&why);
  ::unsetenv("PAI_FAKE_NVML_UTILIZATION");
  REQUIRE(gpus.has_value());
  CHECK(why.empty());
  REQUIRE(gpus->size() == 3);
  CHECK((*gpus)[0] == pai::net::GpuSample{.index = 0,
                                          .utilization = 12,
                                          .memory_used_bytes = 1ll << 30,
                                          .memory_total_bytes = 80ll << 30});
  CHECK((*gpus)[2].index == 2);
  CHECK((*gpus)[2].utilization == 100);
}

TEST_CASE("without NVML the sampler says why - and never tries again") {
  NvmlGpuSampler sampler("libpai-missing-nvml-for-tests.so.1");
  std::string why;
  CHECK_FALSE(sampler.sample(&why).has_value());
  CHECK(why ==
        "no NVML (libpai-missing-nvml-for-tests.so.1: cannot open shared object file: No such "
        "file or directory)");
  std::string again;
  CHECK_FALSE(sampler.sample(&again).has_value());
  CHECK(again == why);
}

}  // namespace nvml_gpu_sampler_test
