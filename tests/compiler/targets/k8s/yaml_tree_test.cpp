#include "compiler/targets/k8s/yaml_tree.h"

#include <catch2/catch.hpp>
#include <stdexcept>

namespace yaml_tree_test {

using pai::Yaml;

TEST_CASE("a tree is written in the order it was built, with its scalars' styles") {
  Yaml doc = Yaml::map();
  doc.set("name", "job");
  doc.set("count", Yaml::integer(3));
  doc.set("on", Yaml::boolean(true));
  doc.set("text", Yaml::quoted("1"));
  Yaml& list = doc.set("list", Yaml::seq());
  list.add("a");
  list.add(Yaml::map()).set("k", "v");
  Yaml& flow = doc.set("flow", Yaml::flow_seq());
  flow.add(Yaml::integer(1));
  flow.add(Yaml::integer(143));
  doc.set("empty", Yaml::map());
  CHECK(pai::emit_yaml(doc) ==
        "name: job\ncount: 3\non: true\ntext: \"1\"\nlist:\n  - a\n  - k: v\nflow: [1, 143]\n"
        "empty: {}");
}

TEST_CASE("plain text is quoted only where YAML cannot hold it plain") {
  Yaml doc = Yaml::map();
  doc.set("a", "x: y");
  doc.set("b", "$(PAI_POD_NAME)");
  // "true" stays plain: text a reader must not take for a bool is Yaml::quoted().
  doc.set("c", "true");
  CHECK(pai::emit_yaml(doc) == "a: \"x: y\"\nb: $(PAI_POD_NAME)\nc: true");
}

TEST_CASE("a tree can be read back: kinds, texts, entries, items") {
  Yaml doc = Yaml::map();
  doc.set("n", Yaml::integer(-2));
  doc.set("s", Yaml::seq()).add("x");
  REQUIRE(doc.find("n") != nullptr);
  CHECK(doc.find("n")->kind() == Yaml::Kind::Integer);
  CHECK(doc.find("n")->number() == -2);
  CHECK(doc.find("n")->text() == "-2");
  CHECK(doc.find("s")->items().at(0).text() == "x");
  CHECK(doc.find("missing") == nullptr);
  CHECK(doc.entries().size() == 2);
  CHECK(Yaml::boolean(false).text() == "false");
}

TEST_CASE("building a node the wrong way is a bug the tree refuses") {
  Yaml scalar("x");
  CHECK_THROWS_AS(scalar.set("k", "v"), std::logic_error);
  CHECK_THROWS_AS(Yaml::map().add("v"), std::logic_error);
}

}  // namespace yaml_tree_test
