#include "libpai/json_writer.h"

#include <catch2/catch.hpp>
#include <climits>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace json_writer_test {

using nlohmann::json;

namespace {

std::string nlohmann_dump(const json& document) {
  return document.dump(2, ' ', false, json::error_handler_t::replace);
}

}  // namespace

TEST_CASE("JsonWriter writes what nlohmann dump(2) writes") {
  const std::vector<std::string> strings = {"",
                                            "plain",
                                            "quote\" backslash\\ slash/",
                                            "\b\f\n\r\t\x01\x1f\x7f",
                                            "caf\xc3\xa9 \xf0\x9f\x9a\x80",
                                            "bad \xff\xfe utf-8 \xc3",
                                            "\xe2\x82"};
  std::string out;
  pai::JsonWriter w(out);
  w.begin_object();
  w.member("a-empty-array", std::vector<int>{});
  w.key("b-empty-object");
  w.begin_object();
  w.end_object();
  w.member("c-bool", true);
  w.member("d-false", false);
  w.key("e-doubles");
  w.begin_array();
  for (double d : {0.0, -0.0, 0.1, 96.0, 1e300, -2.5e-8, 1.0 / 3}) w.value(d);
  w.end_array();
  w.key("f-ints");
  w.begin_array();
  w.value(std::int64_t{INT64_MIN});
  w.value(std::int64_t{INT64_MAX});
  w.value(0);
  w.value(-1);
  w.end_array();
  w.key("g-nested");
  w.begin_array();
  w.begin_object();
  w.member("x", std::vector<int>{1, 2});
  w.end_object();
  w.begin_array();
  w.end_array();
  w.end_array();
  w.member("h-strings", strings);
  w.member("i-string", "it's");
  w.member("\xc3\xa9-unicode-key", "\n");
  w.end_object();

  json expected = {
      {"a-empty-array", json::array()},
      {"b-empty-object", json::object()},
      {"c-bool", true},
      {"d-false", false},
      {"e-doubles", {0.0, -0.0, 0.1, 96.0, 1e300, -2.5e-8, 1.0 / 3}},
      {"f-ints", {INT64_MIN, INT64_MAX, 0, -1}},
      {"g-nested", {json{{"x", {1, 2}}}, json::array()}},
      {"h-strings", strings},
      {"i-string", "it's"},
      {"\xc3\xa9-unicode-key", "\n"},
  };
  CHECK(out == nlohmann_dump(expected));
}

TEST_CASE("JsonWriter writes bare scalars and appends to existing text") {
  std::string out = "prefix:";
  pai::JsonWriter w(out);
  w.value("x\"y");
  CHECK(out == "prefix:\"x\\\"y\"");
  CHECK(w.size() == out.size());
}

TEST_CASE("JsonWriter refuses keys out of canonical order") {
  std::string out;
  pai::JsonWriter w(out);
  w.begin_object();
  w.member("b", 1);
  CHECK_THROWS_MATCHES(w.key("a"), std::logic_error,
                       Catch::Message("JSON key \"a\" written out of canonical order"));
  CHECK_THROWS_MATCHES(w.key("b"), std::logic_error,
                       Catch::Message("JSON key \"b\" written out of canonical order"));
  w.member("bb", 2);
  w.end_object();
  CHECK(out == "{\n  \"b\": 1,\n  \"bb\": 2\n}");
}

}  // namespace json_writer_test
