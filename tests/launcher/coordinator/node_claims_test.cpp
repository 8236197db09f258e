#include "launcher/coordinator/node_claims.h"

#include <catch2/catch.hpp>

#include "machine_harness.h"

namespace node_claims_test {

using namespace pai::launcher::coordinator;
using namespace pai::launcher::coordinator::testing;

namespace {

// What a `claim` of `identity` from control client `client` is answered: "ok: NODE" or
// "error: TEXT".
std::string claim(MachineHarness& h, const std::string& client, const std::string& identity) {
  h.clear();
  h.receive(client, Json{{"type", "claim"}, {"identity", identity}});
  for (const char* type : {"ok", "error"}) {
    const auto replies = h.sent(client, type);
    if (!replies.empty()) {
      return std::string(type) + ": " + replies.at(0).at("text").get<std::string>();
    }
  }
  FAIL("no answer to the claim");
  return "";
}

}  // namespace

TEST_CASE("claims hand out the nodes in order, never the coordinator's, then the spares") {
  // make_test_plan(): node-0 (the coordinator's host), node-1, node-2, and spare-0.
  MachineHarness h;
  h.control("a");
  h.control("b");
  CHECK(claim(h, "a", "host-a:1:x") == "ok: node-1");
  CHECK(claim(h, "b", "host-b:1:y") == "ok: node-2");
  // The same launcher asking again (its answer lost) gets the same node.
  CHECK(claim(h, "a", "host-a:1:x") == "ok: node-1");
  CHECK(claim(h, "b", "host-c:1:z") == "ok: spare-0");
  CHECK(claim(h, "b", "host-d:1:w") ==
        "error: every node of job test-job (4 with the spares) has a launcher or a claim: is this "
        "launcher one too many, or one of another job with the same name?");
}

TEST_CASE("a joined node is not handed out - a claimant that is gone frees its node") {
  MachineHarness h;
  h.control("a");
  h.control("b");
  h.join("node-1");
  CHECK(claim(h, "b", "x") == "ok: node-2");
  CHECK(claim(h, "a", "y") == "ok: spare-0");
  CHECK(claim(h, "a", "z").rfind("error: ", 0) == 0);
  // x's connection closes (its launcher died before it joined): node-2 is free again.
  h.disconnect("b");
  CHECK(claim(h, "a", "z") == "ok: node-2");
  // A node whose launcher is lost is free for a new one.
  h.disconnect("node-1");
  CHECK(claim(h, "a", "after-loss") == "ok: node-1");
}

TEST_CASE("an empty identity is refused") {
  MachineHarness h;
  h.control("a");
  CHECK(claim(h, "a", "") == "error: claim: an empty identity");
}

}  // namespace node_claims_test
