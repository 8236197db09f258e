// Cross-field rules of design §3 on a parsed JobSpec.
#pragma once

#include "compiler/document/diagnostics.h"
#include "compiler/spec/spec.h"

namespace pai {

/// nprocPerNode vs resources.gpu vs host slots; enough hosts for all instances; duplicate
/// hosts or addresses (hosts and spares together); port label collisions; mpi jobs having
/// a launcher role; reserved env names; coordinator/master role names that exist; mounts
/// with unique names and targets; the framework's own rules (framework_rules.h). Each
/// violation is a located diagnostic.
void check_spec(const JobSpec& spec, Diagnostics& diags);

}  // namespace pai
