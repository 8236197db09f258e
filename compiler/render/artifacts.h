// Writing a plan's artifacts (design §4) to an output folder.
#pragma once

#include <functional>
#include <string>

#include "libpai/plan.h"

namespace pai {

struct ArtifactOptions {
  std::string out_dir;
  /// Existing token file to reuse; empty = make a new random token.
  std::string token_file;
  HostfileStyle hostfile_style = HostfileStyle::OpenMpi;
  /// --force: write into a non-empty folder that pai-compile did not write (output_folder.h).
  bool force = false;
  /// Writes the target's own files (k8s/job.yaml; job.sbatch and logs/) into the new output
  /// folder, `dir`, along with the artifacts; none when empty.
  std::function<void(const std::string& dir)> target_files = nullptr;
};

/// Writes plan.json (sealed with the job token), roles/<role>.json, hostfile,
/// env/<role>-<i>.sh, job.token (mode 0600, 32 random bytes hex from a CSPRNG, never
/// printed), launch.sh and the target's files into out_dir, as one set through replace_output_folder() (output_folder.h): out_dir is marked
/// as pai-compile's, refused when it is somebody else's (unless `force`) or a symbolic link,
/// and replaced as a whole, so a failed run leaves the previous output as it was. Entries of
/// an earlier output that are not artifacts (logs/ of runs, the user's files) are kept.
/// Deterministic for a given token (token_file): a new token changes job.token, the seal
/// in plan.json and the planHash of roles/*.json, nothing else. Throws OutputFolderRefused, or
/// std::runtime_error naming the path on I/O errors. Returns a path naming the output folder
/// (see replace_output_folder()).
std::string write_artifacts(const Plan& plan, const ArtifactOptions& options);

}  // namespace pai
