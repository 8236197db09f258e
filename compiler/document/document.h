// The document tree: what a loader (YAML, Jsonnet, JSON) hands to the spec parser.
//
// Loader-neutral, carries a source location for every node so that every diagnostic can
// name file:line:col. No third-party types.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace pai {

/// A place in a source file. line and column are 1-based; 0 means unknown (Jsonnet output
/// carries no positions, so its nodes have only the file).
struct Location {
  std::string file;
  int line = 0;
  int column = 0;
};

/// One node of a loaded document.
struct Node {
  enum class Kind { Null, Scalar, Sequence, Mapping };
  Kind kind = Kind::Null;
  Location loc;
  /// Scalar text as written (YAML) or as JSON would print it (numbers, true/false).
  std::string scalar;
  /// True when the scalar was a quoted YAML scalar or a JSON string: it is a string even
  /// if it reads like a number or a bool ("8" vs 8).
  bool quoted = false;
  /// Sequence items.
  std::vector<Node> items;
  /// Mapping entries in document order; keys are unique (loaders reject duplicates).
  std::vector<std::pair<Node, Node>> entries;

  // Defined out of line: clang with libstdc++ in C++20 cannot instantiate the implicit
  // ones while pair<Node, Node> is still incomplete.
  Node();
  Node(const Node&);
  Node(Node&&) noexcept;
  Node& operator=(const Node&);
  Node& operator=(Node&&) noexcept;
  ~Node();

  bool is_null() const { return kind == Kind::Null; }
  bool is_scalar() const { return kind == Kind::Scalar; }
  bool is_sequence() const { return kind == Kind::Sequence; }
  bool is_mapping() const { return kind == Kind::Mapping; }
  /// The value of mapping key `key`, or nullptr.
  const Node* find(const std::string& key) const;
};

/// A loaded source file: its text (for carets in diagnostics) and its root node.
struct Document {
  std::string file;
  std::string text;
  Node root;
};

}  // namespace pai
