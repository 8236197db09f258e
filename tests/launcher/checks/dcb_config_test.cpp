#include "launcher/checks/dcb_config.h"

#include <linux/dcbnl.h>
#include <linux/netlink.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace dcb_config_test {

using pai::checks::DcbConfig;
using pai::checks::parse_dcb_ieee_reply;

namespace {

// Netlink attributes as the kernel writes them: header, payload, padding to 4 bytes.
void attribute(std::vector<unsigned char>& out, int type, const void* data, std::size_t size) {
  nlattr header{static_cast<std::uint16_t>(NLA_HDRLEN + size), static_cast<std::uint16_t>(type)};
  const auto* h = reinterpret_cast<const unsigned char*>(&header);
  out.insert(out.end(), h, h + sizeof header);
  const auto* d = static_cast<const unsigned char*>(data);
  out.insert(out.end(), d, d + size);
  out.resize(NLA_ALIGN(out.size()), 0);
}

std::vector<unsigned char> nest(int type, const std::vector<unsigned char>& inner) {
  std::vector<unsigned char> out;
  attribute(out, type, inner.data(), inner.size());
  return out;
}

// A reply for a port with PFC on priority 3 and DSCP 26 -> 3, 0 -> 0 (and a PCP entry).
std::vector<unsigned char> roce_reply() {
  ieee_pfc pfc{};
  pfc.pfc_en = 1u << 3;
  std::vector<unsigned char> apps;
  for (const dcb_app& app :
       {dcb_app{IEEE_8021QAZ_APP_SEL_DSCP, 3, 26}, dcb_app{IEEE_8021QAZ_APP_SEL_DSCP, 0, 0},
        dcb_app{IEEE_8021QAZ_APP_SEL_ETHERTYPE, 4, 0x8915}}) {
    attribute(apps, DCB_ATTR_IEEE_APP, &app, sizeof app);
  }
  std::vector<unsigned char> ieee;
  attribute(ieee, DCB_ATTR_IEEE_PFC, &pfc, sizeof pfc);
  const auto table = nest(DCB_ATTR_IEEE_APP_TABLE, apps);
  ieee.insert(ieee.end(), table.begin(), table.end());
  std::vector<unsigned char> reply;
  const char name[] = "eth2";
  attribute(reply, DCB_ATTR_IFNAME, name, sizeof name);
  const auto wrapped = nest(DCB_ATTR_IEEE, ieee);
  reply.insert(reply.end(), wrapped.begin(), wrapped.end());
  return reply;
}

}  // namespace

TEST_CASE("a DCB_CMD_IEEE_GET reply gives PFC's priorities and the DSCP mapping") {
  const auto reply = roce_reply();
  const auto config = parse_dcb_ieee_reply(reply.data(), reply.size());
  REQUIRE(config.has_value());
  CHECK(config->pfc_enabled == 0x08);
  CHECK(config->dscp_priority == std::map<int, int>{{0, 0}, {26, 3}});
}

TEST_CASE("a reply without IEEE attributes is no configuration - truncated ones never read past") {
  std::vector<unsigned char> no_ieee;
  const char name[] = "eth2";
  attribute(no_ieee, DCB_ATTR_IFNAME, name, sizeof name);
  CHECK_FALSE(parse_dcb_ieee_reply(no_ieee.data(), no_ieee.size()).has_value());
  CHECK_FALSE(parse_dcb_ieee_reply(nullptr, 0).has_value());

  const auto reply = roce_reply();
  // Every truncation of a valid reply parses without reading past its end (ASan checks).
  for (std::size_t n = 0; n < reply.size(); ++n) {
    std::vector<unsigned char> cut(reply.begin(), reply.begin() + static_cast<long>(n));
    const auto config = parse_dcb_ieee_reply(cut.data(), cut.size());
    if (config) CHECK(config->dscp_priority.size() <= 2);
  }
  // An attribute whose length runs past the buffer stops the walk.
  std::vector<unsigned char> lying = reply;
  nlattr first;
  std::memcpy(&first, lying.data(), sizeof first);
  first.nla_len = 0xFFFF;
  std::memcpy(lying.data(), &first, sizeof first);
  CHECK_FALSE(parse_dcb_ieee_reply(lying.data(), lying.size()).has_value());
}

TEST_CASE("the kernel answers for a veth that it has no DCB configuration") {
  if (::geteuid() != 0) {
    WARN("skipped: needs root to make a network namespace");
    return;
  }
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    char said = 'x';
    if (::unshare(CLONE_NEWNET) == 0 &&
        std::system("ip link add pai0 type veth peer name pai1 2>/dev/null") == 0) {
      pai::checks::KernelDcbReader dcb;
      said = dcb.read("pai0").has_value() ? 'y' : 'n';
      if (dcb.read("pai9").has_value()) said = 'g';
    }
    (void)!::write(fds[1], &said, 1);
    ::_exit(0);
  }
  ::close(fds[1]);
  char said = 0;
  CHECK(::read(fds[0], &said, 1) == 1);
  ::close(fds[0]);
  ::waitpid(pid, nullptr, 0);
  CHECK(said == 'n');
}

}  // namespace dcb_config_test
