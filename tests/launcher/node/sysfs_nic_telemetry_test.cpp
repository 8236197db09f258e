#include "launcher/node/sysfs_nic_telemetry.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <thread>

#include "support/fake_sysfs.h"
#include "support/plan_fixture.h"
#include "support/temp_dir.h"

namespace sysfs_nic_telemetry_test {

using namespace pai::launcher;
using pai::testing::FakeSysfs;
using pai::testing::TempDir;

namespace {

// PAI_SYSFS_ROOT set for the test's duration.
class Root {
 public:
  explicit Root(const std::string& path) { ::setenv("PAI_SYSFS_ROOT", path.c_str(), 1); }
  ~Root() { ::unsetenv("PAI_SYSFS_ROOT"); }
};

const std::string kPort = FakeSysfs::port_dir("mlx5_0", 1);

}  // namespace

TEST_CASE("a RoCE job's ports are read through PAI_SYSFS_ROOT - first without deltas") {
  TempDir dir;
  FakeSysfs fake(dir.path());
  fake.add_port({});
  Root root(dir.path());
  pai::Plan plan = pai::testing::make_test_plan();  // RoCE on mlx5_0 and mlx5_1
  SysfsNicTelemetry nics(plan);
  REQUIRE(nics.ports() == 1);  // mlx5_1 is not there
  const auto first = nics.window();
  REQUIRE(first.size() == 1);
  CHECK(first[0].port == "mlx5_0/1");
  CHECK(first[0].netdev == "eth2");
  CHECK(first[0].state == "ACTIVE");
  CHECK(first[0].window_ms == 0);
  CHECK(first[0].counters.empty());

  fake.set(kPort + "/counters/port_xmit_data", "1000");
  fake.set(kPort + "/hw_counters/local_ack_timeout_err", "340");
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const auto second = nics.window();
  REQUIRE(second.size() == 1);
  CHECK(second[0].window_ms >= 15);
  std::map<std::string, std::int64_t> deltas;
  for (const auto& c : second[0].counters) deltas[c.counter] = c.delta;
  CHECK(deltas.at("counters/port_xmit_data") == 1000);
  CHECK(deltas.at("hw_counters/local_ack_timeout_err") == 340);
  CHECK(deltas.at("netdev/tx_bytes") == 0);             // bytes always
  CHECK(deltas.count("hw_counters/np_cnp_sent") == 0);  // others when they grew
}

TEST_CASE("an Ethernet job - or a node without the ports - watches nothing") {
  TempDir dir;
  FakeSysfs fake(dir.path());
  fake.add_port({});
  Root root(dir.path());
  pai::Plan plan = pai::testing::make_test_plan();
  plan.fabric.type = pai::FabricType::Ethernet;
  CHECK(SysfsNicTelemetry(plan).window().empty());
  TempDir empty;
  Root bare(empty.path());
  CHECK(SysfsNicTelemetry(pai::testing::make_test_plan()).window().empty());
}

TEST_CASE("the wire form keeps the byte counters and the ones that grew most") {
  pai::checks::NicWindow w;
  w.port = "mlx5_0/1";
  w.seconds = 1;
  w.deltas["counters/port_rcv_data"] = 0;
  for (int i = 0; i < 70; ++i) w.deltas["hw_counters/c" + std::to_string(100 + i)] = i + 1;
  const auto port = nic_port_of(w, false);
  REQUIRE(port.counters.size() == pai::net::kMaxNicCounters);
  CHECK(port.counters[0].counter == "counters/port_rcv_data");
  CHECK(port.counters[1].delta == 70);
  CHECK(port.window_ms == 1000);
}

}  // namespace sysfs_nic_telemetry_test
