// A job's coordinator after the job ended, for the launchers that come late. A launcher that
// starts after its coordinator ended would otherwise retry a closed port for its whole
// rendezvous timeout; the ended coordinator answers its hello with a reject that says how the
// job ended, and it gives the port up at once to a new coordinator that asks (a run of the
// job again, or another job on the same port). docs/launch.md, "When a launcher comes late".
#pragma once

#include <chrono>
#include <memory>
#include <string>

namespace pai::launcher::coordinator {

/// What an ended coordinator serves.
struct EndedJob {
  std::string job;             ///< the plan's name: a hello for another job is refused as such
  std::string listen_address;  ///< where the coordinator listened (numeric, or 0.0.0.0)
  int port = 0;                ///< its port; 0 = any (tests)
  std::string end;             ///< "the job ended: failed, exit code 1: REASON"
};

/// Serves the reject for one ended job on its coordinator's address and port, and listens
/// for a new coordinator's request to give them up on an abstract Unix socket named after
/// them (dismiss_ended_coordinator()).
class EndedCoordinator {
 public:
  /// Binds both. Throws std::runtime_error naming what is taken: a new coordinator already
  /// listens there, or another ended coordinator does.
  explicit EndedCoordinator(EndedJob job);
  ~EndedCoordinator();
  EndedCoordinator(const EndedCoordinator&) = delete;
  EndedCoordinator& operator=(const EndedCoordinator&) = delete;

  /// The TCP port it listens on.
  int port() const;

  /// Why serve() returned.
  enum class End { Time, Dismissed };
  /// Answers every hello until `until` or until a process of the same user (or root) asks for
  /// the port (then the port is closed before that process hears back). Each connection gets
  /// at most two seconds and one reject; at most 64 are open at once (a 65th closes the
  /// oldest), so neither idle nor garbage-sending peers keep the others waiting.
  End serve(std::chrono::steady_clock::time_point until);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The reject's reason a late peer of `job` gets.
std::string late_reject_reason(const EndedJob& job, const std::string& peer,
                               const std::string& node);

/// Asks an ended coordinator of `address`:`port` (and one of the wildcard address on `port`)
/// to give the port up, and waits up to `timeout` until it has. Returns whether one was there
/// and left. Never throws: nothing there, or no answer, is not an error.
bool dismiss_ended_coordinator(const std::string& address, int port,
                               std::chrono::milliseconds timeout = std::chrono::seconds(2));

}  // namespace pai::launcher::coordinator
