// A drill's full disk (disk-full; docs/drill.md): one file in the job's output folder
// (PAI_OUTPUT_DIR) preallocated with fallocate until its file system has no block left, for the
// fault's seconds, then removed. Only on a file system of the node's own: refused on the root
// file system (the node itself would fail, not the job) and on shared ones (NFS, Lustre, GPFS,
// CephFS, BeeGFS, SMB, 9p, FUSE), which other jobs and users write to. A delayed undo
// (delayed_undo.h) removes the file if the launcher dies first.
#pragma once

#include <string>

#include "launcher/node/delayed_undo.h"

namespace pai::launcher {

/// The file's name in the output folder.
inline constexpr char kDiskFillerName[] = ".pai-drill-disk-full";

/// The name of a shared file system by its statfs f_type ("nfs", "lustre", ...), or nullptr.
const char* shared_file_system(long type);

class DiskFiller {
 public:
  /// For a job whose output folder is `output_dir` ("" when it has none).
  explicit DiskFiller(std::string output_dir);
  /// Removes a file still there.
  ~DiskFiller();
  DiskFiller(const DiskFiller&) = delete;
  DiskFiller& operator=(const DiskFiller&) = delete;

  /// Fills the output folder's file system for `seconds`: "" done, else why not, nothing left.
  std::string fill(int seconds);
  /// Removes the file: "" done (or there was none), else why not.
  std::string empty();
  /// The file that fills the disk ("" while there is none).
  const std::string& file() const { return file_; }

 private:
  std::string output_dir_;
  std::string file_;
  DelayedUndo undo_;
};

}  // namespace pai::launcher
