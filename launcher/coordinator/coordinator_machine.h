// The coordinator as a state machine (design §2: deciding is separate from doing): connection
// events and received messages in, messages to send and journal records out. It knows nothing
// of sockets, threads or clocks (time is passed in), so rendezvous, spares, job-wide fault
// tolerance and job control are tested without a network (tests/launcher/coordinator/).
//
// The messages are those of docs/protocol.md. Fault tolerance is the launcher's
// RestartPolicyMachine (restart_policy.h), here governing every instance of the job and fed by
// the reports of all launchers.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "launcher/coordinator/takeover.h"
#include "launcher/logs/goodput.h"
#include "launcher/logs/journal_events.h"
#include "libpai/plan.h"

namespace pai::launcher::coordinator {

using Clock = std::chrono::steady_clock;
using Json = nlohmann::json;

/// Settings of the coordinator beyond the plan (pai-launch run flags).
struct CoordinatorSettings {
  /// How long the rendezvous waits for every instance before replacing missing nodes with
  /// spares and then failing, naming the missing peers.
  std::chrono::milliseconds rendezvous_timeout{std::chrono::minutes(5)};
  /// Heartbeat interval; a launcher silent for kHeartbeatMisses intervals is lost, and the
  /// coordinator beats each launcher every net::coordinator_beat_intervals of them.
  std::chrono::milliseconds heartbeat_interval{1000};
  /// Rendezvous progress lines at most this often.
  std::chrono::milliseconds progress_interval{1000};
  /// Plan hosts come from the joining launchers (Slurm: the allocation is only known at
  /// launch): a launcher joining as host i gets the address it connected from.
  bool addresses_from_peers = false;
  /// With coordinator.ha, when this coordinator takes the job over from a lost one
  /// (docs/coordinator-ha.md): the lost node and the nodes its state names are out of the job
  /// from the start (ready spares take their instances; with none that can, the job fails at
  /// once), and the job starts again from where the policy stood, counted as a restart.
  std::optional<Takeover> takeover;
  /// The node whose launcher serves this coordinator (its run ends with the job's): a swap
  /// never takes it out (faultTolerance.swap). "" when none is known.
  std::string own_node;
  /// With coordinator.ha: hears the state a coordinator taking over would need, whenever a
  /// policy event changed it, on the coordinator's thread. It must not block.
  std::function<void(const TakeoverState&)> publish_state;
};

/// Who is on the other end of an authenticated connection.
struct Peer {
  std::string kind;     ///< "launcher" or "control"
  std::string node;     ///< claimed node name (launcher) or hostname (control)
  std::string address;  ///< numeric address the connection comes from
};

// ---- Actions ----

/// Send `message` on connection `session`.
struct Send {
  int session = 0;
  Json message;
};
/// Close connection `session` after what was sent before (a reject or a release).
struct Close {
  int session = 0;
  std::string reason;
};
/// Write `event` to the coordinator's events.jsonl and, when `line` is not empty, print
/// "pai-launch: coordinator: <line>" on its terminal.
struct Record {
  /// `kind` and `fields` are made from `event` by the journal's writer.
  explicit Record(journal::Event event, std::string line = {});
  journal::Event event;
  std::string line;
  std::string kind;  ///< the event's name
  Json fields;       ///< its fields as the journal writes them
};
/// The job is over: after the sends before it are flushed, the server stops.
struct Finish {
  int exit_code = 0;
  std::string reason;
  /// The plan's machines (hosts and spares) with no launcher connected at the end, in plan
  /// order: a launcher of theirs that comes late finds the job over (ended_coordinator.h).
  std::vector<std::string> absent;
};
using Action = std::variant<Send, Close, Record, Finish>;

/// The job's goodput account as the coordinator's launcher last read it from the log folder
/// (docs/goodput.md, "While the job runs").
struct GoodputReading {
  goodput::CauseSeconds causes;  ///< rank-seconds per cause, from the journals' start to then
  double ettr = 0;               ///< productive over all
  int journals = 0;              ///< the launchers' journals it counts (instances and spares)
  std::int64_t checkpoint_saves = 0;   ///< saves that stalled the ranks, ended
  double checkpoint_cost_seconds = 0;  ///< their mean wall time
};

/// The coordinator of one job.
class CoordinatorMachine {
 public:
  /// `plan` as loaded (placements from the compiler, or placeholders with
  /// settings.addresses_from_peers).
  CoordinatorMachine(Plan plan, CoordinatorSettings settings, Clock::time_point now);
  ~CoordinatorMachine();
  CoordinatorMachine(CoordinatorMachine&&) noexcept;

  /// An authenticated connection. Launchers must then send `join`.
  std::vector<Action> connected(int session, const Peer& peer, Clock::time_point now);
  /// A message received on an authenticated connection. A malformed message yields a Record
  /// and a Close for that session; it never throws.
  std::vector<Action> received(int session, const Json& message, Clock::time_point now);
  /// The connection closed or missed its heartbeats (`why` says which).
  std::vector<Action> disconnected(int session, const std::string& why, Clock::time_point now);
  /// Time passed: deadlines (rendezvous timeout, backoff, heartbeats due, job-wide hang).
  std::vector<Action> tick(Clock::time_point now);
  /// The coordinator's own node is cut off from the others (the server tells: every other
  /// launcher went silent at once): the job fails with `reason`, nothing restarts, no node is
  /// blamed as lost.
  std::vector<Action> cut_off(const std::string& reason, Clock::time_point now);
  /// The coordinator's launcher read the job's goodput account again (report/goodput_watch.h):
  /// `status` and the metrics show it from now on, and its saves refine the checkpoint
  /// interval the ranks are advised (`checkpoint-advice` to the running instances' nodes).
  std::vector<Action> goodput(const GoodputReading& reading);
  /// When tick() next has something to do.
  std::optional<Clock::time_point> next_deadline() const;
  bool finished() const;
  /// The job's Prometheus metrics as of `now`, in the text exposition format (metrics_text.h).
  std::string metrics(Clock::time_point now) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pai::launcher::coordinator
