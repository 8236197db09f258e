// Private to libpai: layering of env lists (design §5, "a later layer wins").
#pragma once

#include "libpai/env_contract.h"

namespace pai {

/// Appends `layer` to `base`; a name already in `base` gets the layer's value in place,
/// so the order of first appearance is kept and names stay unique.
void overlay_env(EnvList& base, const EnvList& layer);

}  // namespace pai
