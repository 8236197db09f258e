// YAML -> document tree. The only reader of yaml-cpp; its emitter is used only by the Kubernetes
// manifests (targets/k8s/yaml_tree.cpp), and neither header shows a yaml-cpp type.
#pragma once

#include <string>

#include "compiler/document/diagnostics.h"
#include "compiler/document/document.h"

namespace pai {

/// Limits that keep hostile input from exhausting the compiler.
struct YamlLimits {
  int max_depth = 64;                ///< nesting of sequences/mappings
  long max_nodes = 1'000'000;        ///< nodes after alias expansion (YAML bombs)
  long max_bytes = 64l << 20;        ///< input size
};

/// Parses `text` (the contents of `file`) into a Document. Rejects, with a located
/// LoadError: non-UTF-8 bytes, tabs in indentation, syntax errors, duplicate mapping keys,
/// more than one document, nesting or alias expansion beyond `limits`.
Document load_yaml(const std::string& file, std::string text, const YamlLimits& limits = {});

}  // namespace pai
