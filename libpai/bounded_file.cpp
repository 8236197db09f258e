#include "libpai/bounded_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <utility>

#include "libpai/quantity.h"

namespace pai {
namespace {

std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "an unusual file";
}

// "64MiB", "4KiB", "1000 bytes": the limit as people write it.
std::string limit_text(std::size_t bytes) {
  const std::string q = format_quantity(static_cast<std::int64_t>(bytes));
  if (!q.empty() && q.back() == 'i') return q + "B";
  return std::to_string(bytes) + " bytes";
}

// Closes the descriptor on every way out.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

BoundedFileError::BoundedFileError(const std::string& path, std::string_view what,
                                   std::string reason)
    : std::runtime_error("cannot read " + std::string(what) + " '" + path + "': " + reason),
      path_(path),
      reason_(std::move(reason)) {}

std::string read_bounded_regular_file(const std::string& path, std::size_t max_bytes,
                                      std::string_view what) {
  const auto error = [&](std::string reason) { return BoundedFileError(path, what, reason); };
  const Fd file{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)};
  if (file.fd < 0) throw error(std::strerror(errno));
  struct stat st {};
  if (::fstat(file.fd, &st) != 0) throw error(std::strerror(errno));
  if (!S_ISREG(st.st_mode)) {
    const std::string kind = kind_of(st.st_mode);
    throw error("it is " + kind + ", not a regular file");
  }
  const std::string too_big = "it is larger than " + limit_text(max_bytes) + ", the limit";
  if (static_cast<std::uintmax_t>(st.st_size) > max_bytes) throw error(too_big);

  std::string content;
  content.reserve(static_cast<std::size_t>(st.st_size));
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(file.fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw error(std::strerror(errno));
    if (n == 0) break;
    // The file may have grown since fstat().
    if (content.size() + static_cast<std::size_t>(n) > max_bytes) throw error(too_big);
    content.append(buffer, static_cast<std::size_t>(n));
  }
  return content;
}

}  // namespace pai
