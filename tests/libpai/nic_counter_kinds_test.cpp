#include "libpai/nic_counter_kinds.h"

#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "support/fake_sysfs.h"

namespace nic_counter_kinds_test {

using pai::find_nic_counter;
using pai::NicCounterKind;

TEST_CASE("the counters pai reads are named once and found by their key") {
  std::set<std::string> keys;
  for (const pai::NicCounter& c : pai::nic_counters()) {
    CHECK(keys.insert(std::string(c.source) + "/" + std::string(c.name)).second);
    const auto found = find_nic_counter(std::string(c.source) + "/" + std::string(c.name));
    REQUIRE(found.has_value());
    CHECK(found->kind == c.kind);
  }
  CHECK(find_nic_counter("counters/port_xmit_data")->scale == 4);
  CHECK(find_nic_counter("netdev/tx_bytes")->kind == NicCounterKind::TxBytes);
  CHECK(find_nic_counter("hw_counters/np_cnp_sent")->kind == NicCounterKind::Congestion);
  CHECK(find_nic_counter("counters/link_downed")->kind == NicCounterKind::LinkDown);
  CHECK_FALSE(find_nic_counter("hw_counters/lifespan").has_value());
  CHECK_FALSE(find_nic_counter("port_xmit_data").has_value());
  CHECK_FALSE(find_nic_counter("").has_value());
}

TEST_CASE("every counter of the table is one the kernel or mlx5 documents for a port") {
  // The fake tree lists the kernel's counters/ and mlx5's hw_counters/: a typo in the table
  // would be a counter no port has.
  std::set<std::string> documented;
  for (const auto& n : pai::testing::FakeSysfs::port_counters()) documented.insert("counters/" + n);
  for (const auto& n : pai::testing::FakeSysfs::mlx5_hw_counters()) {
    documented.insert("hw_counters/" + n);
  }
  for (const auto& n : pai::testing::FakeSysfs::netdev_statistics()) {
    documented.insert("netdev/" + n);
  }
  for (const pai::NicCounter& c : pai::nic_counters()) {
    INFO(c.source << "/" << c.name);
    CHECK(documented.count(std::string(c.source) + "/" + std::string(c.name)) == 1);
  }
}

TEST_CASE("ethtool counters are those of pause frames, not their durations") {
  CHECK(find_nic_counter("ethtool/rx_pause_ctrl_phy")->kind == NicCounterKind::Congestion);
  CHECK(find_nic_counter("ethtool/tx_prio3_pause").has_value());
  CHECK_FALSE(find_nic_counter("ethtool/rx_prio3_pause_duration").has_value());
  CHECK_FALSE(find_nic_counter("ethtool/rx_prio3_pause_transition").has_value());
  CHECK_FALSE(find_nic_counter("ethtool/rx_bytes").has_value());
}

TEST_CASE("kinds have names for records and metrics") {
  CHECK(pai::to_string(NicCounterKind::Error) == "error");
  CHECK(pai::to_string(NicCounterKind::LinkDown) == "link-down");
  CHECK(pai::to_string(NicCounterKind::Congestion) == "congestion");
}

}  // namespace nic_counter_kinds_test
