#include "launcher/logs/log_stream.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "launcher/logs/log_tail.h"

namespace pai::launcher {

namespace {

// Bytes per `log` message: well under the frame cap once base64-encoded.
constexpr std::int64_t kChunk = 256 * 1024;

}  // namespace

// Where the subscription's tail of the file open as `fd` (`size` bytes) starts; sends the
// cut-line marker when it starts inside a line.
std::int64_t LogStream::tail_offset(int rank, int fd, std::int64_t size) {
  if (tail_ == 0) return size;
  // One byte more: the newline that may end the line before the tail.
  const std::int64_t from = std::max<std::int64_t>(size - tail_ - 1, 0);
  std::string window(static_cast<std::size_t>(size - from), '\0');
  std::size_t got = 0;
  while (got < window.size()) {
    const ssize_t n = ::pread(fd, window.data() + got, window.size() - got,
                              from + static_cast<std::int64_t>(got));
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  window.resize(got);
  const TailStart start = tail_start(window, from, lines_);
  if (!start.cut) return start.offset;
  send_(rank, kCutLineMarker);
  return std::max(start.offset, size - tail_);  // not the byte looked at for the newline
}

void LogStream::subscribe(int rank, std::int64_t tail, int lines) {
  subscribed_ = true;
  rank_ = rank;
  tail_ = std::clamp<std::int64_t>(tail, 0, kMaxTail);
  lines_ = lines;
  positions_.clear();
}

void LogStream::grew(int rank, const std::string& path) {
  if (!subscribed_ || (rank_ >= 0 && rank != rank_)) return;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  struct stat st {};
  ::fstat(fd, &st);
  auto [it, fresh] = positions_.try_emplace(rank);
  Position& at = it->second;
  if (fresh || at.path != path) {
    // A new subscription starts at the tail; a new attempt's file from its beginning.
    at.offset = fresh ? tail_offset(rank, fd, st.st_size) : 0;
    at.path = path;
  }
  std::string buffer;
  while (at.offset < st.st_size) {
    buffer.resize(static_cast<std::size_t>(std::min(kChunk, st.st_size - at.offset)));
    const ssize_t n = ::pread(fd, buffer.data(), buffer.size(), at.offset);
    if (n <= 0) break;
    at.offset += n;
    send_(rank, std::string_view(buffer.data(), static_cast<std::size_t>(n)));
  }
  ::close(fd);
}

}  // namespace pai::launcher
