// The supervisor's one wait: epoll over pipes, sockets and the signalfd, with a timeout.
#pragma once

#include <cstdint>
#include <functional>
#include <unordered_map>

namespace pai::launcher {

/// Dispatches readiness of file descriptors to handlers, one epoll_wait at a time.
/// Handlers may watch and unwatch descriptors (their own included) while running.
class EventLoop {
 public:
  /// Called when the descriptor is readable, hung up or in error.
  using Handler = std::function<void()>;

  /// Throws std::system_error if epoll cannot be created.
  EventLoop();
  ~EventLoop();
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  /// Starts watching `fd` (level-triggered). Throws std::system_error on failure.
  void watch(int fd, Handler on_ready);
  /// Stops watching `fd`; pending readiness of it in the current round is dropped. The
  /// caller still owns and closes the descriptor.
  void unwatch(int fd);
  /// Waits up to `timeout_ms` (-1 = no limit) and runs the handlers of the ready
  /// descriptors. Returns the number of handlers run.
  int wait_once(int timeout_ms);

 private:
  struct Entry {
    std::uint32_t generation;
    Handler handler;
  };
  int epoll_fd_;
  std::uint32_t next_generation_ = 1;
  std::unordered_map<int, Entry> entries_;
};

}  // namespace pai::launcher
