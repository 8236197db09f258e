// The rendezvous (design §6, §7): every instance of the plan waits for a connected node whose
// checks passed; nodes that fail their checks are replaced by ready spares or asked to run
// them again; progress goes to the terminal and to the joined launchers; at the timeout
// spares fill what is missing, or the job fails naming the missing nodes and why.
// Internal to launcher/coordinator/.
#pragma once

#include <optional>
#include <string>

#include "launcher/coordinator/coordinator_state.h"

namespace pai::launcher::coordinator {

class Rendezvous {
 public:
  /// Times out settings.rendezvous_timeout after state.started.
  explicit Rendezvous(CoordinatorState& state);

  /// A node joined or answered `run-checks` (its results applied). A failed node holding an
  /// instance is replaced or checked again (or the job fails); a failed spare is released; a
  /// ready spare takes the instance of a failed node. True when every instance has a ready
  /// node: the caller assigns.
  bool node_checked(int node, Clock::time_point now);
  /// Node `node`'s launcher is gone: its instance waits again.
  void node_lost(int node, Clock::time_point now);
  /// Progress lines due, and the timeout. True when the rendezvous completed.
  bool tick(Clock::time_point now);
  std::optional<Clock::time_point> next_deadline() const;

  /// "14/16 joined; waiting for gpu-007: no connection; gpu-011: failed check burn".
  std::string progress_text() const;

 private:
  bool settle(Clock::time_point now);
  // Whether every instance has a ready node. Amortized O(1) a call: instances before
  // ready_upto_ were ready when last looked at, and a node that went unready moves it back.
  bool complete();
  void unready(int node);
  void progress(Clock::time_point now);
  // "gpu-007: no connection<sep>gpu-011: failed check burn" for the unready instances.
  std::string missing_text(const char* separator) const;

  CoordinatorState& state_;
  Clock::time_point deadline_;
  std::optional<Clock::time_point> last_progress_;
  bool dirty_ = false;
  std::size_t ready_upto_ = 0;
};

}  // namespace pai::launcher::coordinator
