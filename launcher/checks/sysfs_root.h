// The one door to sysfs (design §13): every read of /sys by the checks and the NIC telemetry
// goes through a SysfsRoot, which is `/sys` on a node and a folder built by a test helper
// from the kernel's documented layout in tests (PAI_SYSFS_ROOT). Reads are bounded and never
// throw: a file that is missing, unreadable, too long or not a regular file is nullopt, so a
// driver that lacks an attribute, or a tree that changes while it is read, gives "unknown".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pai::checks {

class SysfsRoot {
 public:
  /// Attribute files longer than this are not read (sysfs attributes are one page at most).
  static constexpr std::size_t kMaxAttributeBytes = 4096;

  /// Paths are taken below `root` ("/sys" on a node).
  explicit SysfsRoot(std::string root = "/sys");
  /// $PAI_SYSFS_ROOT when it is set and not empty, else /sys.
  static SysfsRoot from_env();

  const std::string& root() const { return root_; }

  /// The attribute at `path` (relative to the root, e.g. "class/net/eth0/mtu"), without its
  /// trailing newline and surrounding blanks; nullopt when it cannot be read.
  std::optional<std::string> text(const std::string& path) const;
  /// The attribute read as a decimal integer (an optional leading '-' or "0x" hexadecimal);
  /// nullopt when it cannot be read or is not one number.
  std::optional<std::int64_t> integer(const std::string& path) const;
  /// The attribute read as an unsigned 64-bit counter; nullopt when it is not one.
  std::optional<std::uint64_t> counter(const std::string& path) const;
  /// The names in the folder at `path`, sorted; empty when it is not a folder.
  std::vector<std::string> list(const std::string& path) const;
  /// Whether `path` exists (a file, a folder or a link that resolves).
  bool exists(const std::string& path) const;
  /// The attribute at `path` opened for reading again and again with pread() at offset 0
  /// (O_RDONLY | O_CLOEXEC | O_NONBLOCK), when it is a regular file; -1 otherwise. The caller
  /// closes it.
  int open_file(const std::string& path) const;
  /// The folder at `path` opened for openat() (O_DIRECTORY | O_CLOEXEC); -1 when it is none.
  /// The caller closes it.
  int open_dir(const std::string& path) const;
  /// `path` with every link resolved, relative to the root ("devices/pci0000:00/..."); nullopt
  /// when it does not resolve or leaves the root.
  std::optional<std::string> resolve(const std::string& path) const;

 private:
  std::string absolute(const std::string& path) const;

  std::string root_;
};

/// The attribute `name` of the folder open as `dir_fd`, read as SysfsRoot::text() reads.
std::optional<std::string> read_sysfs_at(int dir_fd, const std::string& name);

/// Parses a sysfs integer as SysfsRoot::integer() does; nullopt when `text` is not one.
std::optional<std::int64_t> parse_sysfs_integer(const std::string& text);
/// Parses a sysfs counter as SysfsRoot::counter() does; nullopt when `text` is not one.
std::optional<std::uint64_t> parse_sysfs_counter(const std::string& text);

}  // namespace pai::checks
