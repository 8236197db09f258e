// A file the launcher shares with a rank through mappings (the telemetry ring and the per-peer
// table of include/pai/telemetry.h): created fresh for each attempt, then mapped read-only to
// follow what the rank writes into it, without a system call per read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace pai::launcher {

/// A telemetry file that cannot be created or read; what() names the file and says why.
class TelemetryError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Creates the file at `path`, called `kind` in errors ("telemetry ring"): a fresh file
/// (whatever was at `path` is removed first, so a process of an earlier attempt that still
/// maps the old file cannot write into the new one), mode 0600, sparse, `size` bytes, starting
/// with `header`. Throws TelemetryError "<kind> <path>: <why>" (disk full, out of descriptors,
/// ...); then nothing is left at `path`.
void create_shared_file(const std::string& kind, const std::string& path, std::string_view header,
                        std::uint64_t size);

/// Writes `bytes` at `offset` of the existing regular file at `path` (no symbolic link
/// followed, no FIFO waited on): what the launcher tells a rank through the file it maps.
/// Throws TelemetryError "<kind> <path>: <why>".
void write_shared_file(const std::string& kind, const std::string& path, std::uint64_t offset,
                       std::string_view bytes);

/// A file a rank writes, mapped read-only by the launcher. Single-threaded.
class MappedFile {
 public:
  /// Opens `path` read-only (no symbolic link followed, no FIFO waited on), checks that it is
  /// a regular file of at least `min_size` bytes and copies its first `header_size` bytes
  /// (<= min_size) into `header`. Throws TelemetryError "<kind> <path>: <why>".
  MappedFile(std::string kind, std::string path, std::size_t min_size, void* header,
             std::size_t header_size);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  /// Its size when opened.
  std::uint64_t size() const { return size_; }
  /// Maps all of it, read-only and shared; base() is valid from then on. Throws.
  void map();
  const void* base() const { return base_; }
  /// Throws TelemetryError when the file is shorter now than when it was mapped: reading a
  /// page the file no longer has would kill the launcher with SIGBUS. (A truncation racing
  /// with a read cannot be caught, but no writer has a reason to resize its file.)
  void check_size() const;
  /// Throws TelemetryError "<kind> <path>: <why>".
  [[noreturn]] void fail(const std::string& why) const;
  const std::string& path() const { return path_; }

 private:
  std::string kind_;
  std::string path_;
  int fd_ = -1;  // kept for check_size()
  std::uint64_t size_ = 0;
  const void* base_ = nullptr;
};

}  // namespace pai::launcher
