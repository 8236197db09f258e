// roles.<name>: one role of the spec, parsed for parse_spec().
#pragma once

#include <map>
#include <string>

#include "compiler/document/document.h"
#include "compiler/document/field_reader.h"
#include "libpai/plan.h"

namespace pai {

/// True for role names usable in env var names: [A-Za-z][A-Za-z0-9_]*, at most 32
/// characters.
bool is_role_name(const std::string& name);

/// Parses the role `name` at `path` ("roles.<name>") from `node`: defaults filled in,
/// nprocPerNode "gpu" resolved, the env convention chosen, the command turned into argv
/// and ${parameters.x} substituted from `parameters`. Fields with errors keep defaults.
/// `command` is required unless `command_required` is false (a Ray job's worker roles, whose
/// command pai renders).
Role parse_role(const Node& node, const std::string& path, const std::string& name,
                const std::map<std::string, std::string>& parameters, FieldReader& reader,
                bool command_required = true);

}  // namespace pai
