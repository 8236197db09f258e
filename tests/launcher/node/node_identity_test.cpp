#include "launcher/node/node_identity.h"

#include <catch2/catch.hpp>

#include "support/plan_fixture.h"

namespace node_identity_test {

using namespace pai::launcher;

namespace {

std::string identify(const pai::Plan& plan, NodeHints hints, LocalIdentity local,
                     std::string* how) {
  const pai::Placement& p = identify_node(plan, hints, local, how);
  return p.role + "-" + std::to_string(p.index);
}

std::string error_of(const pai::Plan& plan, NodeHints hints, LocalIdentity local) {
  std::string how;
  try {
    identify_node(plan, hints, local, &how);
  } catch (const NodeError& e) {
    return e.what();
  }
  FAIL("no error");
  return "";
}

}  // namespace

TEST_CASE("flags win - then the hostname - then a local address") {
  const pai::Plan plan = pai::testing::make_test_plan(2, 2);
  const LocalIdentity elsewhere{"laptop", {"127.0.0.1", "10.0.0.2"}};
  std::string how;
  CHECK(identify(plan, {"node-2", std::nullopt}, elsewhere, &how) == "ps-0");
  CHECK(how == "--node node-2");
  CHECK(identify(plan, {std::nullopt, 1}, elsewhere, &how) == "worker-1");
  CHECK(how == "--node-rank 1");
  CHECK(identify(plan, {}, LocalIdentity{"node-0.cluster.local", {}}, &how) == "worker-0");
  CHECK(how == "hostname node-0.cluster.local");
  CHECK(identify(plan, {}, elsewhere, &how) == "worker-1");
  CHECK(how == "address 10.0.0.2");
}

TEST_CASE("nodes outside the plan are located errors") {
  const pai::Plan plan = pai::testing::make_test_plan(2, 2);
  const LocalIdentity none{"laptop", {"127.0.0.1"}};
  CHECK(error_of(plan, {"gpu-9", std::nullopt}, none) ==
        "node 'gpu-9' is not in the plan (hosts: node-0, node-1, node-2)");
  CHECK(error_of(plan, {"spare-0", std::nullopt}, none) ==
        "node 'spare-0' is a spare: it runs no instance of this plan");
  CHECK(error_of(plan, {std::nullopt, 3}, none) ==
        "--node-rank 3 is out of range: the plan has 3 instances (0..2)");
  CHECK(error_of(plan, {}, none) ==
        "cannot tell which host of the plan this is: hostname 'laptop' and addresses 127.0.0.1 "
        "match none of its hosts (node-0, node-1, node-2); pass --node NAME or --node-rank N");
  CHECK(error_of(plan, {}, LocalIdentity{"laptop", {"10.0.0.1", "10.0.0.2"}}) ==
        "cannot tell which host of the plan this is: hosts node-0, node-1 all have addresses of "
        "this machine; pass --node NAME or --node-rank N");
}

TEST_CASE("this machine's identity includes the loopback address") {
  const LocalIdentity id = local_identity();
  CHECK_FALSE(id.hostname.empty());
  CHECK(std::find(id.addresses.begin(), id.addresses.end(), "127.0.0.1") != id.addresses.end());
}

}  // namespace node_identity_test
