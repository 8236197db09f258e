#include "compiler/document/document.h"

namespace pai {

Node::Node() = default;
Node::Node(const Node&) = default;
Node::Node(Node&&) noexcept = default;
Node& Node::operator=(const Node&) = default;
Node& Node::operator=(Node&&) noexcept = default;
Node::~Node() = default;

const Node* Node::find(const std::string& key) const {
  for (const auto& [k, v] : entries) {
    if (k.is_scalar() && k.scalar == key) return &v;
  }
  return nullptr;
}

}  // namespace pai
