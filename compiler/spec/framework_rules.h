// The cross-field rules of the framework presets (docs/frameworks.md) on a parsed JobSpec.
#pragma once

#include "compiler/document/diagnostics.h"
#include "compiler/spec/spec.h"

namespace pai {

/// ray: a role named head of one instance, the master role, running the entrypoint (its
/// command); the other roles without a command; one process per instance (Ray starts its
/// workers itself). megatron: tensorParallel x pipelineParallel x contextParallel divides the
/// world size (a warning when tensor-parallel groups would span nodes). masterStore launcher:
/// a framework whose ranks meet through torch.distributed (pytorch, deepspeed, megatron,
/// custom), and no perNode role (its command may run a torchrun that needs MASTER_PORT). Each
/// violation is a located diagnostic.
void check_framework(const JobSpec& spec, Diagnostics& diags);

}  // namespace pai
