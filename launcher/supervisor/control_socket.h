// The control socket (design §8): a Unix stream socket per instance, one text line per
// request, one line per reply.
//
// Requests:  notify <text>            -> a "notify" event in events.jsonl
//            progress <step>          -> a heartbeat (resets hang detection), step >= 0
//            hang-interval <d>|default|off -> hang interval for this instance from now on
//            exit-hang-interval <d>|default -> its exit interval from now on
//            retryable-error <text>   -> a log keyword that makes a failure retryable
//            checkpoint-begin <step>  -> a checkpoint save is in flight (stops wait for it)
//            checkpoint-resumed <step> -> training goes on while it is written
//            checkpoint-done <step> <path> | checkpoint-failed <step> <why> -> it ended
//            checkpoint-advice        -> "ok interval=<seconds> request=<n>": the job's
//                                        checkpoint interval and latest checkpoint-now
// Replies:   ok | ok <data> | error <why>
// A line longer than kMaxControlLine is answered with an error and the connection closed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "launcher/os/event_loop.h"

namespace pai::launcher {

/// Longest request line, newline excluded.
inline constexpr std::size_t kMaxControlLine = 4096;

/// `notify <text>`: a message for the journal ("loss is NaN").
struct NotifyRequest {
  std::string text;
};
/// `progress <step>`: training made progress.
struct ProgressRequest {
  std::int64_t step = 0;
};
/// `hang-interval <seconds>|default|off`: 0 means back to the plan's interval, -1 off.
struct HangIntervalRequest {
  std::int64_t seconds = 0;
};
/// `exit-hang-interval <seconds>|default`: 0 means back to the plan's exitInterval.
struct ExitHangIntervalRequest {
  std::int64_t seconds = 0;
};
/// `retryable-error <text>`: a failure whose log contains `text` is retryable (as the spec's
/// faultTolerance.retryableErrors), for the rest of the job.
struct RetryableErrorRequest {
  std::string text;
};
/// `checkpoint-begin <step>`, `checkpoint-resumed <step>`, `checkpoint-done <step> <path>`,
/// `checkpoint-failed <step> <why>`: a checkpoint save of a rank (pai.checkpoint.save_async)
/// started, stopped holding training up (the rest is written in the background), or ended.
struct CheckpointRequest {
  enum class Phase { Begin, Resumed, Done, Failed };
  Phase phase = Phase::Begin;
  std::int64_t step = 0;
  std::string text;  ///< the checkpoint's path (done) or why it failed (failed)
};
/// `checkpoint-advice`: what the job advises its ranks about checkpoints now
/// (docs/checkpoint-planning.md, "While the job runs"), answered `ok interval=<seconds>
/// request=<n>`.
struct CheckpointAdviceRequest {};
/// A parsed request.
using ControlRequest =
    std::variant<NotifyRequest, ProgressRequest, HangIntervalRequest, ExitHangIntervalRequest,
                 RetryableErrorRequest, CheckpointRequest, CheckpointAdviceRequest>;

/// The answer to a request: `ok`, `ok <text>` (a request that asks for something) or
/// `error <text>`.
struct ControlReply {
  bool ok = true;
  std::string text;
  static ControlReply error(std::string why) { return {false, std::move(why)}; }
};

/// Parses one request line (without its newline; a trailing '\r' is ignored). On bad input
/// returns nullopt and sets `*error` to the text after "error " in the reply.
std::optional<ControlRequest> parse_control_line(std::string_view line, std::string* error);

/// Serves the control socket of one instance inside the supervisor's event loop.
class ControlServer {
 public:
  /// Handles a request from the process `peer_pid` (the one that connected, from
  /// SO_PEERCRED; 0 when unknown).
  using RequestHandler = std::function<ControlReply(const ControlRequest&, int peer_pid)>;

  /// Binds and listens on `path` (its directory must exist), replacing a stale socket
  /// left by a dead launcher. Throws std::runtime_error if another launcher serves `path`
  /// or the socket cannot be created.
  ControlServer(std::string path, EventLoop& loop, RequestHandler handler);
  /// Closes every connection and removes the socket file.
  ~ControlServer();
  ControlServer(const ControlServer&) = delete;
  ControlServer& operator=(const ControlServer&) = delete;

  const std::string& path() const { return path_; }

 private:
  void accept_clients();
  void read_client(int fd);
  void drop(int fd);

  std::string path_;
  EventLoop& loop_;
  RequestHandler handler_;
  int listen_fd_ = -1;
  struct Client {
    std::string buffer;  ///< bytes received, not yet a whole line
    int pid = 0;         ///< the peer, from SO_PEERCRED
  };
  std::map<int, Client> clients_;  ///< by fd
};

/// Sends `line` to the control socket at `path` and returns the reply line (without its
/// newline). Throws std::runtime_error when it cannot connect or no reply comes within
/// `timeout_ms`.
std::string send_control_request(const std::string& path, const std::string& line, int timeout_ms);

}  // namespace pai::launcher
