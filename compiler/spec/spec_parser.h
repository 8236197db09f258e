// Document tree -> JobSpec: types, ranges, required fields, unknown keys, enums, defaults,
// ${parameters.x} substitution. Every problem is a located diagnostic; parsing continues
// past errors so that all are reported at once.
#pragma once

#include "compiler/document/diagnostics.h"
#include "compiler/document/document.h"
#include "compiler/spec/spec.h"

namespace pai {

/// Parses the spec. Fields with errors keep their defaults. Check diags.has_errors().
JobSpec parse_spec(const Document& doc, Diagnostics& diags);

}  // namespace pai
