// Building the nodes of a translated document (protocol.h): every node keeps the
// location of the OpenPAI node it comes from, so diagnostics point into the OpenPAI file.
#pragma once

#include <string>

#include "compiler/document/document.h"

namespace pai {

/// A quoted (string) scalar `text` at `loc`.
Node string_node(const std::string& text, const Location& loc);
/// A plain scalar `text` at `loc`, read as a number or bool when it looks like one.
Node plain_node(const std::string& text, const Location& loc);
/// An empty mapping at `loc`.
Node mapping_node(const Location& loc);
/// An empty sequence at `loc`.
Node sequence_node(const Location& loc);
/// Adds `key: value` to mapping `map`, the key located at `key_loc`; returns the value.
Node& put(Node& map, const std::string& key, Node value, const Location& key_loc);
/// The value of `key` in `map`, created as an empty mapping at `loc` when absent.
Node& child_mapping(Node& map, const std::string& key, const Location& loc);

}  // namespace pai
