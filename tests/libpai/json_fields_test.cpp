#include "libpai/json_fields.h"

#include <catch2/catch.hpp>

#include "libpai/plan_json.h"

namespace json_fields_test {

namespace {

using nlohmann::json;

std::string error_of(const std::function<void()>& read) {
  try {
    read();
  } catch (const pai::PlanError& e) {
    return e.what();
  }
  FAIL("no PlanError");
  return "";
}

}  // namespace

TEST_CASE("JsonFields reads typed members") {
  const std::string file = "p.json";
  json doc = {{"s", "x"},         {"b", true},          {"n", 1.5},        {"i", -3},
              {"big", 1ll << 40}, {"list", {"a", "b"}}, {"o", {{"k", 1}}}, {"mode", "async"}};
  pai::JsonFields f(doc, "", file);
  CHECK(f.string("s") == "x");
  CHECK(f.boolean("b"));
  CHECK(f.number("n") == 1.5);
  CHECK(f.number("i") == -3);
  CHECK(f.integer("i") == -3);
  CHECK(f.int64("big") == 1ll << 40);
  CHECK(f.strings("list") == std::vector<std::string>{"a", "b"});
  CHECK(f.object("o").integer("k", 1) == 1);
  CHECK(f.enumeration("mode",
                      std::array{pai::FaultToleranceMode::Sync, pai::FaultToleranceMode::Async}) ==
        pai::FaultToleranceMode::Async);
  CHECK(f.child("x") == "x");
  CHECK(f.object("o").child("k") == "o.k");
  CHECK(f.item("list", 1) == "list[1]");
}

TEST_CASE("JsonFields names the file and path in every error") {
  const std::string file = "p.json";
  json doc = {{"s", 1},           {"o", {{"deep", {{"x", "y"}}}}},   {"list", {"a", 2}},
              {"big", 1ll << 40}, {"huge", 18446744073709551615ull}, {"mode", "sideways"},
              {"neg", -1}};
  pai::JsonFields f(doc, "", file);
  CHECK(error_of([&] { f.get("nope"); }) == "p.json: nope: field is missing");
  CHECK(error_of([&] { f.string("s"); }) == "p.json: s: expected a string");
  CHECK(error_of([&] { f.boolean("s"); }) == "p.json: s: expected a boolean");
  CHECK(error_of([&] { f.number("mode"); }) == "p.json: mode: expected a number");
  CHECK(error_of([&] { f.integer("mode"); }) == "p.json: mode: expected an integer");
  CHECK(error_of([&] { f.array("s"); }) == "p.json: s: expected an array");
  CHECK(error_of([&] { f.object("s"); }) == "p.json: s: expected an object");
  CHECK(error_of([&] { f.object("o").object("deep").integer("x"); }) ==
        "p.json: o.deep.x: expected an integer");
  CHECK(error_of([&] { f.strings("list"); }) == "p.json: list[1]: expected a string");
  CHECK(error_of([&] { f.integer("big"); }) == "p.json: big: integer out of range");
  CHECK(error_of([&] { f.int64("huge"); }) == "p.json: huge: integer out of range");
  CHECK(error_of([&] { f.integer("neg", 0); }) ==
        "p.json: neg: expected an integer from 0 to 2147483647");
  CHECK(error_of([&] {
          f.enumeration("mode", std::array{pai::Runtime::Host, pai::Runtime::Docker});
        }) == "p.json: mode: expected one of host, docker, got \"sideways\"");
  CHECK(error_of([&] { pai::JsonFields(json::array(), "top", file); }) ==
        "p.json: top: expected an object");
}

}  // namespace json_fields_test
