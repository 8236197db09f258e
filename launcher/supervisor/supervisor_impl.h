// Supervisor::Impl, private to the supervisor's files: supervisor.cpp (construction, control
// sockets and telemetry rings, the public API, the run loop), supervisor_actions.cpp (carrying
// out policy actions), supervisor_events.cpp (signals, reaping, deadlines, the final sweep),
// supervisor_forensics.cpp (hang forensics before a stop), supervisor_warm.cpp (warm starts)
// and supervisor_drill.cpp (a drill's faults in the ranks).
#pragma once

#include <chrono>
#include <csignal>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "launcher/logs/event_log.h"
#include "launcher/os/descriptor_reserve.h"
#include "launcher/os/event_loop.h"
#include "launcher/os/signals.h"
#include "launcher/os/warm_interpreter.h"
#include "launcher/policy/hang_watch.h"
#include "launcher/policy/restart_policy.h"
#include "launcher/store/store_server.h"
#include "launcher/supervisor/containment.h"
#include "launcher/supervisor/control_socket.h"
#include "launcher/supervisor/failure_summary.h"
#include "launcher/supervisor/forensics.h"
#include "launcher/supervisor/gpu_load.h"
#include "launcher/supervisor/injected_fault.h"
#include "launcher/supervisor/rank_output.h"
#include "launcher/supervisor/rank_telemetry.h"
#include "launcher/supervisor/step_records.h"
#include "launcher/supervisor/supervisor.h"
#include "libpai/env_contract.h"
#include "libpai/plan.h"

namespace pai::launcher {

struct Supervisor::Impl {
  using Clock = std::chrono::steady_clock;

  struct Rank {
    int local_rank = 0;
    int global_rank = 0;
    int pid = 0;
    std::string log_path;
    std::string telemetry_path;          // its telemetry ring; empty = none
    std::string peers_path;              // its per-peer table; empty = none
    std::string error_path;              // its TORCHELASTIC_ERROR_FILE; empty = none
    std::unique_ptr<RankTelemetry> telemetry;  // follows the ring while the rank runs
    std::unique_ptr<RankOutput> output;  // null when it could not be created
    StepRecords steps;                   // its `steps` records
    bool warm = false;                   // forked from its slot's warm interpreter
    // Its CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER as it was started with them (the role's
    // env may set them): a drill's GPU burn numbers the GPUs as the rank does.
    EnvList gpu_env;
  };
  struct Instance {
    Instance(int p, const Placement& pl, const Role* r, HangWatch watch)
        : placement_index(p),
          role(r),
          name(pl.role + "-" + std::to_string(pl.index)),
          hang(watch) {}
    int placement_index = 0;  // into plan.placements, which a re-placement may rebuild
    const Role* role = nullptr;
    std::string name;
    std::string log_dir;
    std::vector<Rank> ranks;
    int pgid = 0;
    int live = 0;
    HangWatch hang;
    std::unique_ptr<ControlServer> control;
    std::string control_path;
    // Telemetry rings and per-peer tables created for its ranks, in any attempt: removed with
    // its control socket.
    std::vector<std::string> telemetry_files;
    bool telemetry_warned = false;  // a ring could not be created: said once
    bool peers_warned = false;      // a per-peer table could not be created: said once
    std::int64_t last_step = -1;
    StepRecords progress_steps;  // `steps` records of a `ctl progress` from no known rank
    int stop_signal = SIGTERM;
    bool stopping = false;  // a StopInstance is in progress: exits are expected
    std::optional<Clock::time_point> signal_at;  // after the stack-dump window
    std::optional<Clock::time_point> dumps_until;  // the stack-dump window of a stop
    // Checkpoint saves its ranks reported begun and not ended (checkpoint-begin).
    struct Saving {
      std::int64_t step = 0;
      int global_rank = -1;  // the rank whose process (or a descendant) began it; -1 unknown
      std::int64_t request = 0;  // the checkpoint-now request its ranks answered then; 0 none
    };
    std::vector<Saving> checkpoints_saving;
    // advised_request when this attempt started: a checkpoint-now older than its ranks is
    // answered 0 (they resumed from a checkpoint, or never trained to save one).
    std::int64_t request_at_start = 0;
    std::optional<Clock::time_point> kill_at;    // grace period over
    std::optional<Clock::time_point> restart_at;
    int attempt = 0;  // of the ranks running now (or last)
    // Hang forensics of a stop with stacks, until they are written.
    std::unique_ptr<Forensics> forensics;
    // Warm starts (faultTolerance.warmStart): an interpreter per local rank, started after
    // the instance's first ranks and kept through its restarts; null until then.
    std::vector<std::unique_ptr<WarmInterpreter>> warm;
    // The burn of a slow-gpu in one of its ranks (supervisor_drill.cpp); null when none runs.
    std::unique_ptr<GpuLoad> gpu_load;
    // A drill's fault in one of its ranks (`pai-launch drill`) and that rank's index; null when
    // none is going on.
    std::unique_ptr<InjectedFault> fault;
    int fault_rank = -1;
    // Whether its fault-injected record is written: a slow-gpu's once its burn runs, the
    // others' at once. A fault never recorded ends without a fault-reverted record.
    bool fault_recorded = false;
  };

  const Plan& plan;
  SupervisorOptions options;
  // A spare's warm interpreters (prewarm()), for the role named, until an instance takes them.
  std::vector<std::unique_ptr<WarmInterpreter>> standby_warm;
  std::string standby_role;
  std::string standby_log_dir;
  EventLog& events;
  SupervisorHooks* hooks;
  EventLoop loop;
  SignalFd signals;
  std::vector<Instance> instances;
  RestartPolicyMachine policy;
  std::unordered_map<int, std::pair<int, int>> by_pid;  // pid -> (instance, rank index)
  // From ranks' `retryable-error` requests: the job's patterns on this node, beyond the plan's.
  static constexpr std::size_t kMaxAddedRetryableErrors = 256;
  std::vector<std::string> added_retryable_errors;
  // What `checkpoint-advice` answers: the plan's interval until the coordinator refines it,
  // and the latest `checkpoint-now` request's number (docs/checkpoint-planning.md).
  std::int64_t advised_interval_seconds = plan.fault_tolerance.checkpoint_plan.interval_seconds;
  std::int64_t advised_request = 0;
  // The request whose saves the hooks hear of when they end (a swap's); 0 none.
  std::int64_t reported_request = 0;
  std::deque<PolicyEvent> pending;
  bool draining = false;
  bool done = false;
  int exit_code = 1;
  bool finishing = false;  // finish() was called: run() ends once nothing runs
  bool job_wide_hangs = false;
  int reap_known_only = 0;  // holders of set_reap_known_only(true)
  Terminal terminal;
  std::unique_ptr<Containment> containment;  // set once the control sockets are open
  DescriptorReserve descriptor_reserve{8};    // released when starting ranks hits EMFILE
  ForensicsTools forensics_tools;             // the stack tools on the launcher's PATH
  // The stack verdicts of the running attempts' hang forensics, by global rank: judged
  // together, as instances on this node may wait for one another.
  std::map<int, RankStackVerdict> stack_verdicts;
  // The culprit they name, for the failure summary; "" none.
  std::string stack_culprit;
  // The ranks' store (masterStore launcher), once the instance of rank 0 starts here; kept
  // until the launcher exits, through every restart.
  std::unique_ptr<store::StoreServer> store;

  Impl(const Plan& p, std::vector<const Placement*> placements, SupervisorOptions o, EventLog& e,
       SupervisorHooks* h);

  // Adds the instance of plan.placements[index] and opens its control socket.
  int add_instance(int index);

  const Placement& placement_of(const Instance& inst) const;

  // Also on an exception out of run(): nothing it started may outlive the supervisor.
  ~Impl();

  static std::vector<GovernedInstance> governed(const Plan& p,
                                                const std::vector<const Placement*>& placements);

  void say(const std::string& text);

  // ---- setup ----

  void open_control_socket(int i);

  ControlReply on_control(int i, const ControlRequest& request, int peer_pid);
  void on_checkpoint(int i, const CheckpointRequest& request, int peer_pid);
  // The global rank of instance i whose process is `pid` or an ancestor of it; -1 if none.
  int rank_of_process(int i, int pid) const;
  /// The checkpoint-now request the instance's ranks answer: advised_request, 0 when it is
  /// older than their attempt.
  std::int64_t asked_request(const Instance& inst) const;
  // Journals a `steps` record of the instance's rank (-1: unknown) when `step` is one.
  void record_step(const Instance& inst, int rank, std::optional<std::int64_t> step);
  // A rank's process exited: the saves it had begun will never end.
  void forget_saves_of(Instance& inst, int global_rank);
  // A stop waiting for checkpoints goes on once none is in flight.
  void end_checkpoint_wait(Instance& inst);

  // Creates the telemetry ring of `rank` for a new attempt in the control folder, and next to
  // it its per-peer table (`<ring>.peers`), and sets their paths in `rank`: "" for one that
  // was not (no control folder, no ring, or it could not be created: warned once per
  // instance).
  void create_telemetry_files_of(Instance& inst, Rank& rank);

  void remove_telemetry_files(Instance& inst);

  // Whether the rank's process was started and not reaped yet.
  bool running(const Rank& rank) const;

  // The summaries of the instance's running ranks for the window ending `now`, with their
  // TCP figures; the summarizers of ranks that ended are dropped.
  std::vector<RankTelemetrySummary> telemetry_of(Instance& inst, Clock::time_point now);
  // Ends a telemetry window of each running rank of `inst` (their processes in `processes`
  // when given, for the TCP figures) and feeds the steps to its hang watch: progress, and
  // step times for the adaptive interval.
  std::vector<RankTelemetrySummary> read_telemetry(Instance& inst, Clock::time_point now,
                                                   std::vector<std::vector<int>>* processes);
  // Without a node agent (whose heartbeats read telemetry once a second), the supervisor
  // reads it itself at this pace, for hang detection.
  static constexpr std::chrono::seconds kTelemetryPoll{1};
  Clock::time_point telemetry_poll_at{};

  // ---- actions ----

  // Events raised while actions run are queued, so each is decided after the previous
  // decision was fully carried out.
  template <class Event>
  void push(Event event);

  void drain();

  void execute(const PolicyAction& action);

  void start_instance(int i, int attempt);
  // Serves the ranks' store when the plan asks for it and rank 0 is of instance `i`; false
  // (the job finished, said) when it cannot.
  bool serve_store(const Instance& inst);
  // Journals and says what the store closed since the last call.
  void report_store_incidents();

  // The launcher's own environment, on which every rank's is laid.
  static EnvList launcher_environment();

  // ---- warm starts (supervisor_warm.cpp) ----

  // Whether the instance's role starts its ranks warm (faultTolerance.warmStart.roles).
  bool is_warm_role(const Instance& inst) const;
  // Forks `rank` from its slot's warm interpreter and returns its pid; nullopt when it must
  // start cold, which is said and journaled with the reason.
  std::optional<int> start_warm(Instance& inst, const Rank& rank, const SpawnRequest& request);
  // Starts a warm interpreter for each local rank of instance i that has none (or a failed
  // one that may do better), importing the preload with its rank's `requests[r]`'s env;
  // i = -1: the standby interpreters of a spare (prewarm()).
  void warm_up(int i, const std::vector<SpawnRequest>& requests);
  // The warm interpreters of instance i, or the standby ones for i = -1.
  std::vector<std::unique_ptr<WarmInterpreter>>& warm_slots(int i);
  // A warm interpreter of instance i's local rank r (i = -1: standby) said something.
  void on_warm_channel(int i, int r);
  // A spare on standby: the interpreters the first instance of the first warm role would get.
  void prewarm(const std::string& folder);
  // Instance i was just added: it takes the standby interpreters if they are of its role;
  // otherwise they are ended.
  void adopt_standby_warm(int i);
  // The loop reaped `pid`: true when it was a warm interpreter.
  bool warm_exited(int pid, int status);
  // Kills every warm interpreter (the launcher is ending).
  void end_warm_interpreters();

  void signal_group(const Instance& inst, int sig);

  void stop_instance(const StopInstance& a);

  void send_stop_signal(Instance& inst);

  void dump_stacks(Instance& inst);

  // ---- a drill's faults (supervisor_drill.cpp) ----

  // Why a drill's collective-hang cannot go into `rank` ("has no telemetry ring", "records no
  // collective ..."), as the end of a sentence that names it; "" when it can: its ring holds
  // a collective's record, so its writer wraps collectives and reads the hold.
  std::string why_no_collective_hold(const Rank& rank) const;
  // Sets the collective-hang's deadline in the ring at `path` (a default time_point clears
  // it); a deadline that cannot be set is said, a clearing that cannot is not (the ring went
  // with its rank's attempt).
  void hold_collectives(const std::string& path, Clock::time_point until);
  // Puts on (until `until`) or takes off (a default time_point) slow-gpu's burn on the GPU of
  // instance i's `local_rank` for `seconds` and a margin; throws when it cannot be started.
  void load_gpu(int i, int local_rank, int seconds, Clock::time_point until);
  // Instance i's burn said it burns: the slow-gpu is in place, recorded and said.
  void gpu_burning(int i);
  // The loop reaped `pid`: true when it was a slow-gpu's burn. One that ends before it burned
  // ends its fault unrecorded (said, with its output); one that ends before its seconds ends
  // the fault with why.
  bool gpu_load_exited(int pid, int status);
  // Ends the instance's fault (revert(); forget() when its rank is `gone`), with its
  // fault-reverted record; drops a fault already over.
  void end_fault(Instance& inst, const std::string& why, bool gone = false);
  // Journals that the instance's fault ended for `why`, unless it was never recorded.
  void record_fault_over(const Instance& inst, const std::string& why);

  // ---- hang forensics (supervisor_forensics.cpp) ----

  // Asks for stacks (dump_stacks) and starts collecting forensics of instance i's running
  // ranks until `until` (the stop signal).
  void start_forensics(int i, Clock::time_point now, Clock::time_point until);
  // Forensics of instance i is ready: its files are written, journaled, said and reported.
  void complete_forensics(int i);
  // Hands a tool's exit to the forensics in progress; true when it was one of theirs.
  bool forensics_child_exit(int pid, int status);
  // The rank's telemetry standing for its forensics file; nullopt without telemetry.
  std::optional<RankTelemetrySummary> telemetry_standing(Rank& rank, Clock::time_point now);

  // The root-cause summary of a failure of `instance` (-1 = none) at `local_rank`.
  FailureReport failure_report(const FailJob& f) const;

  void fail_job(const FailJob& f);

  // ---- events from the world ----

  void on_signals();

  // The next ended child, or 0. While sanity checks wait for their own children in another
  // thread, only the supervisor's own pids are waited for (its ranks, a drill's GPU burn).
  int next_exited(int* status);

  void reap();

  // ---- finishing on request (multi-node) ----

  void finish(int code, const std::string& reason);
  // The supervisor's own decision to end (no store, no descriptors): the hooks hear it first.
  void give_up(int code, const std::string& reason);

  void settle_finish();

  std::optional<Clock::time_point> next_deadline() const;

  // Ends the instance's drill fault, if any (a stopped rank is continued unless its process is
  // `gone`: reaped, its pid free), journaling why a bounded one ended early.

  void on_deadlines();

  // Kills and reaps whatever is still around: adopted grandchildren that left their group.
  void sweep();

  int run();
};

template <class Event>
void Supervisor::Impl::push(Event event) {
  pending.emplace_back(std::in_place_type<Event>, std::move(event));
  if (!draining) drain();
}

}  // namespace pai::launcher
