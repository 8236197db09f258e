#include "compiler/document/field_reader.h"

#include <catch2/catch.hpp>

namespace field_reader_test {

using namespace pai;

namespace {

Node scalar(const std::string& text, bool quoted = false) {
  Node n;
  n.kind = Node::Kind::Scalar;
  n.scalar = text;
  n.quoted = quoted;
  n.loc = Location{"job.yaml", 3, 7};
  return n;
}

Node mapping(std::vector<std::pair<std::string, Node>> entries) {
  Node n;
  n.kind = Node::Kind::Mapping;
  n.loc = Location{"job.yaml", 2, 3};
  for (auto& [k, v] : entries) n.entries.emplace_back(scalar(k), std::move(v));
  return n;
}

struct Fixture {
  Diagnostics diags;
  std::map<std::string, Location> locations;
  FieldReader reader{diags, locations};

  std::string only_message() const {
    REQUIRE(diags.all().size() == 1);
    return diags.all()[0].message;
  }
};

}  // namespace

TEST_CASE("paths join keys and indexes") {
  CHECK(join_path("", "name") == "name");
  CHECK(join_path("roles.worker", "instances") == "roles.worker.instances");
  CHECK(index_path("hosts", 2) == "hosts[2]");
}

TEST_CASE("describe shows what was written") {
  CHECK(describe(scalar("two")) == "\"two\"");
  CHECK(describe(scalar("8", true)) == "\"8\"");
  CHECK(describe(scalar("1e400")) == "1e400");
  CHECK(describe(scalar("true")) == "true");
  CHECK(describe(Node{}) == "null");
  CHECK(describe(mapping({})) == "a mapping");
  Node list;
  list.kind = Node::Kind::Sequence;
  CHECK(describe(list) == "a list");
  CHECK(describe(scalar(std::string(100, '1'))) == std::string(60, '1') + "...");
}

TEST_CASE("quote escapes and shortens") {
  CHECK(quote("a\"b\\c") == "\"a\\\"b\\\\c\"");
  CHECK(quote("a\nb\tc\x01") == "\"a\\nb\\tc\\x01\"");
  CHECK(quote("\xff\xc3\xa9") == "\"\\xff\xc3\xa9\"");
  CHECK(quote(std::string(70, 'x')) == "\"" + std::string(60, 'x') + "...\"");
}

TEST_CASE("name classes") {
  CHECK(is_dns_label("gpu-001"));
  CHECK(is_dns_label("a"));
  CHECK_FALSE(is_dns_label("Gpu"));
  CHECK_FALSE(is_dns_label("-a"));
  CHECK_FALSE(is_dns_label("a-"));
  CHECK_FALSE(is_dns_label("a.b"));
  CHECK_FALSE(is_dns_label(""));
  CHECK(is_dns_label(std::string(63, 'a')));
  CHECK_FALSE(is_dns_label(std::string(64, 'a')));
  CHECK(is_env_name("_A1"));
  CHECK_FALSE(is_env_name("1A"));
  CHECK_FALSE(is_env_name("A-B"));
}

TEST_CASE("matching takes a scalar of the shape its check accepts") {
  Fixture f;
  std::string out = "kept";
  CHECK(f.reader.matching(scalar("gpu-a"), "slurm.partition", is_dns_label, "a partition", &out));
  CHECK(out == "gpu-a");
  CHECK_FALSE(
      f.reader.matching(scalar("Gpu_A"), "slurm.partition", is_dns_label, "a partition", &out));
  CHECK(out == "gpu-a");
  CHECK(f.only_message() == "expected a partition, got \"Gpu_A\"");
  Fixture g;
  CHECK_FALSE(g.reader.matching(mapping({}), "p", is_dns_label, "a name", &out));
  CHECK(g.only_message() == "expected a name, got a mapping");
}

TEST_CASE("integer accepts unquoted integers in range") {
  Fixture f;
  int value = 0;
  CHECK(f.reader.integer(scalar("42"), "x", 1, 100, &value));
  CHECK(value == 42);
  CHECK(f.reader.integer(scalar("+7"), "x", 1, 100, &value));
  CHECK(value == 7);
  CHECK(f.reader.integer(scalar("-1"), "x", -1, 100, &value));
  CHECK(value == -1);
  CHECK(f.diags.all().empty());
}

TEST_CASE("integer rejects words with the expected range") {
  Fixture f;
  int value = 5;
  CHECK_FALSE(f.reader.integer(scalar("two"), "roles.w.instances", 1, 100000, &value));
  CHECK(value == 5);
  CHECK(f.only_message() == "expected an integer between 1 and 100000, got \"two\"");
  CHECK(f.diags.all()[0].path == "roles.w.instances");
  CHECK(f.diags.all()[0].loc.line == 3);
}

TEST_CASE("integer rejects huge and fractional numbers") {
  Fixture f;
  int value = 0;
  CHECK_FALSE(f.reader.integer(scalar("1e400"), "x", 1, 100000, &value));
  CHECK_FALSE(f.reader.integer(scalar("99999999999999999999999"), "x", 1, 100000, &value));
  CHECK_FALSE(f.reader.integer(scalar("1.5"), "x", 0, INT32_MAX, &value));
  CHECK_FALSE(f.reader.integer(scalar("100001"), "x", 1, 100000, &value));
  REQUIRE(f.diags.all().size() == 4);
  CHECK(f.diags.all()[0].message == "expected an integer between 1 and 100000, got 1e400");
  CHECK(f.diags.all()[1].message ==
        "expected an integer between 1 and 100000, got 99999999999999999999999");
  CHECK(f.diags.all()[2].message == "expected a non-negative integer, got 1.5");
  CHECK(f.diags.all()[3].message == "expected an integer between 1 and 100000, got 100001");
}

TEST_CASE("integer says to drop the quotes around a number") {
  Fixture f;
  int value = 0;
  CHECK_FALSE(f.reader.integer(scalar("8", true), "x", 1, INT32_MAX, &value));
  CHECK(f.only_message() == "expected a positive integer, got \"8\" (write numbers without quotes)");
}

TEST_CASE("number checks syntax - finiteness and range") {
  Fixture f;
  double value = 0;
  const auto positive = [](double v) { return v > 0; };
  CHECK(f.reader.number(scalar("0.5"), "cpu", "a number greater than 0", positive, &value));
  CHECK(value == 0.5);
  CHECK(f.reader.number(scalar("3e-4"), "cpu", "a number greater than 0", positive, &value));
  CHECK_FALSE(f.reader.number(scalar("1e400"), "cpu", "a number greater than 0", positive, &value));
  CHECK_FALSE(f.reader.number(scalar("0"), "cpu", "a number greater than 0", positive, &value));
  CHECK_FALSE(f.reader.number(scalar(".inf"), "cpu", "a number greater than 0", positive, &value));
  REQUIRE(f.diags.all().size() == 3);
  CHECK(f.diags.all()[0].message == "expected a number greater than 0, got 1e400");
  CHECK(f.diags.all()[1].message == "expected a number greater than 0, got 0");
  CHECK(f.diags.all()[2].message == "expected a number greater than 0, got \".inf\"");
}

TEST_CASE("boolean takes true and false only") {
  Fixture f;
  bool value = false;
  CHECK(f.reader.boolean(scalar("true"), "b", &value));
  CHECK(value);
  CHECK(f.reader.boolean(scalar("False"), "b", &value));
  CHECK_FALSE(value);
  CHECK_FALSE(f.reader.boolean(scalar("yes"), "b", &value));
  CHECK_FALSE(f.reader.boolean(scalar("true", true), "b", &value));
  REQUIRE(f.diags.all().size() == 2);
  CHECK(f.diags.all()[0].message == "expected true or false, got \"yes\"");
  CHECK(f.diags.all()[1].message ==
        "expected true or false, got \"true\" (write it without quotes)");
}

TEST_CASE("string and scalar_value") {
  Fixture f;
  std::string value;
  CHECK(f.reader.string(scalar("8"), "s", &value));
  CHECK(value == "8");
  CHECK(f.reader.scalar_value(scalar("TRUE"), "s", &value));
  CHECK(value == "true");
  CHECK(f.reader.scalar_value(scalar("TRUE", true), "s", &value));
  CHECK(value == "TRUE");
  CHECK_FALSE(f.reader.string(mapping({}), "s", &value));
  CHECK(f.only_message() == "expected a string, got a mapping");
}

TEST_CASE("enumeration suggests the nearest value") {
  Fixture f;
  size_t index = 9;
  CHECK(f.reader.enumeration(scalar("async"), "mode", {"sync", "async"}, &index));
  CHECK(index == 1);
  CHECK_FALSE(f.reader.enumeration(scalar("synk"), "mode", {"sync", "async"}, &index));
  CHECK(f.only_message() == "expected one of sync, async, got \"synk\" (did you mean \"sync\"?)");
}

TEST_CASE("duration accepts units and seconds - rejects negatives and zero where needed") {
  Fixture f;
  std::int64_t seconds = 0;
  CHECK(f.reader.duration(scalar("30m"), "d", 1, &seconds));
  CHECK(seconds == 1800);
  CHECK(f.reader.duration(scalar("45"), "d", 1, &seconds));
  CHECK(seconds == 45);
  CHECK_FALSE(f.reader.duration(scalar("-5s"), "d", 0, &seconds));
  CHECK_FALSE(f.reader.duration(scalar("0"), "d", 1, &seconds));
  CHECK_FALSE(f.reader.duration(scalar("soon"), "d", 0, &seconds));
  REQUIRE(f.diags.all().size() == 3);
  CHECK(f.diags.all()[0].message == "duration must not be negative, got \"-5s\"");
  CHECK(f.diags.all()[1].message == "expected a duration greater than 0, got 0");
  CHECK(f.diags.all()[2].message ==
        "expected a duration like 90s, 30m, 2h or seconds, got \"soon\"");
}

TEST_CASE("quantity accepts suffixes and enforces a minimum") {
  Fixture f;
  std::int64_t bytes = 0;
  CHECK(f.reader.quantity(scalar("64Gi"), "q", 0, &bytes));
  CHECK(bytes == (64ll << 30));
  CHECK_FALSE(f.reader.quantity(scalar("512"), "q", 1024, &bytes));
  CHECK_FALSE(f.reader.quantity(scalar("64GB"), "q", 0, &bytes));
  REQUIRE(f.diags.all().size() == 2);
  CHECK(f.diags.all()[0].message == "expected a quantity of at least 1Ki, got 512");
  CHECK(f.diags.all()[1].message == "expected a quantity like 64Gi or 500M, got \"64GB\"");
}

TEST_CASE("dns_label and absolute_path") {
  Fixture f;
  std::string value;
  CHECK(f.reader.dns_label(scalar("llama-sft"), "name", &value));
  CHECK_FALSE(f.reader.dns_label(scalar("Llama_SFT"), "name", &value));
  CHECK(f.reader.absolute_path(scalar("/data"), "p", &value));
  CHECK_FALSE(f.reader.absolute_path(scalar("data"), "p", &value));
  REQUIRE(f.diags.all().size() == 2);
  CHECK(f.diags.all()[0].message ==
        "expected a DNS label (at most 63 lowercase letters, digits or '-', starting and "
        "ending with a letter or digit), got \"Llama_SFT\"");
  CHECK(f.diags.all()[1].message == "expected an absolute path, got \"data\"");
}

TEST_CASE("mapping reports unknown keys at the key with a suggestion") {
  Fixture f;
  const Node node = mapping({{"instances", scalar("1")}, {"nprocPerNod", scalar("2")}});
  CHECK(f.reader.mapping(node, "roles.worker", {"instances", "nprocPerNode"}));
  CHECK(f.only_message() == "unknown key \"nprocPerNod\" (did you mean \"nprocPerNode\"?)");
  CHECK(f.diags.all()[0].path == "roles.worker");
}

TEST_CASE("mapping rejects other kinds") {
  Fixture f;
  CHECK_FALSE(f.reader.mapping(scalar("x"), "fabric", {}));
  CHECK(f.only_message() == "expected a mapping, got \"x\"");
}

TEST_CASE("optional and required record locations and treat null as unset") {
  Fixture f;
  const Node node = mapping({{"a", scalar("1")}, {"b", Node{}}});
  f.reader.record("top", node);
  CHECK(f.reader.optional(node, "top", "a") != nullptr);
  CHECK(f.locations.at("top.a").line == 3);
  CHECK(f.reader.optional(node, "top", "b") == nullptr);
  CHECK(f.reader.optional(node, "top", "c") == nullptr);
  CHECK(f.diags.all().empty());
  CHECK(f.reader.required(node, "top", "c") == nullptr);
  CHECK(f.only_message() == "missing required field \"c\"");
  CHECK(f.diags.all()[0].path == "top");
  CHECK(f.diags.all()[0].loc.line == 2);
}

TEST_CASE("string_list records items and rejects non-strings") {
  Fixture f;
  Node list;
  list.kind = Node::Kind::Sequence;
  list.items = {scalar("a"), mapping({})};
  std::vector<std::string> out = {"keep"};
  CHECK_FALSE(f.reader.string_list(list, "hcas", &out));
  CHECK(out == std::vector<std::string>{"keep"});
  CHECK(f.only_message() == "expected a string, got a mapping");
  CHECK(f.diags.all()[0].path == "hcas[1]");
  CHECK(f.locations.count("hcas[0]") == 1);
}

TEST_CASE("mapping suggests a nested field written one level too high") {
  Fixture f;
  const Node node = mapping({{"maxRestarts", scalar("3")}, {"mode", scalar("sync")}});
  CHECK(f.reader.mapping(node, "faultTolerance", {"mode", "restart"},
                         {"restart.maxRestarts", "restart.backoff"}));
  CHECK(f.only_message() == "unknown key \"maxRestarts\" (did you mean \"restart.maxRestarts\"?)");
}

TEST_CASE("locate points inside a scalar written verbatim on its line") {
  Diagnostics diags;
  std::map<std::string, Location> locations;
  const std::string source = "a: 1\ncmd: run ${x}\nq: \"say ${x}\"\nf: >-\n  run ${x}\n";
  FieldReader reader(diags, locations, &source);
  Node plain = scalar("run ${x}");
  plain.loc = Location{"job.yaml", 2, 6};
  CHECK(reader.locate(plain, 4).column == 10);
  Node quoted = scalar("say ${x}", true);
  quoted.loc = Location{"job.yaml", 3, 4};
  CHECK(reader.locate(quoted, 4).column == 9);
  Node folded = scalar("run ${x}");  // written on the next line: not verbatim at its mark
  folded.loc = Location{"job.yaml", 4, 4};
  CHECK(reader.locate(folded, 4).column == 4);
}

TEST_CASE("substitute reports undefined parameters at their reference") {
  Diagnostics diags;
  std::map<std::string, Location> locations;
  const std::string source = "cmd: run --lr ${parameters.lrr}\n";
  FieldReader reader(diags, locations, &source);
  Node node = scalar("run --lr ${parameters.lrr}");
  node.loc = Location{"job.yaml", 1, 6};
  CHECK(reader.substitute(node, node.scalar, {{"lr", "1"}}, "cmd") == node.scalar);
  REQUIRE(diags.all().size() == 1);
  CHECK(diags.all()[0].loc.column == 15);
  CHECK(diags.all()[0].message ==
        "undefined parameter \"lrr\" in ${parameters.lrr} (did you mean \"lr\"? defined: lr)");
}

}  // namespace field_reader_test
