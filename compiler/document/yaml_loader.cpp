// yaml-cpp is driven through its event API rather than YAML::Load so that node locations,
// alias expansion, duplicate keys and the limits stay under our control.
#include "compiler/document/yaml_loader.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <optional>
#include <sstream>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "compiler/document/field_reader.h"
#include "libpai/utf8.h"

namespace pai {
namespace {

[[noreturn]] void fail(const std::string& file, int line, int column, std::string message) {
  Diagnostic d;
  d.severity = Severity::Error;
  d.loc = Location{file, line, column};
  d.message = std::move(message);
  throw LoadError{std::move(d)};
}

std::string hex_byte(unsigned char c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02x", c);
  return buf;
}

/// Checks the raw text before yaml-cpp sees it (encoding, control bytes, tab indentation)
/// and returns the offset of each line's first byte. Columns count bytes, like yaml-cpp's
/// marks; a leading BOM is skipped without counting, as yaml-cpp does.
std::vector<size_t> check_text(const std::string& file, const std::string& text) {
  std::vector<size_t> line_starts;
  size_t i = text.compare(0, 3, "\xef\xbb\xbf") == 0 ? 3 : 0;
  line_starts.push_back(i);
  bool in_indent = true;
  constexpr size_t kNoTab = std::string::npos;
  size_t indent_tab = kNoTab;
  auto column = [&](size_t pos) { return static_cast<int>(pos - line_starts.back()) + 1; };
  auto line = [&] { return static_cast<int>(line_starts.size()); };
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (in_indent) {
      if (c == '\t') {
        if (indent_tab == kNoTab) indent_tab = i;
        ++i;
        continue;
      }
      if (c != ' ') {
        in_indent = false;
        // A tab before a comment or on a blank line indents nothing.
        if (indent_tab != kNoTab && c != '\n' && c != '\r' && c != '#') {
          fail(file, line(), column(indent_tab),
               "tabs are not allowed in YAML indentation; use spaces");
        }
      }
    }
    if (c == '\n') {
      line_starts.push_back(i + 1);
      in_indent = true;
      indent_tab = kNoTab;
      ++i;
    } else if (c < 0x80) {
      if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f) {
        fail(file, line(), column(i),
             "file contains a control character (byte " + hex_byte(c) + "); is it a binary file?");
      }
      ++i;
    } else {
      const size_t len = utf8_sequence_length(text, i);
      if (len == 0) {
        fail(file, line(), column(i), "file is not valid UTF-8 (byte " + hex_byte(c) + ")");
      }
      i += len;
    }
  }
  return line_starts;
}

/// A completed anchored node, kept to be copied where it is aliased.
struct Anchored {
  Node node;
  long count = 0;  ///< nodes in the subtree, aliases expanded
  int height = 0;  ///< collection levels in the subtree (a scalar is 0)
};

/// Builds the Node tree from yaml-cpp's events.
class TreeBuilder : public YAML::EventHandler {
 public:
  TreeBuilder(const std::string& file, const std::string& text,
              const std::vector<size_t>& line_starts, const YamlLimits& limits)
      : file_(file), text_(text), line_starts_(line_starts), limits_(limits) {}

  std::optional<Node>& root() { return root_; }

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (documents_++ > 0) {
      fail(file_, mark.line + 1, mark.column + 1,
           "expected a single YAML document, found a second one");
    }
  }
  void OnDocumentEnd() override {}

  void OnAnchor(const YAML::Mark&, const std::string& name) override { anchor_name_ = name; }

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    count_node(mark);
    Node n;
    n.loc = loc(mark);
    finish(std::move(n), anchor, 1, 0);
  }

  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    auto it = anchors_.find(anchor);
    if (it == anchors_.end()) {
      fail(file_, mark.line + 1, mark.column + 1,
           "alias *" + names_[anchor] + " refers to a node that contains it");
    }
    const Anchored& a = it->second;
    if (total_nodes_ + a.count > limits_.max_nodes) {
      fail(file_, mark.line + 1, mark.column + 1,
           "YAML alias expansion exceeds " + std::to_string(limits_.max_nodes) +
               " nodes (YAML bomb?)");
    }
    if (static_cast<long>(stack_.size()) + a.height > limits_.max_depth) depth_error(mark);
    total_nodes_ += a.count;
    finish(Node(a.node), 0, a.count, a.height);
  }

  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    count_node(mark);
    check_tag(mark, tag);
    Node n;
    n.loc = loc(mark);
    const bool plain = tag == "?";
    const bool null_text =
        value.empty() || value == "~" || value == "null" || value == "Null" || value == "NULL";
    if (tag == kCoreTag + "null" || (plain && null_text)) {
      n.kind = Node::Kind::Null;
    } else {
      n.kind = Node::Kind::Scalar;
      n.scalar = value;
      n.quoted = tag == "!" || tag == kCoreTag + "str";
      if (tag == "!") check_quote_closed(mark);
    }
    finish(std::move(n), anchor, 1, 0);
  }

  void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, tag, anchor, Node::Kind::Sequence);
  }
  void OnSequenceEnd() override { close(); }

  void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(mark, tag, anchor, Node::Kind::Mapping);
  }
  void OnMapEnd() override { close(); }

 private:
  inline static const std::string kCoreTag = "tag:yaml.org,2002:";

  struct Frame {
    Node node;
    YAML::anchor_t anchor = 0;
    long nodes_before = 0;
    int height = 1;
    std::optional<Node> key;
    std::unordered_map<std::string, int> key_lines;
    std::vector<std::pair<Node, Node>> merged;  ///< entries from "<<" merge keys
    std::unordered_set<std::string> merged_keys;
  };

  Location loc(const YAML::Mark& mark) const { return {file_, mark.line + 1, mark.column + 1}; }

  void count_node(const YAML::Mark& mark) {
    if (++total_nodes_ > limits_.max_nodes) {
      fail(file_, mark.line + 1, mark.column + 1,
           "document exceeds " + std::to_string(limits_.max_nodes) + " nodes");
    }
  }

  [[noreturn]] void depth_error(const YAML::Mark& mark) const {
    fail(file_, mark.line + 1, mark.column + 1,
         "nesting deeper than " + std::to_string(limits_.max_depth) + " levels");
  }

  void check_tag(const YAML::Mark& mark, const std::string& tag) const {
    static const char* const kCore[] = {"str", "int", "float", "bool", "null", "seq", "map"};
    if (tag == "?" || tag == "!" || tag.empty()) return;
    for (const char* core : kCore) {
      if (tag == kCoreTag + core) return;
    }
    fail(file_, mark.line + 1, mark.column + 1, "unsupported YAML tag " + quote(tag));
  }

  // yaml-cpp accepts a quoted scalar that the end of the file cuts off; a truncated file
  // must not load as if it were complete.
  void check_quote_closed(const YAML::Mark& mark) const {
    if (mark.line < 0 || static_cast<size_t>(mark.line) >= line_starts_.size()) return;
    size_t i = line_starts_[mark.line] + mark.column;
    if (i >= text_.size() || (text_[i] != '"' && text_[i] != '\'')) return;
    const char quote = text_[i];
    for (++i; i < text_.size(); ++i) {
      if (quote == '"' && text_[i] == '\\') {
        ++i;
      } else if (text_[i] == quote) {
        if (quote == '\'' && i + 1 < text_.size() && text_[i + 1] == '\'') {
          ++i;
        } else {
          return;
        }
      }
    }
    fail(file_, mark.line + 1, mark.column + 1, "unterminated quoted string");
  }

  void open(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
            Node::Kind kind) {
    count_node(mark);
    check_tag(mark, tag);
    if (static_cast<long>(stack_.size()) + 1 > limits_.max_depth) depth_error(mark);
    name_anchor(anchor);
    Frame f;
    f.node.kind = kind;
    f.node.loc = loc(mark);
    f.anchor = anchor;
    f.nodes_before = total_nodes_ - 1;
    stack_.push_back(std::move(f));
  }

  void close() {
    Frame f = std::move(stack_.back());
    stack_.pop_back();
    for (auto& entry : f.merged) {
      if (!f.key_lines.count(entry.first.scalar)) f.node.entries.push_back(std::move(entry));
    }
    finish(std::move(f.node), f.anchor, total_nodes_ - f.nodes_before, f.height);
  }

  void name_anchor(YAML::anchor_t anchor) {
    if (anchor != 0) names_[anchor] = anchor_name_;
  }

  // Hands a completed node to its parent (or makes it the root) and records its anchor.
  void finish(Node n, YAML::anchor_t anchor, long count, int height) {
    if (anchor != 0) {
      if (n.kind == Node::Kind::Null || n.kind == Node::Kind::Scalar) name_anchor(anchor);
      // Each anchor keeps a copy, so nested anchors could multiply memory by the depth.
      anchored_nodes_ += count;
      if (anchored_nodes_ > limits_.max_nodes) {
        fail(file_, n.loc.line, n.loc.column,
             "YAML anchors hold more than " + std::to_string(limits_.max_nodes) + " nodes");
      }
      anchors_[anchor] = Anchored{n, count, height};
    }
    if (stack_.empty()) {
      root_ = std::move(n);
      return;
    }
    Frame& parent = stack_.back();
    parent.height = std::max(parent.height, height + 1);
    if (parent.node.kind == Node::Kind::Sequence) {
      parent.node.items.push_back(std::move(n));
    } else if (!parent.key) {
      add_key(parent, std::move(n));
    } else if (!parent.key->quoted && parent.key->scalar == "<<") {
      merge(parent, std::move(n));
      parent.key.reset();
    } else {
      parent.node.entries.emplace_back(std::move(*parent.key), std::move(n));
      parent.key.reset();
    }
  }

  // YAML 1.1 merge keys ("<<: *defaults"), common in hand-written configs: the merged
  // mappings' entries are added at close() unless the mapping sets the key itself; among
  // several merged mappings the first one wins.
  void merge(Frame& map, Node value) {
    std::vector<Node> sources;
    if (value.is_mapping()) {
      sources.push_back(std::move(value));
    } else if (value.is_sequence()) {
      sources = std::move(value.items);
    }
    if (sources.empty() || !std::all_of(sources.begin(), sources.end(),
                                        [](const Node& n) { return n.is_mapping(); })) {
      fail(file_, map.key->loc.line, map.key->loc.column,
           "merge key \"<<\" needs a mapping or a list of mappings");
    }
    for (Node& source : sources) {
      for (auto& entry : source.entries) {
        if (map.merged_keys.insert(entry.first.scalar).second) {
          map.merged.push_back(std::move(entry));
        }
      }
    }
  }

  void add_key(Frame& map, Node key) {
    if (key.kind == Node::Kind::Sequence || key.kind == Node::Kind::Mapping) {
      fail(file_, key.loc.line, key.loc.column, "mapping keys must be scalars");
    }
    auto [it, inserted] = map.key_lines.emplace(key.scalar, key.loc.line);
    if (!inserted) {
      fail(file_, key.loc.line, key.loc.column,
           "duplicate key " + quote(key.scalar) + " (first at line " + std::to_string(it->second) +
               ")");
    }
    map.key = std::move(key);
  }

  const std::string& file_;
  const std::string& text_;
  const std::vector<size_t>& line_starts_;
  const YamlLimits& limits_;
  std::vector<Frame> stack_;
  std::optional<Node> root_;
  std::unordered_map<YAML::anchor_t, Anchored> anchors_;
  std::unordered_map<YAML::anchor_t, std::string> names_;
  std::string anchor_name_;
  long total_nodes_ = 0;
  long anchored_nodes_ = 0;
  int documents_ = 0;
};

std::string lowercase_first(std::string s) {
  if (!s.empty()) s[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[0])));
  return s;
}

}  // namespace

Document load_yaml(const std::string& file, std::string text, const YamlLimits& limits) {
  if (static_cast<long>(text.size()) > limits.max_bytes) {
    fail(file, 0, 0,
         "file is " + std::to_string(text.size()) + " bytes, more than the limit of " +
             std::to_string(limits.max_bytes));
  }
  const std::vector<size_t> line_starts = check_text(file, text);
  TreeBuilder builder(file, text, line_starts, limits);
  try {
    // With a final line break, yaml-cpp places end-of-input errors after the last line
    // instead of at 1:1, and leaves unterminated quotes to check_quote_closed.
    std::istringstream in(text.empty() || text.back() == '\n' ? text : text + '\n');
    YAML::Parser parser(in);
    while (parser.HandleNextDocument(builder)) {
    }
  } catch (const YAML::Exception& e) {
    // yaml-cpp's own recursion guard (when limits.max_depth is above it) says "bad file".
    const bool too_deep = dynamic_cast<const YAML::DeepRecursion*>(&e) != nullptr;
    const std::string message =
        too_deep ? "nesting too deep for the YAML parser" : lowercase_first(e.msg);
    if (e.mark.is_null()) fail(file, 0, 0, message);
    fail(file, e.mark.line + 1, e.mark.column + 1, message);
  }
  if (!builder.root() || builder.root()->is_null()) {
    fail(file, 1, 1, "empty document: expected a mapping with apiVersion, kind, name, roles");
  }
  Document doc;
  doc.file = file;
  doc.root = std::move(*builder.root());
  doc.text = std::move(text);
  return doc;
}

}  // namespace pai
