#include "compiler/openpai/nodes.h"

#include <utility>

namespace pai {

Node string_node(const std::string& text, const Location& loc) {
  Node n;
  n.kind = Node::Kind::Scalar;
  n.scalar = text;
  n.quoted = true;
  n.loc = loc;
  return n;
}

Node plain_node(const std::string& text, const Location& loc) {
  Node n = string_node(text, loc);
  n.quoted = false;
  return n;
}

Node mapping_node(const Location& loc) {
  Node n;
  n.kind = Node::Kind::Mapping;
  n.loc = loc;
  return n;
}

Node sequence_node(const Location& loc) {
  Node n;
  n.kind = Node::Kind::Sequence;
  n.loc = loc;
  return n;
}

Node& put(Node& map, const std::string& key, Node value, const Location& key_loc) {
  map.entries.emplace_back(plain_node(key, key_loc), std::move(value));
  return map.entries.back().second;
}

Node& child_mapping(Node& map, const std::string& key, const Location& loc) {
  for (auto& [k, v] : map.entries) {
    if (k.scalar == key) return v;
  }
  return put(map, key, mapping_node(loc), loc);
}

}  // namespace pai
