#include "compiler/document/yaml_loader.h"

#include <catch2/catch.hpp>
#include <cctype>
#include <chrono>
#include <random>
#include <string>

namespace pai {
namespace yaml_loader_test {

/// Loads `text`, requires a LoadError and returns its diagnostic.
Diagnostic load_error(const std::string& text, const YamlLimits& limits = {}) {
  try {
    load_yaml("job.yaml", text, limits);
  } catch (const LoadError& e) {
    return e.diagnostic;
  }
  FAIL("load_yaml accepted input that it must reject");
  return {};
}

void check_error(const Diagnostic& d, int line, int column, const std::string& message) {
  CHECK(d.severity == Severity::Error);
  CHECK(d.loc.file == "job.yaml");
  CHECK(d.loc.line == line);
  CHECK(d.loc.column == column);
  CHECK(d.message == message);
}

TEST_CASE("load_yaml builds the tree with 1-based locations") {
  const Document doc = load_yaml("job.yaml",
                                 "apiVersion: pai/v1\n"
                                 "roles:\n"
                                 "  worker:\n"
                                 "    instances: 8\n"
                                 "    command: [python, train.py]\n");
  CHECK(doc.file == "job.yaml");
  CHECK(doc.text.substr(0, 11) == "apiVersion:");
  REQUIRE(doc.root.is_mapping());
  CHECK(doc.root.loc.line == 1);
  CHECK(doc.root.loc.column == 1);
  REQUIRE(doc.root.entries.size() == 2);
  const Node& key = doc.root.entries[1].first;
  CHECK(key.scalar == "roles");
  CHECK(key.loc.line == 2);
  CHECK(key.loc.column == 1);

  const Node* worker = doc.root.find("roles")->find("worker");
  REQUIRE(worker != nullptr);
  const Node* instances = worker->find("instances");
  REQUIRE(instances != nullptr);
  CHECK(instances->is_scalar());
  CHECK(instances->scalar == "8");
  CHECK(instances->loc.file == "job.yaml");
  CHECK(instances->loc.line == 4);
  CHECK(instances->loc.column == 16);
  const Node* command = worker->find("command");
  REQUIRE(command->is_sequence());
  REQUIRE(command->items.size() == 2);
  CHECK(command->items[1].scalar == "train.py");
  CHECK(command->items[1].loc.line == 5);
  CHECK(command->items[1].loc.column == 23);
}

TEST_CASE("load_yaml tells quoted from plain scalars and recognises nulls") {
  const Document doc = load_yaml("job.yaml",
                                 "a: 8\n"
                                 "b: \"8\"\n"
                                 "c: 'true'\n"
                                 "d: true\n"
                                 "e: |\n"
                                 "  line\n"
                                 "f: !!str 8\n"
                                 "g: ~\n"
                                 "h: null\n"
                                 "i:\n"
                                 "j: \"\"\n"
                                 "k: 'it''s'\n");
  const Node& r = doc.root;
  CHECK_FALSE(r.find("a")->quoted);
  CHECK(r.find("b")->quoted);
  CHECK(r.find("b")->scalar == "8");
  CHECK(r.find("c")->quoted);
  CHECK_FALSE(r.find("d")->quoted);
  CHECK(r.find("d")->scalar == "true");
  CHECK(r.find("e")->quoted);
  CHECK(r.find("e")->scalar == "line\n");
  CHECK(r.find("f")->quoted);
  CHECK(r.find("g")->is_null());
  CHECK(r.find("h")->is_null());
  CHECK(r.find("i")->is_null());
  CHECK(r.find("j")->is_scalar());
  CHECK(r.find("j")->quoted);
  CHECK(r.find("j")->scalar.empty());
  CHECK(r.find("k")->scalar == "it's");
}

TEST_CASE("load_yaml keeps huge numbers as scalars for the validator") {
  const Document doc = load_yaml("job.yaml",
                                 "instances: 999999999999999999999999999999\n"
                                 "cpu: 1e999\n");
  CHECK(doc.root.find("instances")->scalar == "999999999999999999999999999999");
  CHECK_FALSE(doc.root.find("instances")->quoted);
  CHECK(doc.root.find("cpu")->scalar == "1e999");
}

TEST_CASE("load_yaml accepts a BOM - CRLF line ends and UTF-8 text") {
  const Document doc =
      load_yaml("job.yaml", "\xef\xbb\xbfname: x\r\ndescription: caf\xc3\xa9 \xf0\x9f\x9a\x80\r\n");
  CHECK(doc.root.find("name")->scalar == "x");
  CHECK(doc.root.find("name")->loc.column == 7);
  CHECK(doc.root.find("description")->scalar == "caf\xc3\xa9 \xf0\x9f\x9a\x80");
  CHECK(doc.root.find("description")->loc.line == 2);
}

TEST_CASE("load_yaml expands aliases into copies of the anchored node") {
  const Document doc = load_yaml("job.yaml",
                                 "base: &res {gpu: 8, cpu: 96}\n"
                                 "other: *res\n"
                                 "name: &n job\n"
                                 "copy: *n\n");
  const Node* other = doc.root.find("other");
  REQUIRE(other->is_mapping());
  CHECK(other->find("gpu")->scalar == "8");
  CHECK(other->find("cpu")->scalar == "96");
  CHECK(doc.root.find("copy")->scalar == "job");
}

TEST_CASE("load_yaml applies merge keys - the mapping's own keys winning") {
  const Document doc = load_yaml("job.yaml",
                                 "defaults: &d {instances: 1, nprocPerNode: 8, command: run}\n"
                                 "gpu: &g {resources: {gpu: 8}, instances: 9}\n"
                                 "worker:\n"
                                 "  instances: 4\n"
                                 "  <<: [*d, *g]\n"
                                 "ps:\n"
                                 "  <<: *d\n");
  const Node* worker = doc.root.find("worker");
  REQUIRE(worker->entries.size() == 4);
  CHECK(worker->find("<<") == nullptr);
  CHECK(worker->find("instances")->scalar == "4");
  CHECK(worker->find("instances")->loc.line == 4);
  CHECK(worker->find("nprocPerNode")->scalar == "8");
  CHECK(worker->find("resources")->find("gpu")->scalar == "8");
  CHECK(doc.root.find("ps")->find("command")->scalar == "run");
  // A quoted "<<" is an ordinary key.
  CHECK(load_yaml("job.yaml", "\"<<\": 1\n").root.find("<<")->scalar == "1");
}

TEST_CASE("load_yaml rejects a merge key without mappings") {
  check_error(load_error("a:\n  <<: 3\n"), 2, 3,
              "merge key \"<<\" needs a mapping or a list of mappings");
  check_error(load_error("a:\n  <<: [{x: 1}, 2]\n"), 2, 3,
              "merge key \"<<\" needs a mapping or a list of mappings");
}

TEST_CASE("load_yaml rejects an alias inside its own anchored node") {
  check_error(load_error("a: &x [1, *x]\n"), 1, 11, "alias *x refers to a node that contains it");
}

TEST_CASE("load_yaml rejects a YAML bomb quickly") {
  // Billion laughs: 9 levels of 9 aliases, 9^9 nodes when expanded.
  std::string text = "l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  for (int level = 1; level <= 9; ++level) {
    const std::string prev = "*l" + std::to_string(level - 1);
    text += "l" + std::to_string(level) + ": &l" + std::to_string(level) + " [";
    for (int i = 0; i < 9; ++i) text += (i ? ", " : "") + prev;
    text += "]\n";
  }
  const auto start = std::chrono::steady_clock::now();
  const Diagnostic d = load_error(text);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  CHECK(d.loc.line == 7);
  CHECK(d.message == "YAML alias expansion exceeds 1000000 nodes (YAML bomb?)");
  CHECK(elapsed < std::chrono::seconds(10));

  YamlLimits small;
  small.max_nodes = 100;
  check_error(load_error(text, small), 2, 50,
              "YAML alias expansion exceeds 100 nodes (YAML bomb?)");
}

TEST_CASE("load_yaml limits the nodes kept for anchors") {
  YamlLimits small;
  small.max_nodes = 8;
  // 6 nodes in all, but the nested anchors keep 2 + 3 + 4 of them.
  check_error(load_error("a: &a [&b [&c [1]]]\n", small), 1, 4,
              "YAML anchors hold more than 8 nodes");
}

TEST_CASE("load_yaml limits the number of nodes") {
  YamlLimits small;
  small.max_nodes = 4;
  check_error(load_error("[1, 2, 3, 4, 5]\n", small), 1, 11, "document exceeds 4 nodes");
}

TEST_CASE("load_yaml rejects 10000-deep nesting") {
  const std::string flow = std::string(10000, '[') + std::string(10000, ']') + "\n";
  check_error(load_error(flow), 1, 65, "nesting deeper than 64 levels");

  std::string block;
  for (int i = 0; i < 10000; ++i) block += std::string(i, ' ') + "k:\n";
  check_error(load_error(block), 65, 65, "nesting deeper than 64 levels");
}

TEST_CASE("load_yaml turns yaml-cpp's recursion guard into a clear error") {
  YamlLimits unlimited;
  unlimited.max_depth = 100000;
  const std::string flow = std::string(3000, '[') + std::string(3000, ']') + "\n";
  check_error(load_error(flow, unlimited), 2, 1, "nesting too deep for the YAML parser");
}

TEST_CASE("load_yaml counts alias depth against the nesting limit") {
  YamlLimits shallow;
  shallow.max_depth = 3;
  check_error(load_error("a: &x [[1]]\nb: [*x]\n", shallow), 2, 5, "nesting deeper than 3 levels");
  CHECK_NOTHROW(load_yaml("job.yaml", "a: &x [[1]]\nb: *x\n", shallow));
}

TEST_CASE("load_yaml rejects duplicate keys at the second one") {
  check_error(load_error("name: a\nkind: Job\nname: b\n"), 3, 1,
              "duplicate key \"name\" (first at line 1)");
  check_error(load_error("roles:\n  worker: {}\n  x: 1\n  \"worker\": {}\n"), 4, 3,
              "duplicate key \"worker\" (first at line 2)");
  // Same key in different mappings is fine.
  CHECK_NOTHROW(load_yaml("job.yaml", "a: {name: 1}\nb: {name: 2}\n"));
}

TEST_CASE("load_yaml rejects complex keys and unknown tags") {
  check_error(load_error("? [a, b]\n: 1\n"), 1, 3, "mapping keys must be scalars");
  check_error(load_error("a: !secret xyz\n"), 1, 4, "unsupported YAML tag \"!secret\"");
}

TEST_CASE("load_yaml rejects empty documents") {
  const std::string message =
      "empty document: expected a mapping with apiVersion, kind, name, roles";
  check_error(load_error(""), 1, 1, message);
  check_error(load_error("# just a comment\n\n# another\n"), 1, 1, message);
  check_error(load_error("---\n"), 1, 1, message);
  check_error(load_error("~\n"), 1, 1, message);
}

TEST_CASE("load_yaml rejects a second document") {
  check_error(load_error("a: 1\n---\nb: 2\n"), 2, 1,
              "expected a single YAML document, found a second one");
}

TEST_CASE("load_yaml reports YAML syntax errors with 1-based locations") {
  check_error(load_error("a: b\n  c: d\n"), 2, 4, "illegal map value");
  check_error(load_error("roles: {worker: {instances: 2\n"), 2, 1, "end of map flow not found");
  check_error(load_error("a: *nope\n"), 1, 4, "the referenced anchor is not defined");
}

TEST_CASE("load_yaml rejects truncated files") {
  check_error(load_error("name: job\ncommand: \"python train.py --lr"), 2, 10,
              "unterminated quoted string");
  check_error(load_error("name: job\ncommand: \"python train.py --lr\n"), 2, 10,
              "unterminated quoted string");
  check_error(load_error("command: 'it''s"), 1, 10, "unterminated quoted string");
  check_error(load_error("hosts: [gpu-001, gpu-0"), 2, 1, "end of sequence flow not found");
}

TEST_CASE("load_yaml rejects binary files") {
  const std::string elf(
      "\x7f"
      "ELF\x02\x01\x01\x00\x00\x00",
      10);
  check_error(load_error(elf), 1, 1,
              "file contains a control character (byte 0x7f); is it a binary file?");
  const std::string nul("name: a\nkind: J\x00ob\n", 17);
  check_error(load_error(nul), 2, 8,
              "file contains a control character (byte 0x00); is it a binary file?");
}

TEST_CASE("load_yaml rejects non-UTF-8 input at the first invalid byte") {
  check_error(load_error("name: a\ndescription: caf\xe9\n"), 2, 17,
              "file is not valid UTF-8 (byte 0xe9)");
  check_error(load_error("a: \xff"), 1, 4, "file is not valid UTF-8 (byte 0xff)");
  // Overlong encoding of '/', a UTF-16 surrogate, and a sequence cut short.
  check_error(load_error("a: \xc0\xaf\n"), 1, 4, "file is not valid UTF-8 (byte 0xc0)");
  check_error(load_error("a: \xed\xa0\x80\n"), 1, 4, "file is not valid UTF-8 (byte 0xed)");
  check_error(load_error("a: \xe2\x82"), 1, 4, "file is not valid UTF-8 (byte 0xe2)");
}

TEST_CASE("load_yaml rejects tabs in indentation only") {
  check_error(load_error("roles:\n\tworker: {}\n"), 2, 1,
              "tabs are not allowed in YAML indentation; use spaces");
  check_error(load_error("roles:\n  \tworker: {}\n"), 2, 3,
              "tabs are not allowed in YAML indentation; use spaces");
  const Document doc = load_yaml("job.yaml", "a: \"x\ty\"\n\t# comment\n \t\nb: 1\n");
  CHECK(doc.root.find("a")->scalar == "x\ty");
  CHECK(doc.root.find("b")->scalar == "1");
}

TEST_CASE("load_yaml enforces the size limit") {
  YamlLimits tiny;
  tiny.max_bytes = 8;
  const Diagnostic d = load_error("name: abcdef\n", tiny);
  CHECK(d.loc.line == 0);
  CHECK(d.message == "file is 13 bytes, more than the limit of 8");
}

TEST_CASE("load_yaml throws only LoadError on random bytes") {
  std::mt19937 rng(20261121);
  static const char kAlphabet[] = "ab:-[]{}&*!|>'\"#, \n\t?%@`~\x00\xc3\xa9\xff";
  const std::string alphabet(kAlphabet, sizeof kAlphabet - 1);
  int rejected = 0;
  for (int round = 0; round < 2000; ++round) {
    std::string text;
    const int length = static_cast<int>(rng() % 64);
    for (int i = 0; i < length; ++i) {
      text += round % 2 ? static_cast<char>(rng() % 256) : alphabet[rng() % alphabet.size()];
    }
    try {
      load_yaml("job.yaml", text);
    } catch (const LoadError& e) {
      ++rejected;
      const std::string& message = e.diagnostic.message;
      REQUIRE_FALSE(message.empty());
      const bool lowercase = std::islower(static_cast<unsigned char>(message[0])) != 0;
      CHECK((lowercase || message.rfind("YAML", 0) == 0));
      CHECK(message.find("yaml-cpp") == std::string::npos);
    }
  }
  CHECK(rejected > 1000);
}

}  // namespace yaml_loader_test
}  // namespace pai
