#include "launcher/os/event_loop.h"

#include <sys/epoll.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>
#include <utility>

namespace pai::launcher {

EventLoop::EventLoop() : epoll_fd_(epoll_create1(EPOLL_CLOEXEC)) {
  if (epoll_fd_ < 0) throw std::system_error(errno, std::system_category(), "epoll_create1");
}

EventLoop::~EventLoop() { close(epoll_fd_); }

void EventLoop::watch(int fd, Handler on_ready) {
  const std::uint32_t generation = next_generation_++;
  epoll_event ev{};
  ev.events = EPOLLIN;
  // The generation tells a stale event of a closed and reused descriptor from a new one.
  ev.data.u64 = (static_cast<std::uint64_t>(generation) << 32) | static_cast<std::uint32_t>(fd);
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0) {
    throw std::system_error(errno, std::system_category(), "epoll_ctl");
  }
  entries_[fd] = Entry{generation, std::move(on_ready)};
}

void EventLoop::unwatch(int fd) {
  if (entries_.erase(fd) > 0) epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
}

int EventLoop::wait_once(int timeout_ms) {
  epoll_event events[64];
  int n = epoll_wait(epoll_fd_, events, 64, timeout_ms);
  if (n < 0) {
    if (errno == EINTR) return 0;
    throw std::system_error(errno, std::system_category(), "epoll_wait");
  }
  int ran = 0;
  for (int i = 0; i < n; ++i) {
    const int fd = static_cast<int>(events[i].data.u64 & 0xffffffffu);
    const auto generation = static_cast<std::uint32_t>(events[i].data.u64 >> 32);
    auto it = entries_.find(fd);
    if (it == entries_.end() || it->second.generation != generation) continue;
    // A copy: the handler may unwatch itself, destroying the stored one.
    Handler handler = it->second.handler;
    handler();
    ++ran;
  }
  return ran;
}

}  // namespace pai::launcher
