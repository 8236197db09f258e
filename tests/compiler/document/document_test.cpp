#include "compiler/document/document.h"

#include <catch2/catch.hpp>

namespace pai {
namespace document_test {

Node scalar(std::string text, bool quoted = false) {
  Node n;
  n.kind = Node::Kind::Scalar;
  n.scalar = std::move(text);
  n.quoted = quoted;
  return n;
}

TEST_CASE("Node::find returns the value of a mapping key") {
  Node map;
  map.kind = Node::Kind::Mapping;
  map.entries.emplace_back(scalar("name"), scalar("job", true));
  map.entries.emplace_back(scalar("instances"), scalar("8"));

  const Node* name = map.find("name");
  REQUIRE(name != nullptr);
  CHECK(name->scalar == "job");
  CHECK(name->quoted);
  const Node* instances = map.find("instances");
  REQUIRE(instances != nullptr);
  CHECK(instances->scalar == "8");
  CHECK_FALSE(instances->quoted);
}

TEST_CASE("Node::find returns nullptr for a missing key or a non-mapping") {
  Node map;
  map.kind = Node::Kind::Mapping;
  map.entries.emplace_back(scalar("name"), scalar("job"));
  CHECK(map.find("Name") == nullptr);
  CHECK(map.find("") == nullptr);

  Node seq;
  seq.kind = Node::Kind::Sequence;
  seq.items.push_back(scalar("name"));
  CHECK(seq.find("name") == nullptr);
  CHECK(scalar("name").find("name") == nullptr);
}

TEST_CASE("Node copies are deep and moves transfer the subtree") {
  Node map;
  map.kind = Node::Kind::Mapping;
  map.loc = Location{"job.yaml", 2, 3};
  map.entries.emplace_back(scalar("hosts"), Node());
  map.entries[0].second.kind = Node::Kind::Sequence;
  map.entries[0].second.items.push_back(scalar("gpu-001"));

  Node copy = map;
  copy.entries[0].second.items[0].scalar = "gpu-002";
  CHECK(map.find("hosts")->items[0].scalar == "gpu-001");
  CHECK(copy.find("hosts")->items[0].scalar == "gpu-002");
  CHECK(copy.loc.line == 2);

  Node moved = std::move(copy);
  CHECK(moved.find("hosts")->items[0].scalar == "gpu-002");
  copy = moved;
  CHECK(copy.find("hosts")->items.size() == 1);
  moved = std::move(map);
  CHECK(moved.find("hosts")->items[0].scalar == "gpu-001");
}

TEST_CASE("Node kind predicates") {
  Node n;
  CHECK(n.is_null());
  CHECK_FALSE(n.is_scalar());
  n.kind = Node::Kind::Sequence;
  CHECK(n.is_sequence());
  CHECK_FALSE(n.is_mapping());
  n.kind = Node::Kind::Mapping;
  CHECK(n.is_mapping());
  CHECK_FALSE(n.is_null());
}

}  // namespace document_test
}  // namespace pai
