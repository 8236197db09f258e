// The newest complete checkpoint of a job, as the Python SDK's pai.checkpoint writes them
// (sdk/python/README.md): `<output>/checkpoints/step-<N>/` folders, each renamed into place
// only once whole, and `<output>/checkpoints/latest`, a file naming the newest ("step-<N>\n"),
// also replaced atomically. A restarted rank finds it in PAI_LATEST_CHECKPOINT.
#pragma once

#include <string>

namespace pai::launcher {

/// The absolute path of the checkpoint `<output_dir>/checkpoints/latest` names, when that is
/// a `step-<N>` folder holding `meta.json`; "" otherwise (no output folder, no checkpoint
/// yet, a pointer that is garbage or names something missing). Never throws.
std::string latest_checkpoint(const std::string& output_dir);

}  // namespace pai::launcher
