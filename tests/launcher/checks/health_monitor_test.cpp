#include "launcher/checks/health_monitor.h"

#include <catch2/catch.hpp>

#include "fake_env.h"
#include "test_plan.h"

namespace health_monitor_test {

using namespace pai::checks;

TEST_CASE("the monitor collects throttling, Xid events and ECC rises per GPU") {
  test::FakeEnv gpus("PAI_FAKE_NVML_UTILIZATION", "0,0,0");
  test::FakeEnv faults("PAI_FAKE_NVML_FAULTS",
                       "gpu=0,throttle=0x9;gpu=1,xid=79,ecc_aggregate=2,ecc_aggregate_rise=1;"
                       "gpu=2,temperature=83,power=650000");
  std::string reason;
  auto nvml = Nvml::open(test::kFakeNvml, &reason);
  REQUIRE(nvml);
  std::vector<GpuHealthRecord> records;
  std::string notes, error;
  {
    HealthMonitor monitor(*nvml, std::chrono::milliseconds(10));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    records = monitor.finish(&notes, &error);
  }
  CHECK(notes.empty());
  CHECK(error.empty());
  REQUIRE(records.size() == 3);
  CHECK(records[0].serial == "165000000000");
  CHECK(records[0].pci_bus_id == "00000000:18:00.0");
  CHECK(records[0].throttle_seen == 0x9);
  CHECK(records[1].xids == std::vector<unsigned long long>{79});
  CHECK(records[1].aggregate_uncorrected_before == 2);
  CHECK(records[1].aggregate_uncorrected_after == 3);
  CHECK(records[2].max_temperature_c == 83);
  CHECK(records[2].max_power_w == Approx(650));
  CHECK(records[2].xids.empty());
  CHECK(records[2].throttle_seen == 0);
}

}  // namespace health_monitor_test
