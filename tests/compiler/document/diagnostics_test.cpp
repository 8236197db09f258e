#include "compiler/document/diagnostics.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

namespace diagnostics_test {

using pai::Diagnostics;
using pai::Location;

namespace {

const std::map<std::string, std::string> kSources = {
    {"job.yaml",
     "apiVersion: pai/v1\n"
     "roles:\n"
     "  worker:\n"
     "    instances: two\n"
     "\tcommand: x\n"
     "  ps: {naem: \xc3\xa9t\xc3\xa9, x: 1}\r\n"}};

}  // namespace

TEST_CASE("render_text shows the location - the path - the source line and a caret") {
  Diagnostics diags;
  diags.error(Location{"job.yaml", 4, 16}, "roles.worker.instances",
              "expected a positive integer, got \"two\"");
  CHECK(diags.render_text(kSources) ==
        "job.yaml:4:16: error: roles.worker.instances: expected a positive integer, got \"two\"\n"
        "    4 |     instances: two\n"
        "      |                ^\n"
        "1 error\n");
}

TEST_CASE("render_text keeps tabs so that the caret stays aligned") {
  Diagnostics diags;
  diags.error(Location{"job.yaml", 5, 2}, "", "tabs are not allowed");
  CHECK(diags.render_text(kSources) ==
        "job.yaml:5:2: error: tabs are not allowed\n"
        "    5 | \tcommand: x\n"
        "      | \t^\n"
        "1 error\n");
}

TEST_CASE("render_text counts multi-byte characters once and drops a CR") {
  Diagnostics diags;
  diags.warning(Location{"job.yaml", 6, 19}, "roles.ps", "odd");
  // Byte column 19 is the ',' after the 5 bytes of "\xc3\xa9t\xc3\xa9" (3 characters).
  CHECK(diags.render_text(kSources) ==
        "job.yaml:6:19: warning: roles.ps: odd\n"
        "    6 |   ps: {naem: \xc3\xa9t\xc3\xa9, x: 1}\n"
        "      |                 ^\n"
        "1 warning\n");
}

TEST_CASE("render_text without a line (Jsonnet output) has no caret") {
  Diagnostics diags;
  diags.error(Location{"job.jsonnet", 0, 0}, "roles.worker.instances",
              "expected an integer between 1 and 100000, got 0");
  CHECK(diags.render_text(kSources) ==
        "job.jsonnet: error: roles.worker.instances: expected an integer between 1 and 100000, "
        "got 0\n"
        "1 error\n");
}

TEST_CASE("render_text without the source file prints only the header") {
  Diagnostics diags;
  diags.error(Location{"other.yaml", 3, 1}, "name", "bad");
  CHECK(diags.render_text(kSources) == "other.yaml:3:1: error: name: bad\n1 error\n");
}

TEST_CASE("render_text puts a caret past the end of a line") {
  Diagnostics diags;
  diags.error(Location{"job.yaml", 2, 8}, "", "unexpected end");
  CHECK(diags.render_text(kSources) ==
        "job.yaml:2:8: error: unexpected end\n"
        "    2 | roles:\n"
        "      |        ^\n"
        "1 error\n");
}

TEST_CASE("render_text replaces control characters and invalid UTF-8") {
  Diagnostics diags;
  diags.error(Location{"bin.yaml", 1, 3}, "", "file is not valid UTF-8 (byte 0xff)");
  CHECK(diags.render_text({{"bin.yaml", "a\x01\xff" "b\n"}}) ==
        "bin.yaml:1:3: error: file is not valid UTF-8 (byte 0xff)\n"
        "    1 | a\xef\xbf\xbd\xef\xbf\xbd" "b\n"
        "      |   ^\n"
        "1 error\n");
}

TEST_CASE("render_text sorts by file - line and column and counts") {
  Diagnostics diags;
  diags.error(Location{"job.yaml", 4, 16}, "b", "second");
  diags.warning(Location{"job.yaml", 2, 1}, "a", "first");
  diags.error(Location{"job.yaml", 4, 16}, "c", "third");
  const std::string text = diags.render_text({});
  CHECK(text ==
        "job.yaml:2:1: warning: a: first\n"
        "job.yaml:4:16: error: b: second\n"
        "job.yaml:4:16: error: c: third\n"
        "2 errors, 1 warning\n");
  CHECK(diags.error_count() == 2);
  CHECK(diags.has_errors());
}

TEST_CASE("render_text of nothing is empty") {
  Diagnostics diags;
  CHECK(diags.render_text(kSources).empty());
  CHECK_FALSE(diags.has_errors());
}

TEST_CASE("render_json gives every field - in sorted order") {
  Diagnostics diags;
  diags.error(Location{"job.yaml", 4, 16}, "roles.worker.instances", "bad \"two\"");
  diags.warning(Location{"job.yaml", 1, 1}, "", "w");
  const auto json = nlohmann::json::parse(diags.render_json());
  REQUIRE(json.is_array());
  REQUIRE(json.size() == 2);
  CHECK(json[0] == nlohmann::json{{"file", "job.yaml"},
                                  {"line", 1},
                                  {"column", 1},
                                  {"path", ""},
                                  {"severity", "warning"},
                                  {"message", "w"}});
  CHECK(json[1]["path"] == "roles.worker.instances");
  CHECK(json[1]["severity"] == "error");
  CHECK(json[1]["message"] == "bad \"two\"");
  CHECK(json[1]["line"] == 4);
  CHECK(json[1]["column"] == 16);
}

TEST_CASE("render_json of nothing is an empty array") {
  Diagnostics diags;
  CHECK(diags.render_json() == "[]\n");
}

TEST_CASE("render_json puts a whole-file finding at line 1 - column 1 - text keeps no position") {
  Diagnostics diags;
  diags.error(Location{"job.yaml", 0, 0}, "", "the file is empty");
  diags.error(Location{"job.yaml", 3, 0}, "roles", "no column");
  const auto json = nlohmann::json::parse(diags.render_json());
  REQUIRE(json.size() == 2);
  CHECK(json[0]["line"] == 1);
  CHECK(json[0]["column"] == 1);
  CHECK(json[0]["message"] == "the file is empty");
  CHECK(json[1]["line"] == 3);
  CHECK(json[1]["column"] == 1);
  CHECK(diags.render_text({}) ==
        "job.yaml: error: the file is empty\n"
        "job.yaml:3: error: roles: no column\n"
        "2 errors\n");
}

TEST_CASE("render_json survives bytes that are not UTF-8") {
  Diagnostics diags;
  diags.error(Location{"job.yaml", 1, 1}, "", "got \xff");
  const auto json = nlohmann::json::parse(diags.render_json());
  CHECK(json[0]["message"] == "got \xef\xbf\xbd");
}

TEST_CASE("render_text cuts a very long line to a window around the caret") {
  Diagnostics diags;
  const std::string line = "x: " + std::string(500, '[') + std::string(500, ']');
  diags.error(Location{"deep.yaml", 1, 200}, "", "nesting deeper than 64 levels");
  // Column 200 is character 199 before the caret; the window starts 50 characters earlier.
  CHECK(diags.render_text({{"deep.yaml", line + "\n"}}) ==
        "deep.yaml:1:200: error: nesting deeper than 64 levels\n"
        "    1 | ..." + std::string(100, '[') + "...\n"
        "      |    " + std::string(50, ' ') + "^\n"
        "1 error\n");
}

TEST_CASE("render_text shows a long line's start when the caret is near it") {
  Diagnostics diags;
  const std::string line = "name: " + std::string(300, 'a');
  diags.error(Location{"job.yaml", 1, 7}, "name", "too long");
  CHECK(diags.render_text({{"job.yaml", line}}) ==
        "job.yaml:1:7: error: name: too long\n"
        "    1 | name: " + std::string(94, 'a') + "...\n"
        "      |       ^\n"
        "1 error\n");
}

TEST_CASE("render_sarif gives a SARIF 2.1.0 run - one result per finding, located") {
  Diagnostics diags;
  diags.error(Location{"jobs/my job.yaml", 4, 16}, "roles.worker.instances", "bad \"two\"");
  diags.warning(Location{"jobs/my job.yaml", 0, 0}, "", "whole file");
  const auto log = nlohmann::json::parse(diags.render_sarif("pai-compile", "1.2.3"));
  CHECK(log["version"] == "2.1.0");
  CHECK(log["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json");
  REQUIRE(log["runs"].size() == 1);
  const auto& run = log["runs"][0];
  CHECK(run["tool"]["driver"]["name"] == "pai-compile");
  CHECK(run["tool"]["driver"]["version"] == "1.2.3");
  std::set<std::string> rules;
  for (const auto& rule : run["tool"]["driver"]["rules"]) rules.insert(rule["id"]);
  CHECK(rules == std::set<std::string>{"pai-compile/error", "pai-compile/warning",
                                       "pai-compile/note"});
  REQUIRE(run["results"].size() == 2);
  const auto& whole = run["results"][0];  // sorted: line 0 first
  CHECK(whole["ruleId"] == "pai-compile/warning");
  CHECK(whole["level"] == "warning");
  CHECK(whole["message"]["text"] == "whole file");
  CHECK_FALSE(whole.contains("properties"));
  const auto& region = whole["locations"][0]["physicalLocation"]["region"];
  CHECK(region["startLine"] == 1);
  CHECK(region["startColumn"] == 1);
  const auto& error = run["results"][1];
  CHECK(error["ruleId"] == "pai-compile/error");
  CHECK(error["level"] == "error");
  CHECK(error["message"]["text"] == "roles.worker.instances: bad \"two\"");
  CHECK(error["properties"]["path"] == "roles.worker.instances");
  const auto& where = error["locations"][0]["physicalLocation"];
  CHECK(where["artifactLocation"]["uri"] == "jobs/my%20job.yaml");
  CHECK(where["region"]["startLine"] == 4);
  CHECK(where["region"]["startColumn"] == 16);
  // Every rule a result names is declared.
  for (const auto& result : run["results"]) CHECK(rules.contains(result["ruleId"]));
}

TEST_CASE("render_sarif of nothing is a run without results") {
  Diagnostics diags;
  const auto log = nlohmann::json::parse(diags.render_sarif("pai-compile", "1"));
  CHECK(log["runs"][0]["results"] == nlohmann::json::array());
}

}  // namespace diagnostics_test
