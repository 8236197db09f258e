#include "launcher/commands/coordinator_ha.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace coordinator_ha_test {

using namespace pai::launcher;

namespace {

std::optional<HaLeader> parsed(const std::string& value) {
  return parse_leader(ha::Leader{.name = "pai/jobs/j/0123456789abcdef/coordinator",
                                 .key = "pai/jobs/j/0123456789abcdef/coordinator/694d8",
                                 .revision = 42,
                                 .lease = 0x694d8,
                                 .value = value});
}

}  // namespace

TEST_CASE("a leader's election value reads back as where it serves") {
  const auto leader = parsed(leader_value("node-2", "10.0.0.2", 29500));
  REQUIRE(leader.has_value());
  CHECK(leader->node == "node-2");
  CHECK(leader->address == "10.0.0.2");
  CHECK(leader->port == 29500);
  CHECK(leader->revision == 42);
  CHECK(leader->where() == "10.0.0.2:29500");
  CHECK(parsed("node-1 ::1 1")->port == 1);
  CHECK(parsed("node-1 127.0.0.1 65535")->port == 65535);
}

TEST_CASE("an election value that is not NODE ADDRESS PORT names no leader") {
  for (const std::string& garbage : std::vector<std::string>{
           "", "node-1", "node-1 10.0.0.1", "node-1 10.0.0.1 29500 extra", "node-1 10.0.0.1 0",
           "node-1 10.0.0.1 65536", "node-1 10.0.0.1 -1", "node-1 10.0.0.1 29500x",
           "node-1 10.0.0.1 99999999999999999999", "node-1 10.0.0.1 0x10",
           std::string("node-1 10.0.0.1 29\0"
                       "500",
                       20)}) {
    INFO(garbage);
    CHECK_FALSE(parsed(garbage).has_value());
  }
}

}  // namespace coordinator_ha_test
