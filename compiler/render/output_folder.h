// pai-compile's output folder (-o DIR): marked as pai-compile's, refused when it is somebody
// else's, and its artifact set replaced as a whole, never file by file.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace pai {

/// The file that marks a folder as written by pai-compile. It holds "pai-compile VERSION" and
/// a line saying what the folder is.
inline constexpr const char* kOutputMark = ".pai-compile";

/// The output folder is not one pai-compile may replace (a symbolic link, somebody else's
/// folder, the root): a usage error. what() is the complete message.
class OutputFolderRefused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct OutputFolderOptions {
  /// --force: replace the artifacts in an existing non-empty folder that has no mark.
  bool force = false;
  /// The top-level names of the artifact set ("plan.json", "env", ...): entries of the old
  /// folder with these names go with it, whether or not the new set has them. Every other
  /// entry (the logs/ of earlier runs, the user's own files) is kept in the new folder.
  std::vector<std::string> artifact_names;
};

/// Replaces the artifact set in `dir`. Refuses, changing nothing, a `dir` that is a symbolic
/// link, not a folder, or an existing non-empty folder without the mark unless
/// options.force. Then `fill` writes the new set into a fresh staging folder next to `dir`
/// (".<name>.pai-new-<pid>" in the same parent, so the parent must be writable); the mark is
/// added, the old folder's other entries are moved over and its permission bits copied, and
/// the staging folder takes `dir`'s place in one renameat2(RENAME_EXCHANGE) (two renames
/// where the file system cannot exchange); the old folder is then removed. A failure at any
/// point (ENOSPC while `fill` writes, a rename refused) leaves `dir` as it was and no staging
/// folder behind. Throws OutputFolderRefused, or std::runtime_error naming the path, or what
/// `fill` throws. Returns a path naming the new folder that stays valid after the swap
/// (`dir` itself, or its absolute form when `dir` is "." or ends in "..").
std::string replace_output_folder(const std::string& dir, const OutputFolderOptions& options,
                                  const std::function<void(const std::string& staging)>& fill);

}  // namespace pai
