#include "launcher/checks/sysfs_root.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace pai::checks {
namespace fs = std::filesystem;

namespace {

std::string trimmed(std::string text) {
  const auto begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return "";
  const auto end = text.find_last_not_of(" \t\r\n");
  return text.substr(begin, end - begin + 1);
}

}  // namespace

SysfsRoot::SysfsRoot(std::string root) : root_(std::move(root)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
}

SysfsRoot SysfsRoot::from_env() {
  const char* root = std::getenv("PAI_SYSFS_ROOT");
  return SysfsRoot(root != nullptr && *root != '\0' ? root : "/sys");
}

std::string SysfsRoot::absolute(const std::string& path) const { return root_ + "/" + path; }

namespace {

// Reads the open file `fd` as an attribute and closes it.
std::optional<std::string> read_attribute(int fd) {
  if (fd < 0) return std::nullopt;
  struct stat st {};
  std::optional<std::string> out;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    // sysfs reports a size of 4096 for every attribute whatever it holds: read, never trust it.
    std::string buffer(SysfsRoot::kMaxAttributeBytes + 1, '\0');
    std::size_t got = 0;
    while (got < buffer.size()) {
      const ssize_t n = ::read(fd, buffer.data() + got, buffer.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        if (n == 0) {
          buffer.resize(got);
          out = trimmed(std::move(buffer));
        }
        break;
      }
      got += static_cast<std::size_t>(n);
    }
  }
  ::close(fd);
  return out;
}

}  // namespace

std::optional<std::string> SysfsRoot::text(const std::string& path) const {
  // O_NONBLOCK: a FIFO planted in a test tree (or a device) must not block the heartbeat.
  return read_attribute(::open(absolute(path).c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
}

std::optional<std::string> read_sysfs_at(int dir_fd, const std::string& name) {
  if (name.empty() || name.find('/') != std::string::npos) return std::nullopt;
  return read_attribute(::openat(dir_fd, name.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
}

int SysfsRoot::open_file(const std::string& path) const {
  const int fd = ::open(absolute(path).c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  struct stat st {};
  if (fd >= 0 && (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
    ::close(fd);
    return -1;
  }
  return fd;
}

int SysfsRoot::open_dir(const std::string& path) const {
  return ::open(absolute(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

std::optional<std::int64_t> parse_sysfs_integer(const std::string& text) {
  const char* begin = text.data();
  const char* end = begin + text.size();
  int base = 10;
  bool negative = false;
  if (begin != end && *begin == '-') {
    negative = true;
    ++begin;
  }
  if (end - begin > 2 && begin[0] == '0' && (begin[1] == 'x' || begin[1] == 'X')) {
    base = 16;
    begin += 2;
  }
  std::uint64_t magnitude = 0;
  const auto [ptr, ec] = std::from_chars(begin, end, magnitude, base);
  if (ec != std::errc() || ptr != end || begin == end) return std::nullopt;
  if (magnitude > static_cast<std::uint64_t>(INT64_MAX)) return std::nullopt;
  const auto value = static_cast<std::int64_t>(magnitude);
  return negative ? -value : value;
}

std::optional<std::uint64_t> parse_sysfs_counter(const std::string& text) {
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || text.empty()) return std::nullopt;
  return value;
}

std::optional<std::int64_t> SysfsRoot::integer(const std::string& path) const {
  const auto value = text(path);
  return value ? parse_sysfs_integer(*value) : std::nullopt;
}

std::optional<std::uint64_t> SysfsRoot::counter(const std::string& path) const {
  const auto value = text(path);
  return value ? parse_sysfs_counter(*value) : std::nullopt;
}

std::vector<std::string> SysfsRoot::list(const std::string& path) const {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(absolute(path), ec), end; !ec && it != end; it.increment(ec)) {
    names.push_back(it->path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

bool SysfsRoot::exists(const std::string& path) const {
  std::error_code ec;
  return fs::exists(absolute(path), ec);
}

std::optional<std::string> SysfsRoot::resolve(const std::string& path) const {
  std::error_code ec;
  const fs::path root = fs::canonical(root_, ec);
  if (ec) return std::nullopt;
  const fs::path real = fs::canonical(absolute(path), ec);
  if (ec) return std::nullopt;
  const fs::path relative = real.lexically_relative(root);
  if (relative.empty() || *relative.begin() == "..") return std::nullopt;
  return relative.string();
}

}  // namespace pai::checks
