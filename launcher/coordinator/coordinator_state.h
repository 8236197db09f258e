// What the coordinator knows of its job, shared by the parts of CoordinatorMachine
// (rendezvous, checks and spares, the job's run, job control): the plan, the nodes and their
// connections, the instances, and the outbox of actions of the call being served.
// Internal to launcher/coordinator/.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "launcher/checks/check_result.h"
#include "launcher/coordinator/coordinator_machine.h"
#include "launcher/coordinator/job_metrics.h"
#include "launcher/net/protocol.h"
#include "libpai/plan.h"

namespace pai::launcher::coordinator {

/// rendezvous: nodes join and pass their checks; running: the policy governs the instances;
/// finished: Finish was emitted, nothing more happens.
enum class Phase { Rendezvous, Running, Finished };

/// How fit a node is, from its connection and its latest sanity checks.
enum class Health {
  Absent,    ///< no live launcher
  Checking,  ///< a run-checks request is unanswered
  Ready,     ///< joined; the latest checks all passed or were skipped
  Failed,    ///< the latest checks had a failure
};

/// A machine of the plan: a host (which runs an instance unless replaced) or a spare.
struct Node {
  std::string name;
  Host host;         ///< as the plan lists it; the peer's address with addresses_from_peers
  int session = -1;  ///< the live launcher's session, -1 when none
  Health health = Health::Absent;
  std::vector<checks::CheckResult> checks;  ///< the latest results
  std::string failed_checks;  ///< "burn" or "burn, nccl" when the latest round failed, else ""
  std::string check_summary;  ///< summary of the first failed check of that round
  int check_attempt = 0;      ///< check runs in the current round (the join's counts as 1)
  int instance = -1;          ///< the instance it holds, -1 for a spare
  std::string replaced_by;    ///< set when a spare took its instance
  std::string lost_reason;    ///< why its launcher was lost, while it is
  /// Why a diagnosis verdict excluded it (`diagnosis.action: isolate`): its instance goes to
  /// a spare at the next start, and it never takes one again.
  std::string excluded;
  std::string last_event;     ///< for `status`

  /// Why it is not ready: "no connection", "failed check burn", "failed check burn,
  /// re-running checks (attempt 2 of 3)", "running checks"; "ready" when it is.
  std::string problem(int max_attempts) const;
  /// "failed check burn", "failed checks burn, nccl".
  std::string failed_text() const;
};

/// Where an instance stands in the job's run, as the launchers reported it.
enum class Run { Waiting, Running, Stopping, Stopped, Succeeded, Failed };

/// The last heartbeat a launcher sent for one instance.
struct InstanceHeartbeat {
  std::int64_t idle_ms = 0;
  std::int64_t hang_interval_s = 0;  ///< <= 0: this instance never hangs
  Clock::time_point received;
  std::vector<net::RankUsage> ranks;  ///< for `status`; empty without cgroups on the node
  std::vector<net::RankTelemetry> telemetry;  ///< for `status`: steps and step rate
};

/// One role instance of the plan (index = node rank).
struct Instance {
  int node = -1;  ///< index into CoordinatorState::nodes of the node holding it
  Run run = Run::Waiting;
  int attempt = 0;             ///< of the current or pending start
  std::optional<Clock::time_point> started;  ///< when the current attempt was started
  bool start_pending = false;  ///< the policy started it; waiting for checks or the others
  bool policy_stop = false;    ///< the policy's StopInstance awaits `stopped`
  bool paused = false;         ///< stopped by `stop`, started again by `start`
  int resumed = 0;             ///< starts by `start`: attempts count on past the policy's
  bool failed_exit = false;    ///< a rank failed (not while stopping) in this attempt
  std::optional<Clock::time_point> backoff_until;
  std::optional<InstanceHeartbeat> heartbeat;
  std::string failure_summary;  ///< the latest `failure` text of its ranks
  /// Its node's GPUs as last sampled in this attempt (for `status` and the metrics)
  std::vector<net::GpuSample> gpus;
};

/// An authenticated connection.
struct PeerSession {
  Peer peer;
  int node = -1;  ///< launcher: the node it joined as; -1 before `join` and for control
  std::string gave_up;  ///< a launcher's `node-failed` reason, "" until it sent one
  bool launcher() const { return peer.kind == "launcher"; }
};

struct CoordinatorState {
  CoordinatorState(Plan loaded, CoordinatorSettings settings, Clock::time_point now);

  Plan plan;    ///< as loaded: what pai::place() starts from on every node
  Plan placed;  ///< the current placement (after spares replaced nodes)
  CoordinatorSettings settings;
  Clock::time_point started;
  Phase phase = Phase::Rendezvous;
  /// How the job ended, once phase is Finished.
  std::optional<net::Finish> ended;
  /// The instances' planned hosts in instance order, other hosts, spares; fixed at
  /// construction (node_index relies on it).
  std::vector<Node> nodes;
  std::unordered_map<std::string, int> node_index;  ///< name -> index into nodes
  std::vector<Instance> instances;
  std::map<int, PeerSession> sessions;
  std::vector<Action>* out = nullptr;  ///< actions of the public call being served
  /// Spares that took an instance since the machine last looked (log followers join them).
  std::vector<int> took_instance;
  /// Sessions close() closed since the machine last looked, with why (their relays end).
  std::vector<std::pair<int, std::string>> closed;
  /// With settings.takeover: per instance, the latest attempt a joining launcher said it ran
  /// (its `ranInstance`, `ranAttempt`): the restarts start past it.
  std::map<int, int> ran_attempts;
  /// What the metrics endpoint counts: fed by record() and the launchers' heartbeats.
  JobMetrics metrics;

  // ---- Lookups ----
  /// The node named `name`, or -1.
  int find_node(const std::string& name) const;
  /// "worker-1".
  std::string instance_name(int instance) const;
  /// The instance named "worker-1", or -1.
  int find_instance(const std::string& name) const;
  /// The first spare (a node holding no instance) that is connected and ready, or -1.
  int ready_spare() const;
  /// Whether a spare of the plan has not joined yet (or is checking) and could still become
  /// ready.
  bool spare_may_join() const;
  /// Instances whose node is not connected and ready.
  std::vector<int> unready_instances() const;
  /// Whether instance `i`'s node is connected and ready.
  bool instance_ready(int i) const;
  /// The host of every instance, in order (what `assign` sends and pai::place takes).
  std::vector<Host> instance_hosts() const;

  // ---- Actions ----
  /// Sends `message` to the launcher on `session` (its JSON is made here, once).
  void send(int session, const net::CoordinatorToNode& message);
  /// Sends `message` to the control client on `session`.
  void send(int session, const net::ControlReply& message);
  /// Sends to the node's live launcher; false when it has none.
  bool send_to_node(int node, const net::CoordinatorToNode& message);
  /// Journals `event` (and counts it in the metrics); prints `line` when not empty.
  void record(journal::Event event, std::string line = {});
  /// Closes a session and forgets it (the server owes no disconnected() for it); its node,
  /// if any, is no longer connected.
  void close(int session, const std::string& reason);
  /// Lets the node go: `finish` with exit code 0 and `reason`, then Close.
  void release(int node, const std::string& reason);
  /// Ends the job as cancelled by `who` (a user's stop, not a failure): `finish` with
  /// `cancelled` to every launcher, a `job-cancelled` record. Nothing is restarted after.
  void cancel_job(int exit_code, const std::string& who);
  /// Ends the job: `finish` to every launcher, Record `event` and `line`, Finish.
  void finish_job(int exit_code, const std::string& reason, journal::Event event,
                  const std::string& line);
  /// finish_job's and cancel_job's common end: `finish` to every launcher, the record, Finish.
  void finish_all(const net::Finish& finish, journal::Event event, const std::string& line);
};

/// "a, b, c and 5 more": at most `max` names.
std::string name_list(const std::vector<std::string>& names, std::size_t max = 8);

/// "5.0s", "0.5s": durations as the coordinator's records print them.
std::string seconds_text(std::chrono::milliseconds d);

/// How a job that ended with `finish` ended: "succeeded", "failed" or "cancelled".
const char* job_outcome(const net::Finish& finish);
/// "300s", "1.5s".
std::string duration_text(std::chrono::milliseconds duration);

}  // namespace pai::launcher::coordinator
