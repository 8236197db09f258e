#include "launcher/checks/check_result_json.h"

#include <catch2/catch.hpp>

namespace check_result_json_test {

using namespace pai::checks;

namespace {

CheckResult sample() {
  CheckResult r = make_result("gpu", CheckResult::Passed, "8x NVIDIA H100 80GB HBM3");
  r.figure = "8x NVIDIA H100 80GB HBM3";
  r.seconds = 1.25;
  r.detail = "GPU 0: ok\n";
  r.facts = {{"driver", "550.54.15"}, {"cuda", "12.4"}};
  return r;
}

std::string error_of(const std::string& text) {
  try {
    result_from_json(text);
  } catch (const CheckResultError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("a result survives the JSON round trip") {
  CheckResult back = result_from_json(to_json(sample()));
  CHECK(back.name == "gpu");
  CHECK(back.status == CheckResult::Passed);
  CHECK(back.summary == "8x NVIDIA H100 80GB HBM3");
  CHECK(back.figure == "8x NVIDIA H100 80GB HBM3");
  CHECK(back.seconds == 1.25);
  CHECK(back.detail == "GPU 0: ok\n");
  CHECK(back.facts == sample().facts);
}

TEST_CASE("a list of results survives the JSON round trip in order") {
  std::vector<CheckResult> results = {sample(),
                                      make_result("burn", CheckResult::Skipped, "no CUDA driver")};
  auto back = results_from_json(to_json(results));
  REQUIRE(back.size() == 2);
  CHECK(back[0].name == "gpu");
  CHECK(back[1].name == "burn");
  CHECK(back[1].status == CheckResult::Skipped);
}

TEST_CASE("the JSON form has the documented field names") {
  CHECK(
      to_json(make_result("disk", CheckResult::Failed, "full")) ==
      R"({"detail":"","facts":{},"figure":"","name":"disk","seconds":0.0,"status":"failed","summary":"full"})");
}

TEST_CASE("output that is not UTF-8 is replaced - not thrown on") {
  CheckResult r = make_result("custom:x", CheckResult::Failed, "exited with status 1");
  r.detail = "bad \xff\xfe bytes";
  CheckResult back = result_from_json(to_json(r));
  CHECK(back.detail == "bad \xEF\xBF\xBD\xEF\xBF\xBD bytes");
}

TEST_CASE("malformed result JSON is rejected with the field named") {
  CHECK(error_of("{").rfind("check result: invalid JSON: ", 0) == 0);
  CHECK(error_of("[]") == "check result: expected an object");
  CHECK(error_of(R"({"status":"passed"})") == "check result: missing field \"name\"");
  CHECK(error_of(R"({"name":1})") == "check result: field \"name\" has the wrong type");
  CHECK(error_of(R"({"name":"x","status":"great"})") == "check result: unknown status \"great\"");
  CHECK(
      error_of(
          R"({"name":"x","status":"passed","summary":"","figure":"","seconds":1,"detail":"","facts":{"a":1}})") ==
      "check result: fact \"a\" is not a string");
}

TEST_CASE("a malformed element of a result list is named by its index") {
  try {
    results_from_json(R"([{"name":"x"}])");
    FAIL("no error");
  } catch (const CheckResultError& e) {
    CHECK(std::string(e.what()) == "check result 0: missing field \"status\"");
  }
  CHECK_THROWS_WITH(results_from_json("{}"), "check results: expected an array");
}

}  // namespace check_result_json_test
