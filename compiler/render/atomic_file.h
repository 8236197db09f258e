// Writing output files so that a reader never sees half of one.
#pragma once

#include <string>
#include <string_view>

namespace pai {

/// Who may read a written file.
enum class FileAccess {
  Public,      ///< 0644 less the umask
  Executable,  ///< 0755 less the umask
  Private,     ///< exactly 0600 whatever the umask (secrets)
};

/// Creates `path`, which must not exist (O_EXCL), holding `content`. No fsync. Throws
/// std::runtime_error "cannot write '<path>': <reason>" on any failure, after removing
/// what it created.
void write_new_file(const std::string& path, std::string_view content, FileAccess access);

/// A folder that many new files are written into (env/ of a 10,000-node job), each as
/// write_new_file() writes one: created exclusively, in the mode `access` gives, nothing left
/// of a file that failed. Files are created through a descriptor of the folder, so the
/// kernel does not walk the folder's path again for each; and once a private file has come
/// out 0600 (the umask and the folder's default ACL leave 0600 whole, as they do for every
/// file of the folder), the later ones are not chmod-ed again.
class NewFileFolder {
 public:
  /// Opens `dir`, which must be a folder. Throws std::runtime_error
  /// "cannot write into '<dir>': <reason>".
  explicit NewFileFolder(const std::string& dir);
  ~NewFileFolder();
  NewFileFolder(const NewFileFolder&) = delete;
  NewFileFolder& operator=(const NewFileFolder&) = delete;

  /// Creates `name` (a plain file name) in the folder holding `content`. Throws
  /// std::runtime_error "cannot write '<dir>/<name>': <reason>" on any failure, after
  /// removing what it created.
  void write(const std::string& name, std::string_view content, FileAccess access);

 private:
  std::string dir_;
  int fd_ = -1;
  bool private_mode_whole_ = false;  ///< a private file came out exactly 0600
};

/// Writes `content` to a fresh temporary file next to `path` (write_new_file) and renames
/// it over `path`: readers see the old file or the new one, never a part. Throws
/// std::runtime_error "cannot write '<path>': <reason>" on any failure, after removing the
/// temporary file.
void write_file_atomic(const std::string& path, std::string_view content, FileAccess access);

/// Creates `path` and its missing parents. Throws std::runtime_error
/// "cannot create directory '<path>': <reason>" when that fails or `path` exists and is not
/// a directory.
void make_directories(const std::string& path);

/// make_directories, then sets `path`'s mode to exactly 0700 whatever the umask: a folder of
/// files that hold secrets (env values in env scripts, plans and manifests). Throws
/// std::runtime_error "cannot create directory '<path>': <reason>".
void make_private_directory(const std::string& path);

/// Removes `path` and, for a folder, everything in it; symbolic links are removed, never
/// followed. Nothing to remove is fine. Throws std::runtime_error
/// "cannot remove '<path>': <reason>".
void remove_tree(const std::string& path);

/// Reads the whole file. Throws std::runtime_error "cannot read '<path>': <reason>".
std::string read_file(const std::string& path);

}  // namespace pai
