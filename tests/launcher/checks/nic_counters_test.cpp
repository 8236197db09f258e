#include "launcher/checks/nic_counters.h"

#include <catch2/catch.hpp>

#include "libpai/nic_counter_kinds.h"
#include "support/fake_sysfs.h"
#include "support/temp_dir.h"

namespace nic_counters_test {

using namespace pai::checks;
using pai::testing::FakeSysfs;
using pai::testing::TempDir;

namespace {

class FakeEthtool final : public EthtoolStats {
 public:
  std::map<std::string, std::map<std::string, std::uint64_t>> stats;
  int calls = 0;
  std::optional<std::map<std::string, std::uint64_t>> read(const std::string& netdev,
                                                           const std::string& filter) override {
    ++calls;
    const auto it = stats.find(netdev);
    if (it == stats.end()) return std::nullopt;
    std::map<std::string, std::uint64_t> out;
    for (const auto& [name, value] : it->second) {
      if (name.find(filter) != std::string::npos) out[name] = value;
    }
    return out;
  }
};

const std::string kPort = FakeSysfs::port_dir("mlx5_0", 1);

}  // namespace

TEST_CASE("a port's counters, hardware counters, netdev statistics and pause frames") {
  TempDir dir;
  FakeSysfs fake(dir.path());
  fake.add_port({});
  fake.set(kPort + "/counters/symbol_error", "7");
  fake.set(kPort + "/hw_counters/local_ack_timeout_err", "340");
  fake.set("class/net/eth2/statistics/tx_bytes", "123456789");
  fake.set(kPort + "/hw_counters/out_of_sequence", "n/a");
  fake.set(kPort + "/hw_counters/not_read_by_pai", "3");
  FakeEthtool ethtool;
  ethtool.stats["eth2"] = {{"rx_pause_ctrl_phy", 12}, {"tx_prio3_pause", 5}, {"rx_bytes", 1}};
  const SysfsRoot sys(dir.path());
  NicSampler sampler(sys, job_rdma_ports(sys, {}, 3), &ethtool);
  REQUIRE(sampler.ports().size() == 1);
  const auto counters = sampler.sample(1'000'000'000);
  REQUIRE(counters.size() == 1);
  const NicCounters& c = counters[0];
  CHECK(c.port == "mlx5_0/1");
  CHECK(c.netdev == "eth2");
  CHECK(c.state == "ACTIVE");
  CHECK(c.time_ns == 1'000'000'000);
  CHECK(c.values.at("counters/symbol_error") == 7);
  CHECK(c.values.at("counters/port_xmit_data") == 0);
  CHECK(c.values.at("hw_counters/local_ack_timeout_err") == 340);
  CHECK(c.values.count("hw_counters/lifespan") == 0);  // a setting
  CHECK(c.values.count("hw_counters/not_read_by_pai") == 0);
  CHECK(c.values.count("hw_counters/out_of_sequence") == 0);
  CHECK(c.values.at("netdev/tx_bytes") == 123456789);
  CHECK(c.values.at("ethtool/rx_pause_ctrl_phy") == 12);
  CHECK(c.values.at("ethtool/tx_prio3_pause") == 5);
  CHECK(c.values.count("ethtool/rx_bytes") == 0);  // only pause frames
  CHECK(c.malformed == 1);
  // Every counter of the table the fake port has (all of them), but the malformed one, and
  // the two pause counters.
  CHECK(c.values.size() == pai::nic_counters().size() - 1 + 2);
}

TEST_CASE("a port that goes away reads as unknown - and is found again when it comes back") {
  TempDir dir;
  FakeSysfs fake(dir.path());
  fake.add_port({});
  const SysfsRoot sys(dir.path());
  NicSampler sampler(sys, job_rdma_ports(sys, {}, 3), nullptr);
  CHECK(sampler.sample(1).front().values.size() > 10);

  fake.remove("devices/pci0000:16");
  fake.remove("class/infiniband/mlx5_0");
  fake.remove("class/net/eth2");
  const auto gone = sampler.sample(2).front();
  CHECK(gone.state.empty());
  CHECK(gone.values.empty());

  fake.add_port({});
  fake.set(kPort + "/counters/link_downed", "1");
  const auto back = sampler.sample(3).front();
  CHECK(back.state == "ACTIVE");
  CHECK(back.values.at("counters/link_downed") == 1);
}

TEST_CASE("rates per second between two reads") {
  NicCounters before{.port = "mlx5_0/1",
                     .netdev = "eth2",
                     .state = "ACTIVE",
                     .time_ns = 1'000'000'000,
                     .values = {{"counters/port_xmit_data", 1000},
                                {"hw_counters/out_of_sequence", 5},
                                {"counters/only_before", 1}},
                     .malformed = 0};
  NicCounters after = before;
  after.time_ns = 3'000'000'000;
  after.state = "DOWN";
  after.values = {{"counters/port_xmit_data", 5000},
                  {"hw_counters/out_of_sequence", 5},
                  {"counters/only_after", 9}};
  const NicWindow w = nic_window(before, after);
  CHECK(w.port == "mlx5_0/1");
  CHECK(w.seconds == 2.0);
  CHECK(w.state_before == "ACTIVE");
  CHECK(w.state == "DOWN");
  CHECK(w.deltas.at("counters/port_xmit_data") == 4000);
  CHECK(w.deltas.at("hw_counters/out_of_sequence") == 0);
  CHECK(w.deltas.count("counters/only_before") == 0);
  CHECK(w.deltas.count("counters/only_after") == 0);
  CHECK(w.reset.empty());
  const auto rates = nic_rates(w);
  CHECK(rates.at("counters/port_xmit_data") == 2000.0);
  CHECK(rates.size() == 2);
}

TEST_CASE("a 32-bit counter that wraps counts what it wrapped past - one that resets is unknown") {
  NicCounters before{.port = "p",
                     .netdev = "",
                     .state = "ACTIVE",
                     .time_ns = 0,
                     .values = {{"counters/port_rcv_packets", 0xFFFFFF00ull},
                                {"counters/port_xmit_data", 900000},
                                {"hw_counters/big", 1ull << 40}},
                     .malformed = 0};
  NicCounters after = before;
  after.time_ns = 1'000'000'000;
  after.values = {{"counters/port_rcv_packets", 0x100},
                  {"counters/port_xmit_data", 10},
                  {"hw_counters/big", 5}};
  const NicWindow w = nic_window(before, after);
  CHECK(w.deltas.at("counters/port_rcv_packets") == 0x200);
  CHECK(w.deltas.count("counters/port_xmit_data") == 0);
  CHECK(w.deltas.count("hw_counters/big") == 0);
  CHECK(w.reset == std::vector<std::string>{"counters/port_xmit_data", "hw_counters/big"});
}

TEST_CASE("reads at the same time or out of order give no rates") {
  NicCounters a{.port = "p",
                .netdev = "",
                .state = "ACTIVE",
                .time_ns = 5,
                .values = {{"counters/x", 1}},
                .malformed = 0};
  NicCounters b = a;
  b.values["counters/x"] = 2;
  CHECK(nic_window(a, b).deltas.empty());
  CHECK(nic_rates(nic_window(a, b)).empty());
  b.time_ns = 4;
  CHECK(nic_window(a, b).deltas.empty());
  CHECK(nic_window(a, b).seconds == 0);
}

}  // namespace nic_counters_test
