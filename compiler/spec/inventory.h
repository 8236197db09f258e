// --hosts FILE: the inventory as a YAML list or an MPI hostfile.
#pragma once

#include <string>
#include <vector>

#include "compiler/document/diagnostics.h"
#include "libpai/plan.h"

namespace pai {

/// Reads hosts from `text` (contents of `file`). A YAML sequence of names or
/// {name, address, slots} mappings, or MPI hostfile lines ("host slots=N", "host:N",
/// "host", '#' comments). Problems are located diagnostics in `diags`.
std::vector<Host> load_inventory(const std::string& file, const std::string& text,
                                 Diagnostics& diags);

}  // namespace pai
