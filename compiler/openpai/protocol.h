// OpenPAI job protocol v2 -> the document of an equivalent pai/v1 spec, so that the spec
// parser and the rules run unchanged on OpenPAI job files.
//
// Translated nodes keep the locations of the OpenPAI nodes they come from, so later
// diagnostics still point into the OpenPAI file. The job runs as on OpenPAI: each task role's
// preCommands, commands and postCommands as one bash script, names made valid with a warning.
// The fields without a meaning in pai are listed in one located warning; unknown keys are
// errors with a suggestion.
#pragma once

#include "compiler/document/diagnostics.h"
#include "compiler/document/document.h"

namespace pai {

/// True when `doc`'s root is a mapping with a `protocolVersion` key: an OpenPAI job file.
bool is_openpai_protocol(const Document& doc);

/// The pai/v1 spec equivalent to the OpenPAI job protocol v2 document `doc`, which must
/// satisfy is_openpai_protocol(); the result has the same file and text. Problems of the
/// OpenPAI file are reported into `diags`: errors for what cannot be translated, warnings
/// for what changes meaning and one warning listing what is dropped. Secret values never
/// appear in a diagnostic.
Document translate_openpai(const Document& doc, Diagnostics& diags);

}  // namespace pai
