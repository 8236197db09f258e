// Reading a list of hosts from a document node: the spec's `hosts` and `spares`, and a
// YAML inventory file (--hosts).
#pragma once

#include <string>
#include <vector>

#include "compiler/document/document.h"
#include "compiler/document/field_reader.h"
#include "libpai/plan.h"

namespace pai {

/// Appends to `out` the hosts of the list `node` at field path `path`: each item a DNS-label
/// name (address = name) or {name, address, slots} with slots in 1..1024. Each bad item is
/// a located diagnostic through `reader` and is skipped.
void parse_host_list(FieldReader& reader, const Node& node, const std::string& path,
                     std::vector<Host>* out);

}  // namespace pai
