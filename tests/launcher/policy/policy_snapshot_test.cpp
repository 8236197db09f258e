#include "launcher/policy/policy_snapshot.h"

#include <catch2/catch.hpp>

namespace policy_snapshot_test {

using pai::launcher::PolicySnapshot;
using pai::launcher::PolicySnapshotError;
using pai::launcher::policy_snapshot_from_json;
using Json = nlohmann::json;

TEST_CASE("a policy snapshot survives its JSON") {
  const PolicySnapshot snapshot{{3, 0, 1},
                                {PolicySnapshot::Outcome::Running,
                                 PolicySnapshot::Outcome::Succeeded,
                                 PolicySnapshot::Outcome::Tolerated},
                                {{"exit:1", 2}, {"hang", 1}}};
  const Json json = to_json(snapshot);
  CHECK(json.dump() ==
        R"({"outcomes":["running","succeeded","tolerated"],"restarts":[3,0,1],)"
        R"("sameError":{"exit:1":2,"hang":1}})");
  CHECK(policy_snapshot_from_json(Json::parse(json.dump()), 3) == snapshot);
}

TEST_CASE("a bad policy snapshot is refused naming its field") {
  const auto refused = [](const char* text, std::size_t instances = 4) {
    try {
      policy_snapshot_from_json(Json::parse(text), instances);
    } catch (const PolicySnapshotError& e) {
      return std::string(e.what());
    }
    FAIL("accepted: " << text);
    return std::string();
  };
  CHECK(refused("[]") == "expected an object, got []");
  CHECK(refused(R"({"outcomes":[],"sameError":{}})") == "restarts: expected a list");
  CHECK(refused(R"({"restarts":[1],"outcomes":[],"sameError":{}})") ==
        "restarts and outcomes: 1 and 0 instances: expected as many");
  CHECK(refused(R"({"restarts":[-1],"outcomes":["running"],"sameError":{}})") ==
        "restarts[0]: expected a count from 0 to 2147483647, got -1");
  CHECK(refused(R"({"restarts":[99999999999],"outcomes":["running"],"sameError":{}})") ==
        "restarts[0]: expected a count from 0 to 2147483647, got 99999999999");
  CHECK(refused(R"({"restarts":[0],"outcomes":["won"],"sameError":{}})") ==
        R"(outcomes[0]: expected running, succeeded or tolerated, got "won")");
  CHECK(refused(R"({"restarts":[0],"outcomes":["running"],"sameError":{"x":"2"}})") ==
        R"(sameError.x: expected a count from 0 to 2147483647, got "2")");
  CHECK(refused(R"({"restarts":[0,0],"outcomes":["running","running"],"sameError":{}})", 1) ==
        "restarts: 2 instances, more than the job's 1");
}

}  // namespace policy_snapshot_test
