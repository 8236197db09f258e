// The targets pai-compile knows, by the names --target takes (targets/target.h).
#pragma once

#include <string_view>
#include <vector>

#include "compiler/targets/target.h"

namespace pai {

/// Every target, in a fixed order: bare, k8s, slurm. A target's place in it is the number
/// --target accepts for it (as --help shows: {bare->0,k8s->1,slurm->2}).
const std::vector<const Target*>& all_targets();

/// The target named `name` (exactly, as name() spells it), or nullptr.
const Target* find_target(std::string_view name);

}  // namespace pai
