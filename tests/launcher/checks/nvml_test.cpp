#include "launcher/checks/nvml.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdlib>

#include "fake_env.h"
#include "test_plan.h"

namespace nvml_test {

using namespace pai::checks;

TEST_CASE("without libnvidia-ml NVML is reported missing") {
  std::string reason;
  CHECK_FALSE(Nvml::open(test::kMissingLibrary, &reason));
  CHECK(reason == "no NVML (" + test::kMissingLibrary +
                      ": cannot open shared object file: No such file or directory)");
}

TEST_CASE("a library without NVML's entry points is refused") {
  std::string reason;
  CHECK_FALSE(Nvml::open(test::kFakeCuda, &reason));
  CHECK(reason == test::kFakeCuda + " lacks the NVML device entry points");
}

TEST_CASE("only the throttle reasons that point at a sick node are named") {
  CHECK(describe_throttle_reasons(0x1 | 0x4) == "");
  CHECK(describe_throttle_reasons(0x8 | 0x40) == "HW slowdown, HW thermal slowdown");
  CHECK(describe_throttle_reasons(0x20 | 0x80) == "SW thermal slowdown, HW power brake slowdown");
  CHECK((kBadThrottleReasons & 0x4) == 0);  // the power cap is a setting, not a fault
}

TEST_CASE("NVML usage reads each GPU's utilization and memory - again on every call") {
  test::FakeNvmlEnv utilization("PAI_FAKE_NVML_UTILIZATION", "5,80");
  std::string reason;
  auto nvml = Nvml::open(test::kFakeNvml, &reason);
  REQUIRE(nvml);
  CHECK(nvml->driver_version() == "550.54.15");
  std::string error;
  const auto gpus = nvml->usage(&error);
  CHECK(error.empty());
  const std::int64_t gib = 1ll << 30;
  CHECK(
      gpus ==
      std::vector<GpuUsage>{
          {.index = 0, .utilization = 5, .memory_used_bytes = gib, .memory_total_bytes = 80 * gib},
          {.index = 1,
           .utilization = 80,
           .memory_used_bytes = 2 * gib,
           .memory_total_bytes = 80 * gib}});
  setenv("PAI_FAKE_NVML_UTILIZATION", "100", 1);
  const auto later = nvml->usage(&error);
  REQUIRE(later.size() == 1);
  CHECK(later[0].utilization == 100);
}

TEST_CASE("NVML usage reports an impossible utilization as unknown") {
  test::FakeNvmlEnv utilization("PAI_FAKE_NVML_UTILIZATION", "101");
  std::string reason;
  auto nvml = Nvml::open(test::kFakeNvml, &reason);
  REQUIRE(nvml);
  std::string error;
  const auto gpus = nvml->usage(&error);
  REQUIRE(gpus.size() == 1);
  CHECK(gpus[0].utilization == -1);
  CHECK(gpus[0].memory_total_bytes == 80ll << 30);
}

TEST_CASE("an NVML whose init fails is refused with its error") {
  test::FakeNvmlEnv init("PAI_FAKE_NVML_INIT", "9");
  std::string reason;
  CHECK_FALSE(Nvml::open(test::kFakeNvml, &reason));
  CHECK(reason == "NVML loads but nvmlInit failed: error 9");
}

TEST_CASE("NVML health names each GPU and reads every counter the burn judges") {
  test::FakeNvmlEnv gpus("PAI_FAKE_NVML_UTILIZATION", "0,0");
  test::FakeNvmlEnv faults("PAI_FAKE_NVML_FAULTS",
                           "gpu=1,throttle=0x48,ecc_volatile=3,ecc_corrected=7,ecc_aggregate=9,"
                           "remap_pending=1");
  std::string reason;
  auto nvml = Nvml::open(test::kFakeNvml, &reason);
  REQUIRE(nvml);
  std::string error;
  const auto health = nvml->health(&error);
  CHECK(error.empty());
  REQUIRE(health.size() == 2);
  CHECK(health[0].serial == "165000000000");
  CHECK(health[0].temperature_c == 50);
  CHECK(health[0].power_w == Approx(400));
  CHECK(health[0].throttle_reasons_all == 0);
  const GpuHealth& sick = health[1];
  CHECK(sick.pci_bus_id == "00000000:19:00.0");
  CHECK(sick.throttle_reasons == 0x48);
  CHECK(sick.throttle_reasons_all == 0x48);
  CHECK(sick.volatile_uncorrectable_ecc == 3);
  CHECK(sick.volatile_correctable_ecc == 7);
  CHECK(sick.aggregate_ecc_known);
  CHECK(sick.aggregate_uncorrectable_ecc == 9);
  CHECK(sick.remap_pending);
  CHECK_FALSE(sick.remap_failed);
}

TEST_CASE("Xid events arrive for the GPUs watched - then the wait times out") {
  test::FakeNvmlEnv gpus("PAI_FAKE_NVML_UTILIZATION", "0,0");
  test::FakeNvmlEnv faults("PAI_FAKE_NVML_FAULTS", "gpu=0,xid=48");
  std::string reason;
  auto nvml = Nvml::open(test::kFakeNvml, &reason);
  REQUIRE(nvml);
  CHECK(nvml->wait_xids(1).empty());  // not watching yet
  std::string error;
  REQUIRE(nvml->watch_xids(&error));
  CHECK(nvml->wait_xids(50) == std::vector<XidEvent>{{0, 48}});
  CHECK(nvml->wait_xids(1).empty());
}

TEST_CASE("the throttle reasons that are settings, not faults, are named apart") {
  CHECK(describe_benign_throttle_reasons(0x1 | 0x4 | 0x8) == "GPU idle, SW power cap");
  CHECK(describe_benign_throttle_reasons(0x2 | 0x10 | 0x100 | 0x1000) ==
        "applications clocks setting, sync boost, display clock setting, 0x1000");
  CHECK(describe_benign_throttle_reasons(kBadThrottleReasons) == "");
}

}  // namespace nvml_test
