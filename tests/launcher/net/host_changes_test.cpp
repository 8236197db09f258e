// The host list of `assign` as changes against the plan's placements.
#include "launcher/net/host_changes.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "launcher/net/frame.h"

namespace host_changes_test {

using namespace pai;
using namespace pai::net;
using Json = nlohmann::json;

namespace {

std::vector<Host> three() {
  return {{"a", "10.0.0.1", 8}, {"b", "10.0.0.2", 8}, {"c", "10.0.0.3", 8}};
}

}  // namespace

TEST_CASE("host changes list only the instances whose host differs") {
  std::vector<Host> hosts = three();
  CHECK(host_changes(three(), hosts).empty());
  hosts[1] = Host{"spare", "10.0.1.1", 8};
  hosts[2].address = "127.0.0.1";
  const std::vector<HostChange> changes = host_changes(three(), hosts);
  REQUIRE(changes.size() == 2);
  CHECK(changes[0] == HostChange{1, "spare", "10.0.1.1", 8});
  CHECK(changes[1].instance == 2);
  const std::vector<Host> back = apply_host_changes(three(), changes);
  REQUIRE(back.size() == 3);
  CHECK(back[0].name == "a");
  CHECK(back[1].name == "spare");
  CHECK(back[1].address == "10.0.1.1");
  CHECK(back[2].address == "127.0.0.1");
  // The JSON of an `assign` applies the same way.
  CHECK(apply_host_changes(three(), parse_host_changes(to_json(Assign{0, changes}).at("hosts")))[1]
            .name == "spare");
}

TEST_CASE("malformed host changes are protocol errors") {
  using pai::net::ProtocolError;
  CHECK_THROWS_AS(parse_host_changes(Json::object()), ProtocolError);
  CHECK_THROWS_WITH(
      apply_host_changes(three(), parse_host_changes(Json::parse(
                                      R"([{"instance":3,"name":"x","address":"y","slots":0}])"))),
      "assign: hosts: instance 3 is not in the plan (3 instances)");
  CHECK_THROWS_AS(
      parse_host_changes(Json::parse(R"([{"instance":-1,"name":"x","address":"y","slots":0}])")),
      ProtocolError);
  CHECK_THROWS_AS(
      parse_host_changes(Json::parse(R"([{"instance":0,"name":1,"address":"y","slots":0}])")),
      ProtocolError);
  CHECK_THROWS_AS(parse_host_changes(Json::parse(R"([{"instance":0,"name":"x","address":"y"}])")),
                  ProtocolError);
  CHECK_THROWS_AS(parse_host_changes(Json::parse(R"(["x"])")), ProtocolError);
}

}  // namespace host_changes_test
