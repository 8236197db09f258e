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
