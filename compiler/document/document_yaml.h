// A document tree written as YAML text: what `pai-launch torchrun --print-spec` prints, the
// job spec it made from torchrun's command line.
#pragma once

#include <string>

#include "compiler/document/document.h"

namespace pai {

/// `node` as block-style YAML that the YAML loader reads back to the same tree (locations
/// aside): mappings as "key: value", lists as "- item", an empty one as {} or []. A scalar
/// that was quoted is written plain when YAML reads it back as the same string (node-0,
/// /data/train.py), double-quoted with escapes otherwise ("8", "true", "a: b"); an unquoted
/// one (a number, a boolean) as written. Ends with a newline.
std::string to_yaml(const Node& node);

}  // namespace pai
