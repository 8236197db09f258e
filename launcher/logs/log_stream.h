// `pai-launch logs` on one node: the ranks' current log files, sent to the coordinator from
// where a subscription starts (the last lines within the last `tail` bytes, at a line
// boundary: logs/log_tail.h) and then as they grow. The log files are
// the source, so nothing the relay does is slowed down by a follower.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>

namespace pai::launcher {

class LogStream {
 public:
  /// Sends one chunk of rank `rank`'s output.
  using Send = std::function<void(int rank, std::string_view data)>;

  explicit LogStream(Send send) : send_(std::move(send)) {}

  /// Most bytes a tail is looked for in (a larger `tail` is cut to it): the window is read
  /// into memory at once.
  static constexpr std::int64_t kMaxTail = 16 * 1024 * 1024;

  /// Follows rank `rank` (-1 = every rank) starting with the last `lines` lines (-1: every
  /// line) within the last `tail` bytes of each file, at a line boundary (tail_start()).
  void subscribe(int rank, std::int64_t tail, int lines = -1);
  void unsubscribe() { subscribed_ = false; }
  bool subscribed() const { return subscribed_; }
  /// Rank `rank` (global) writes to `path` (its current attempt's log); sends what is new.
  void grew(int rank, const std::string& path);

 private:
  struct Position {
    std::string path;
    std::int64_t offset = 0;
  };
  std::int64_t tail_offset(int rank, int fd, std::int64_t size);

  Send send_;
  bool subscribed_ = false;
  int rank_ = -1;
  std::int64_t tail_ = 0;
  int lines_ = -1;
  std::map<int, Position> positions_;
};

}  // namespace pai::launcher
