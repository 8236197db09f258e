#include "compiler/document/document_yaml.h"

#include <catch2/catch.hpp>

#include "compiler/document/yaml_loader.h"

namespace document_yaml_test {

using pai::Node;

namespace {

Node scalar(const std::string& text, bool quoted = true) {
  Node n;
  n.kind = Node::Kind::Scalar;
  n.scalar = text;
  n.quoted = quoted;
  return n;
}

Node mapping(std::vector<std::pair<std::string, Node>> entries) {
  Node n;
  n.kind = Node::Kind::Mapping;
  for (auto& [k, v] : entries) n.entries.emplace_back(scalar(k), std::move(v));
  return n;
}

Node sequence(std::vector<Node> items) {
  Node n;
  n.kind = Node::Kind::Sequence;
  n.items = std::move(items);
  return n;
}

// Same kinds and texts; a string written plain reads back as the same string.
void check_same(const Node& written, const Node& read) {
  REQUIRE(written.kind == read.kind);
  CHECK(written.scalar == read.scalar);
  if (written.is_scalar() && written.quoted && !read.quoted) {
    // Read back unquoted: it must not be something YAML resolves to a number or a bool.
    for (const char* special : {"true", "false", "null", "yes", "no", "on", "off"}) {
      CHECK(read.scalar != special);
    }
    CHECK(read.scalar.find_first_not_of("0123456789.+-e") != std::string::npos);
  }
  REQUIRE(written.items.size() == read.items.size());
  for (std::size_t i = 0; i < written.items.size(); ++i)
    check_same(written.items[i], read.items[i]);
  REQUIRE(written.entries.size() == read.entries.size());
  for (std::size_t i = 0; i < written.entries.size(); ++i) {
    check_same(written.entries[i].first, read.entries[i].first);
    check_same(written.entries[i].second, read.entries[i].second);
  }
}

}  // namespace

TEST_CASE("a spec tree is written as block YAML") {
  const Node root = mapping(
      {{"name", scalar("job-1")},
       {"hosts", sequence({mapping({{"name", scalar("node-0")}, {"address", scalar("10.0.0.1")}}),
                           scalar("node-1")})},
       {"roles",
        mapping({{"default", mapping({{"instances", scalar("2", false)},
                                      {"command", sequence({scalar("python3"), scalar("-u"),
                                                            scalar("/data/train.py")})},
                                      {"env", mapping({})}})}})}});
  CHECK(pai::to_yaml(root) ==
        "name: job-1\n"
        "hosts:\n"
        "  - name: node-0\n"
        "    address: \"10.0.0.1\"\n"
        "  - node-1\n"
        "roles:\n"
        "  default:\n"
        "    instances: 2\n"
        "    command:\n"
        "      - python3\n"
        "      - \"-u\"\n"
        "      - /data/train.py\n"
        "    env: {}\n");
}

TEST_CASE("what YAML would read otherwise is double-quoted, and reads back the same") {
  const Node root =
      mapping({{"words", sequence({scalar("8"), scalar("true"), scalar("no"), scalar(""),
                                   scalar(".5"), scalar("a: b"), scalar("#x"),
                                   scalar("it's \"q\"\\"), scalar("tab\there\nnext"),
                                   scalar("--lr=0.1"), scalar("null"), scalar("~")})},
               {"number", scalar("8", false)},
               {"flag", scalar("false", false)},
               {"my key", scalar("v")}});
  const std::string yaml = pai::to_yaml(root);
  CHECK(yaml.find("- \"8\"\n") != std::string::npos);
  CHECK(yaml.find("- \"true\"\n") != std::string::npos);
  CHECK(yaml.find("number: 8\n") != std::string::npos);
  CHECK(yaml.find("\"my key\": v\n") != std::string::npos);
  check_same(root, pai::load_yaml("spec.yaml", yaml).root);
}

TEST_CASE("an empty document is written inline") {
  CHECK(pai::to_yaml(mapping({})) == "{}\n");
  CHECK(pai::to_yaml(sequence({})) == "[]\n");
}

}  // namespace document_yaml_test
