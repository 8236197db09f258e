#include "launcher/logs/log_stream.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

namespace pai::launcher {

namespace {

// Bytes per `log` message: well under the frame cap once base64-encoded.
constexpr std::int64_t kChunk = 256 * 1024;

}  // namespace

void LogStream::subscribe(int rank, std::int64_t tail) {
  subscribed_ = true;
  rank_ = rank;
  tail_ = std::max<std::int64_t>(tail, 0);
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
    at.offset = fresh ? std::max<std::int64_t>(st.st_size - tail_, 0) : 0;
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
