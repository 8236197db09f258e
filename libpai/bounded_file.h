// Reading a small input file whole, within a size limit: pai-compile's --hosts, the job token
// (pai-compile's and pai-launch's --token-file), pai-compile's output-folder mark. A FIFO, a
// device such as /dev/zero or a directory is refused at once instead of being read forever.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace pai {

/// Why read_bounded_regular_file() could not read a file.
class BoundedFileError : public std::runtime_error {
 public:
  BoundedFileError(const std::string& path, std::string_view what, std::string reason);
  /// The file as the caller named it.
  const std::string& path() const { return path_; }
  /// The reason alone, e.g. "No such file or directory", "it is a FIFO, not a regular file"
  /// or "it is larger than 64MiB, the limit", for callers that phrase their own message.
  const std::string& reason() const { return reason_; }

 private:
  std::string path_;
  std::string reason_;
};

/// The whole content of `path`, which must be a regular file (a symbolic link to one is fine)
/// of at most `max_bytes` bytes. The file is opened with O_NONBLOCK | O_CLOEXEC, so that a
/// FIFO without a writer cannot block the open, and checked with fstat() before anything is
/// read; a file that grows past the limit while being read is refused as well. `what` names
/// the file's role for the message. Throws BoundedFileError whose what() is
/// "cannot read <what> '<path>': <reason>", e.g.
/// "cannot read --hosts file '/dev/zero': it is a character device, not a regular file".
std::string read_bounded_regular_file(const std::string& path, std::size_t max_bytes,
                                      std::string_view what);

}  // namespace pai
