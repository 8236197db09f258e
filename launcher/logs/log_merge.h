// `pai-launch logs --merge`: every rank's lines behind a `host:rank` label, and identical lines
// of several ranks collapsed into one line labelled with all of them:
//
//   [node-1:0] loading shard 0
//   [node-1:0-1,node-2:2-3] epoch 1 done
//
// Identical means byte for byte the same line (without its newline). The k-th copy of a line
// from each rank goes together: a line joins the oldest pending group of the same text that
// has no line of its rank yet, else it starts a group. A group is printed once its window
// has passed since its first line (with --follow: 1 s), or at finish() (without --follow the
// whole tails, then), in the order the groups started. Pending text is bounded: past the cap
// the oldest groups are printed early.
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace pai::launcher {

/// `ranks` (rank, host) as a label: sorted by rank, consecutive ranks of one host as a range,
/// "node-1:0-1,node-2:2,node-2:4"; past `max_runs` runs, " and N more ranks".
std::string rank_label(std::vector<std::pair<int, std::string>> ranks, std::size_t max_runs = 8);

class LogMerge {
 public:
  using Clock = std::chrono::steady_clock;
  /// Receives merged output, whole lines.
  using Write = std::function<void(std::string_view text)>;

  /// Pending text (lines and labels) kept at most, by default.
  static constexpr std::size_t kMaxPendingBytes = 16 * 1024 * 1024;

  /// `window`: how long a group waits for copies from other ranks; nullopt: until finish().
  LogMerge(std::optional<Clock::duration> window, Write write,
           std::size_t max_pending_bytes = kMaxPendingBytes)
      : window_(window), write_(std::move(write)), max_pending_bytes_(max_pending_bytes) {}

  /// Output bytes of rank `rank`, which runs on `host`, arrived at `now`. Lines end at a
  /// newline or after kMaxRelayedLine bytes.
  void feed(int rank, const std::string& host, std::string_view bytes, Clock::time_point now);
  /// Prints the groups whose window has passed at `now`.
  void expire(Clock::time_point now);
  /// When the oldest pending group is due; nullopt when none is (or without a window).
  std::optional<Clock::time_point> next_due() const;
  /// The end: partial lines are ended, every group is printed.
  void finish();

 private:
  struct Group {
    std::string text;
    Clock::time_point started;
    std::vector<int> ranks;
  };
  // The pending groups of one text, oldest first, and in how many of them each rank is (a
  // rank's groups are always the first ones: it joins the oldest it is not in).
  struct SameText {
    std::deque<Group*> groups;
    std::map<int, std::size_t> depth;
  };

  void line(int rank, std::string text, Clock::time_point now);
  void print_oldest();

  std::optional<Clock::duration> window_;
  Write write_;
  std::size_t max_pending_bytes_;
  std::size_t pending_bytes_ = 0;
  std::deque<Group> groups_;  // oldest first; references stay valid at both ends
  std::unordered_map<std::string, SameText> by_text_;
  std::map<int, std::string> hosts_;     // rank -> host
  std::map<int, std::string> partials_;  // rank -> its line so far
};

}  // namespace pai::launcher
