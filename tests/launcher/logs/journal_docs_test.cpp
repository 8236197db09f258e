#include "launcher/logs/journal_docs.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "launcher/logs/journal.h"
#include "support/temp_dir.h"

// docs/journal.md's events and schemas/journal.schema.json are made from the events' tables;
// these tests fail when the files in the tree are not what the tables make, and
// PAI_UPDATE_GOLDEN=1 rewrites them.

namespace journal_docs_test {

using namespace pai::launcher::journal;
using pai::testing::slurp;
using pai::testing::spit;

namespace {

const std::string kDocs = std::string(PAI_SOURCE_DIR) + "/docs/journal.md";
const std::string kSchema = std::string(PAI_SOURCE_DIR) + "/schemas/journal.schema.json";

bool updating() {
  const char* v = std::getenv("PAI_UPDATE_GOLDEN");
  return v != nullptr && std::string(v) == "1";
}

}  // namespace

TEST_CASE("docs/journal.md lists every event as the tables say") {
  const std::string text = slurp(kDocs);
  const std::size_t begin = text.find(kDocsBegin);
  const std::size_t end = text.find(kDocsEnd);
  REQUIRE(begin != std::string::npos);
  REQUIRE(end != std::string::npos);
  REQUIRE(begin < end);
  const std::size_t from = begin + kDocsBegin.size();
  const std::string made = "\n\n" + journal_markdown() + "\n";
  if (updating()) {
    spit(kDocs, text.substr(0, from) + made + text.substr(end));
    return;
  }
  INFO("docs/journal.md is stale: run PAI_UPDATE_GOLDEN=1 ctest -R journal_docs");
  CHECK(text.substr(from, end - from) == made);
}

TEST_CASE("schemas/journal.schema.json is the schema the tables make") {
  if (updating()) spit(kSchema, journal_schema());
  INFO("schemas/journal.schema.json is stale: run PAI_UPDATE_GOLDEN=1 ctest -R journal_docs");
  CHECK(slurp(kSchema) == journal_schema());
}

TEST_CASE("the schema takes what the writer writes and refuses what it never would") {
  pai::testing::TempDir dir;
  const std::string good = dir / "good.jsonl";
  spit(good,
       format_record(0, current_header()) +
           format_record(1, Exited{.instance = "worker-0", .status = {1, 0}}) +
           format_record(2, Restart{.instance = "worker-0", .delay_seconds = 1}) +
           format_record(3, FabricVerdict{.bad_links = {{"a", "b"}},
                                          .pairs = {FabricPair{.first = "a", .error = "x"}}}));
  const std::string bad = dir / "bad.jsonl";
  spit(bad, "{\"time\":\"1970-01-01T00:00:00.000Z\",\"event\":\"exited\",\"status\":\"{}\"}\n");
  auto validate = [&](const std::string& journal) {
    const std::string command =
        "/usr/bin/python3 -c 'import json,sys,jsonschema\n"
        "v = jsonschema.Draft202012Validator(json.load(open(sys.argv[1])))\n"
        "[v.validate(json.loads(l)) for l in open(sys.argv[2])]' " +
        kSchema + " " + journal + " 2>/dev/null";
    return std::system(command.c_str());
  };
  CHECK(validate(good) == 0);
  CHECK(validate(bad) != 0);
}

}  // namespace journal_docs_test
