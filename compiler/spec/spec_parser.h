// Document tree -> JobSpec: types, ranges, required fields, unknown keys, enums, defaults,
// ${parameters.x} substitution. Every problem is a located diagnostic; parsing continues
// past errors so that all are reported at once.
#pragma once

#include "compiler/document/diagnostics.h"
#include "compiler/document/document.h"
#include "compiler/spec/spec.h"

namespace pai {

/// The order of a job's roles, which is their rank and placement order and that of
/// PAI_TASK_ROLE_LIST.
enum class RoleOrder {
  ByName,     ///< pai specs: sorted by name
  AsWritten,  ///< OpenPAI job files: as the file lists them, as OpenPAI keeps them
};

/// Parses the spec. Fields with errors keep their defaults. Check diags.has_errors().
JobSpec parse_spec(const Document& doc, Diagnostics& diags, RoleOrder order = RoleOrder::ByName);

}  // namespace pai
