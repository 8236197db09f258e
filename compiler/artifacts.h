// Writing a plan's artifacts (design §4) to an output folder.
#pragma once

#include <string>

#include "libpai/plan.h"

namespace pai {

struct ArtifactOptions {
  std::string out_dir;
  /// Existing token file to reuse; empty = make a new random token.
  std::string token_file;
  HostfileStyle hostfile_style = HostfileStyle::OpenMpi;
};

/// Writes plan.json (sealed with the job token), roles/<role>.json, hostfile,
/// env/<role>-<i>.sh, job.token (mode 0600, 32 random bytes hex from a CSPRNG, never printed)
/// and launch.sh into out_dir, creating it. Each file is written to a temporary name and
/// renamed, so a failed run leaves no half-written artifact. Deterministic for a given token
/// (token_file): a new token changes job.token, the seal in plan.json and the planHash of
/// roles/*.json, nothing else. Throws std::runtime_error naming the path on I/O errors.
void write_artifacts(const Plan& plan, const ArtifactOptions& options);

}  // namespace pai
