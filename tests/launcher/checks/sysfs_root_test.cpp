#include "launcher/checks/sysfs_root.h"

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>

#include "support/fake_sysfs.h"
#include "support/temp_dir.h"

namespace sysfs_root_test {

using pai::checks::parse_sysfs_counter;
using pai::checks::parse_sysfs_integer;
using pai::checks::SysfsRoot;
using pai::testing::FakeSysfs;
using pai::testing::TempDir;

TEST_CASE("attributes are read below the root without their newline") {
  TempDir dir;
  FakeSysfs fake(dir.path());
  fake.add_netdev("eth0", "pci0000:00/0000:00:03.0", 1500);
  const SysfsRoot sys(dir.path() + "/");  // a trailing slash is the same root
  CHECK(sys.root() == dir.path());
  CHECK(sys.text("class/net/eth0/operstate") == "up");
  CHECK(sys.integer("class/net/eth0/mtu") == 1500);
  CHECK(sys.counter("class/net/eth0/statistics/rx_bytes") == 0u);
  CHECK(sys.list("class/net") == std::vector<std::string>{"eth0"});
  CHECK(sys.exists("class/net/eth0/statistics"));
  CHECK(sys.resolve("class/net/eth0") == "devices/pci0000:00/0000:00:03.0/net/eth0");
}

TEST_CASE("what cannot be read is unknown, never an error") {
  TempDir dir;
  FakeSysfs fake(dir.path());
  fake.set("a/not-a-number", "12ab");
  fake.set("a/two-numbers", "1 2");
  fake.set("a/empty", "");
  fake.set("a/long", std::string(SysfsRoot::kMaxAttributeBytes + 10, '7'));
  fake.link("a/outside", "../../");
  REQUIRE(::mkfifo((dir.path() + "/a/fifo").c_str(), 0600) == 0);
  const SysfsRoot sys(dir.path());
  CHECK_FALSE(sys.text("a/missing").has_value());
  CHECK_FALSE(sys.integer("a/not-a-number").has_value());
  CHECK_FALSE(sys.integer("a/two-numbers").has_value());
  CHECK_FALSE(sys.integer("a/empty").has_value());
  CHECK(sys.text("a/empty") == "");
  CHECK_FALSE(sys.text("a/long").has_value());
  CHECK_FALSE(sys.text("a/fifo").has_value());  // refused at once, not read forever
  CHECK_FALSE(sys.text("a").has_value());       // a folder
  CHECK(sys.list("a/missing").empty());
  CHECK(sys.list("a/empty").empty());
  CHECK_FALSE(sys.resolve("a/outside").has_value());
  CHECK_FALSE(sys.resolve("a/missing").has_value());
}

TEST_CASE("sysfs integers and counters parse as the kernel writes them") {
  CHECK(parse_sysfs_integer("42") == 42);
  CHECK(parse_sysfs_integer("-1") == -1);
  CHECK(parse_sysfs_integer("0x1003") == 0x1003);
  CHECK_FALSE(parse_sysfs_integer("").has_value());
  CHECK_FALSE(parse_sysfs_integer("-").has_value());
  CHECK_FALSE(parse_sysfs_integer("0x").has_value());
  CHECK_FALSE(parse_sysfs_integer("9223372036854775808").has_value());
  CHECK(parse_sysfs_counter("18446744073709551615") == 18446744073709551615ull);
  CHECK_FALSE(parse_sysfs_counter("18446744073709551616").has_value());
  CHECK_FALSE(parse_sysfs_counter("-1").has_value());
  CHECK_FALSE(parse_sysfs_counter(" 1").has_value());
}

TEST_CASE("PAI_SYSFS_ROOT names the root - unset or empty it is /sys") {
  const char* saved = std::getenv("PAI_SYSFS_ROOT");
  const std::string before = saved ? saved : "";
  ::setenv("PAI_SYSFS_ROOT", "/tmp/fake-sys", 1);
  CHECK(SysfsRoot::from_env().root() == "/tmp/fake-sys");
  ::setenv("PAI_SYSFS_ROOT", "", 1);
  CHECK(SysfsRoot::from_env().root() == "/sys");
  ::unsetenv("PAI_SYSFS_ROOT");
  CHECK(SysfsRoot::from_env().root() == "/sys");
  if (saved) ::setenv("PAI_SYSFS_ROOT", before.c_str(), 1);
}

}  // namespace sysfs_root_test
