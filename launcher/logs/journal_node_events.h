// The events only a node's journal has (`<logs>/<instance>/events.jsonl`, written by its
// launcher: the supervisor, the node agent, `pai-launch run`). Included through
// journal_events.h, which says what an event struct holds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "launcher/logs/journal_values.h"

namespace pai::launcher::journal {

struct LauncherStarted {
  static constexpr char kName[] = "launcher-started";
  static constexpr Journals kIn = Journals::Node;
  static constexpr char kAbout[] =
      "The launcher of this journal started: the first event it writes.";
  std::string job = {};
  std::string node = {};
  std::string instance = {};   ///< "worker-0", or "spare-<node>" for a spare
  std::int64_t processes = 0;  ///< ranks of the instance
  std::int64_t pid = 0;        ///< the launcher's process id
  bool operator==(const LauncherStarted&) const = default;
  friend void fields(auto& v, Like<LauncherStarted> auto& m) {
    v("job", m.job);
    v("node", m.node);
    v("instance", m.instance, note("`spare-<node>` for a spare"));
    v("processes", m.processes);
    v("pid", m.pid, note("the launcher's"));
  }
};

struct Check {
  static constexpr char kName[] = "check";
  static constexpr Journals kIn = Journals::Node;
  static constexpr char kAbout[] = "One sanity check of this node ran (docs/checks.md).";
  std::string name = {};
  std::string status = {};  ///< "passed", "failed" or "skipped"
  std::string summary = {};
  std::optional<std::string> figure = {};  ///< its headline number; a one-node job's checks
  std::optional<double> seconds = {};      ///< how long it ran; a one-node job's checks
  bool operator==(const Check&) const = default;
  friend void fields(auto& v, Like<Check> auto& m) {
    v("name", m.name);
    v("status", m.status, note("`passed`, `failed` or `skipped`"));
    v("summary", m.summary);
    v("figure", m.figure, note("the headline number; written by a one-node job's launcher"));
    v("seconds", m.seconds, note("how long it ran; written by a one-node job's launcher"));
  }
};

struct ProcessStarted {
  static constexpr char kName[] = "process-started";
  static constexpr Journals kIn = Journals::Node;
  static constexpr char kAbout[] = "A rank's process was started.";
  std::string instance = {};
  std::int64_t rank = 0;  ///< global rank
  std::int64_t pid = 0;
  std::string log = {};  ///< its log file
  std::optional<bool> warm = {};  ///< roles with warm starts: forked from a warm interpreter
  bool operator==(const ProcessStarted&) const = default;
  friend void fields(auto& v, Like<ProcessStarted> auto& m) {
    v("instance", m.instance);
    v("rank", m.rank, note("global rank"));
    v("pid", m.pid);
    v("log", m.log);
    v("warm", m.warm,
      note("roles with warm starts (faultTolerance.warmStart): true when the rank was forked "
           "from a warm interpreter, false when Python was started afresh"));
  }
};

struct WarmStartCold {
  static constexpr char kName[] = "warm-start-cold";
  static constexpr Journals kIn = Journals::Node;
  static constexpr char kAbout[] =
      "A rank of a role with warm starts was started cold (a fresh Python), and why: its warm "
      "interpreter was not ready, failed its preload, or saw a preloaded file change.";
  std::string instance = {};
  std::int64_t rank = 0;
  std::string reason = {};
  bool operator==(const WarmStartCold&) const = default;
  friend void fields(auto& v, Like<WarmStartCold> auto& m) {
    v("instance", m.instance);
    v("rank", m.rank);
    v("reason", m.reason);
  }
};

struct FaultReverted {
  static constexpr char kName[] = "fault-reverted";
  static constexpr Journals kIn = Journals::Node;
  static constexpr char kAbout[] =
      "A drill's bounded fault (rank-hang, slow-rank, collective-hang, slow-gpu, slow-link, "
      "dropped-link, disk-full) is over: its seconds passed, or the rank exited or is being "
      "stopped first (a fault of the node: the job ended for the node first), or a slow-gpu's "
      "burn ended by itself.";
  std::string fault = {};
  std::string instance = {};
  std::int64_t rank = 0;
  std::string why = {};
  bool operator==(const FaultReverted&) const = default;
  friend void fields(auto& v, Like<FaultReverted> auto& m) {
    v("fault", m.fault);
    v("instance", m.instance);
    v("rank", m.rank, note("the global rank; -1 for a fault of the node (link, disk)"));
    v("why", m.why,
      note("`its seconds passed`, `the rank exited`, `the instance is stopping`, `the job ended "
           "for this node`, `another fault replaces it`, `the burn on GPU N ended before its "
           "seconds: ...`"));
  }
};

struct SpawnFailed {
  static constexpr char kName[] = "spawn-failed";
  static constexpr Journals kIn = Journals::Node;
  static constexpr char kAbout[] = "A rank's process could not be started.";
  std::string instance = {};
  std::int64_t rank = 0;
  std::string error = {};
  bool operator==(const SpawnFailed&) const = default;
  friend void fields(auto& v, Like<SpawnFailed> auto& m) {
    v("instance", m.instance);
    v("rank", m.rank);
    v("error", m.error);
  }
};

struct Exit {
  static constexpr char kName[] = "exit";
  static constexpr Journals kIn = Journals::Node;
  static constexpr char kAbout[] = "A rank's process exited, and how the launcher classified it.";
  std::string instance = {};
  std::int64_t rank = 0;
  std::int64_t pid = 0;
  std::string status = {};                             ///< "exit code 1", "signal 9 (SIGKILL)"
  std::int64_t exit_code = 0;                          ///< 128+N for signal N
  std::optional<double> cpu_seconds = {};              ///< with cgroups
  std::optional<std::int64_t> memory_peak_bytes = {};  ///< with cgroups' memory controller
  bool retryable = false;
  std::string classification = {};
  std::string matched_line = {};
  std::optional<std::int64_t> log_dropped_bytes = {};  ///< rotated away (logs.maxBytes)
  std::optional<std::string> log_error = {};           ///< why the log file could not be created
  std::optional<std::int64_t> log_unwritten_bytes = {};  ///< the log file system stalled
  bool operator==(const Exit&) const = default;
  friend void fields(auto& v, Like<Exit> auto& m) {
    v("instance", m.instance);
    v("rank", m.rank);
    v("pid", m.pid);
    v("status", m.status, note("`exit code 1`, `signal 9 (SIGKILL)`"));
    v("exitCode", m.exit_code, note("128+N for signal N"));
    v("cpuSeconds", m.cpu_seconds, note("with cgroups"));
    v("memoryPeakBytes", m.memory_peak_bytes, note("with cgroups' memory controller"));
    v("retryable", m.retryable);
    v("classification", m.classification);
    v("matchedLine", m.matched_line);
    v("logDroppedBytes", m.log_dropped_bytes,
      note("bytes of its log dropped to keep it within logs.maxBytes; absent when none"));
    v("logError", m.log_error,
      note("why its log file could not be created (a read-only or full file system): its "
           "output went to the terminal only"));
    v("logUnwrittenBytes", m.log_unwritten_bytes,
      note("bytes of its output the log file system did not take in time (32 MiB of the "
           "launcher's output waiting), dropped from its log where a marker says so; absent "
           "when none"));
  }
};

struct StackDump {
  static constexpr char kName[] = "stack-dump";
  static constexpr Journals kIn = Journals::Node;
  static constexpr char kAbout[] =
      "The ranks of a hung instance were asked for their stacks: by signals, or by the plan's "
      "hang.dumpCommand.";
  std::string instance = {};
  std::optional<std::string> method = {};    ///< "SIGQUIT, SIGUSR1"
  std::optional<std::int64_t> sigquit = {};  ///< processes that catch SIGQUIT
  std::optional<std::int64_t> sigusr1 = {};  ///< processes that catch SIGUSR1
  std::optional<std::string> command = {};   ///< the dump command run instead
  bool operator==(const StackDump&) const = default;
  friend void fields(auto& v, Like<StackDump> auto& m) {
    v("instance", m.instance);
    v("method", m.method, note("`SIGQUIT, SIGUSR1`; without a dump command"));
    v("sigquit", m.sigquit, note("how many processes catch SIGQUIT (only they are sent it)"));
    v("sigusr1", m.sigusr1, note("how many processes catch SIGUSR1 (only they are sent it)"));
    v("command", m.command, note("the dump command run instead of the signals"));
  }
};

struct Signal {
  static constexpr char kName[] = "signal";
  static constexpr Journals kIn = Journals::Node;
  static constexpr char kAbout[] = "The launcher received a signal that stops the job.";
  int signal = 0;
  bool operator==(const Signal&) const = default;
  friend void fields(auto& v, Like<Signal> auto& m) { v("signal", m.signal); }
};

struct Notify {
  static constexpr char kName[] = "notify";
  static constexpr Journals kIn = Journals::Node;
  static constexpr char kAbout[] = "A rank's message (`pai-launch ctl notify`, the SDK).";
  std::string instance = {};
  std::string message = {};
  bool operator==(const Notify&) const = default;
  friend void fields(auto& v, Like<Notify> auto& m) {
    v("instance", m.instance);
    v("message", m.message);
  }
};

struct HangInterval {
  static constexpr char kName[] = "hang-interval";
  static constexpr Journals kIn = Journals::Node;
  static constexpr char kAbout[] = "A rank set its instance's hang interval (`ctl hang-interval`).";
  std::string instance = {};
  std::int64_t seconds = 0;  ///< the interval now in force
  bool is_default = false;   ///< the request restored the plan's
  bool off = false;          ///< hang detection is off for the instance
  bool operator==(const HangInterval&) const = default;
  friend void fields(auto& v, Like<HangInterval> auto& m) {
    v("instance", m.instance);
    v("seconds", m.seconds, note("the interval now in force"));
    v("default", m.is_default, note("the request restored the plan's"));
    v("off", m.off);
  }
};

struct ExitHangInterval {
  static constexpr char kName[] = "exit-hang-interval";
  static constexpr Journals kIn = Journals::Node;
  static constexpr char kAbout[] =
      "A rank set how long the others may run on after one exits (`ctl exit-hang-interval`).";
  std::string instance = {};
  std::int64_t seconds = 0;
  bool is_default = false;
  bool operator==(const ExitHangInterval&) const = default;
  friend void fields(auto& v, Like<ExitHangInterval> auto& m) {
    v("instance", m.instance);
    v("seconds", m.seconds);
    v("default", m.is_default);
  }
};

struct RetryableError {
  static constexpr char kName[] = "retryable-error";
  static constexpr Journals kIn = Journals::Node;
  static constexpr char kAbout[] =
      "A rank added a retryable error pattern (`ctl retryable-error`).";
  std::string instance = {};
  std::string text = {};
  bool operator==(const RetryableError&) const = default;
  friend void fields(auto& v, Like<RetryableError> auto& m) {
    v("instance", m.instance);
    v("text", m.text);
  }
};

struct Steps {
  static constexpr char kName[] = "steps";
  static constexpr Journals kIn = Journals::Node;
  static constexpr char kAbout[] =
      "Where a rank's training stood: the step its telemetry or `ctl progress` reported; its first "
      "step, then at most one record every 10 s while the step moves, and its last one.";
  std::string instance = {};
  std::int64_t step = 0;
  std::int64_t rank = -1;  ///< the rank; -1: unknown (a `ctl progress` from another process)
  bool operator==(const Steps&) const = default;
  friend void fields(auto& v, Like<Steps> auto& m) {
    v("instance", m.instance);
    v("step", m.step);
    v("rank", m.rank, field::present_if(m.rank >= 0),
      note("the global rank; absent when the step came from a process pai does not know"));
  }
};

struct CheckpointStarted {
  static constexpr char kName[] = "checkpoint-started";
  static constexpr Journals kIn = Journals::Node;
  static constexpr char kAbout[] = "A rank began saving the checkpoint of a step.";
  std::string instance = {};
  std::int64_t step = 0;
  std::int64_t rank = -1;  ///< the rank that began it; -1: unknown, not written
  bool operator==(const CheckpointStarted&) const = default;
  friend void fields(auto& v, Like<CheckpointStarted> auto& m) {
    v("instance", m.instance);
    v("step", m.step);
    v("rank", m.rank, field::present_if(m.rank >= 0),
      note("the rank that began it (its process or a descendant asked); absent when unknown"));
  }
};

struct CheckpointResumed {
  static constexpr char kName[] = "checkpoint-resumed";
  static constexpr Journals kIn = Journals::Node;
  static constexpr char kAbout[] =
      "A rank's save no longer holds training up: the rest is written in the background.";
  std::string instance = {};
  std::int64_t step = 0;
  std::int64_t rank = -1;  ///< the rank that said so; -1: unknown, not written
  bool operator==(const CheckpointResumed&) const = default;
  friend void fields(auto& v, Like<CheckpointResumed> auto& m) {
    v("instance", m.instance);
    v("step", m.step);
    v("rank", m.rank, field::present_if(m.rank >= 0),
      note("the rank that said so (its process or a descendant); absent when unknown"));
  }
};

struct Checkpoint {
  static constexpr char kName[] = "checkpoint";
  static constexpr Journals kIn = Journals::Node;
  static constexpr char kAbout[] = "A checkpoint is complete.";
  std::string instance = {};
  std::int64_t step = 0;
  std::string path = {};
  bool operator==(const Checkpoint&) const = default;
  friend void fields(auto& v, Like<Checkpoint> auto& m) {
    v("instance", m.instance);
    v("step", m.step);
    v("path", m.path);
  }
};

struct CheckpointFailed {
  static constexpr char kName[] = "checkpoint-failed";
  static constexpr Journals kIn = Journals::Node;
  static constexpr char kAbout[] = "A checkpoint could not be saved.";
  std::string instance = {};
  std::int64_t step = 0;
  std::string reason = {};
  bool operator==(const CheckpointFailed&) const = default;
  friend void fields(auto& v, Like<CheckpointFailed> auto& m) {
    v("instance", m.instance);
    v("step", m.step);
    v("reason", m.reason);
  }
};

struct CheckpointAbandoned {
  static constexpr char kName[] = "checkpoint-abandoned";
  static constexpr Journals kIn = Journals::Node;
  static constexpr char kAbout[] =
      "A rank exited with a save in flight; no stop waits for that save.";
  std::string instance = {};
  std::int64_t step = 0;
  std::int64_t rank = 0;
  bool operator==(const CheckpointAbandoned&) const = default;
  friend void fields(auto& v, Like<CheckpointAbandoned> auto& m) {
    v("instance", m.instance);
    v("step", m.step);
    v("rank", m.rank);
  }
};

struct CheckpointWait {
  static constexpr char kName[] = "checkpoint-wait";
  static constexpr Journals kIn = Journals::Node;
  static constexpr char kAbout[] = "A stop waits for a checkpoint being saved.";
  std::string instance = {};
  std::int64_t step = 0;
  std::int64_t seconds = 0;  ///< at most
  bool operator==(const CheckpointWait&) const = default;
  friend void fields(auto& v, Like<CheckpointWait> auto& m) {
    v("instance", m.instance);
    v("step", m.step);
    v("seconds", m.seconds, note("the longest it waits"));
  }
};

struct Finish {
  static constexpr char kName[] = "finish";
  static constexpr Journals kIn = Journals::Node;
  static constexpr char kAbout[] =
      "The launcher ends its instances with this exit code (the coordinator's word, a lost "
      "coordinator, a signal).";
  int exit_code = 0;
  std::string reason = {};
  bool operator==(const Finish&) const = default;
  friend void fields(auto& v, Like<Finish> auto& m) {
    v("exitCode", m.exit_code);
    v("reason", m.reason);
  }
};

struct NodeStopping {
  static constexpr char kName[] = "node-stopping";
  static constexpr Journals kIn = Journals::Node;
  static constexpr char kAbout[] =
      "A signal stopped the launcher while it waited for the coordinator.";
  std::string reason = {};
  std::string coordinator = {};  ///< address:port
  bool operator==(const NodeStopping&) const = default;
  friend void fields(auto& v, Like<NodeStopping> auto& m) {
    v("reason", m.reason);
    v("coordinator", m.coordinator, note("address:port"));
  }
};

struct CoordinatorUnreachable {
  static constexpr char kName[] = "coordinator-unreachable";
  static constexpr Journals kIn = Journals::Node;
  static constexpr char kAbout[] = "The launcher could not join the coordinator in time.";
  std::string coordinator = {};
  std::string error = {};
  bool operator==(const CoordinatorUnreachable&) const = default;
  friend void fields(auto& v, Like<CoordinatorUnreachable> auto& m) {
    v("coordinator", m.coordinator);
    v("error", m.error);
  }
};

struct Joined {
  static constexpr char kName[] = "joined";
  static constexpr Journals kIn = Journals::Node;
  static constexpr char kAbout[] = "The launcher connected to its coordinator.";
  std::string coordinator = {};
  bool operator==(const Joined&) const = default;
  friend void fields(auto& v, Like<Joined> auto& m) { v("coordinator", m.coordinator); }
};

struct GpuSamplingOff {
  static constexpr char kName[] = "gpu-sampling-off";
  static constexpr Journals kIn = Journals::Node;
  static constexpr char kAbout[] = "The node's GPU utilization cannot be sampled (no NVML).";
  std::string node = {};
  std::string reason = {};
  bool operator==(const GpuSamplingOff&) const = default;
  friend void fields(auto& v, Like<GpuSamplingOff> auto& m) {
    v("node", m.node);
    v("reason", m.reason);
  }
};

struct CoordinatorLost {
  static constexpr char kName[] = "coordinator-lost";
  static constexpr Journals kIn = Journals::Node;
  static constexpr char kAbout[] = "The connection to the coordinator was lost; the node stops.";
  std::string reason = {};
  bool operator==(const CoordinatorLost&) const = default;
  friend void fields(auto& v, Like<CoordinatorLost> auto& m) { v("reason", m.reason); }
};

struct CoordinatorFound {
  static constexpr char kName[] = "coordinator-found";
  static constexpr Journals kIn = Journals::Node;
  static constexpr char kAbout[] =
      "With `coordinator.ha`: etcd named the coordinator this launcher joins, at the start or "
      "after it lost one.";
  std::string node = {};
  std::string coordinator = {};  ///< ADDRESS:PORT
  std::int64_t revision = 0;
  bool operator==(const CoordinatorFound&) const = default;
  friend void fields(auto& v, Like<CoordinatorFound> auto& m) {
    v("node", m.node, note("the launcher's node that coordinates"));
    v("coordinator", m.coordinator, note("`ADDRESS:PORT`"));
    v("revision", m.revision, note("the leader's election key's etcd create revision"));
  }
};

struct Standby {
  static constexpr char kName[] = "standby";
  static constexpr Journals kIn = Journals::Node;
  static constexpr char kAbout[] = "This node is a spare and waits to be needed.";
  std::string node = {};
  bool operator==(const Standby&) const = default;
  friend void fields(auto& v, Like<Standby> auto& m) { v("node", m.node); }
};

struct Assigned {
  static constexpr char kName[] = "assigned";
  static constexpr Journals kIn = Journals::Node;
  static constexpr char kAbout[] = "The coordinator assigned this node its instance.";
  std::string instance = {};
  std::int64_t node_rank = 0;
  std::int64_t first_rank = 0;
  std::string master = {};  ///< MASTER_ADDR:MASTER_PORT
  bool operator==(const Assigned&) const = default;
  friend void fields(auto& v, Like<Assigned> auto& m) {
    v("instance", m.instance);
    v("nodeRank", m.node_rank);
    v("firstRank", m.first_rank);
    v("master", m.master, note("MASTER_ADDR:MASTER_PORT"));
  }
};

struct StoreServing {
  static constexpr char kName[] = "store-serving";
  static constexpr Journals kIn = Journals::Node;
  static constexpr char kAbout[] =
      "This launcher, next to rank 0, serves the ranks' store (`masterStore: launcher`) from now "
      "until it exits.";
  std::string address = {};  ///< MASTER_ADDR:MASTER_PORT
  bool operator==(const StoreServing&) const = default;
  friend void fields(auto& v, Like<StoreServing> auto& m) {
    v("address", m.address, note("MASTER_ADDR:MASTER_PORT"));
  }
};

struct StoreClientClosed {
  static constexpr char kName[] = "store-client-closed";
  static constexpr Journals kIn = Journals::Node;
  static constexpr char kAbout[] =
      "The ranks' store closed a client's connection for what it sent (a protocol or a limit "
      "broken) or refused it.";
  std::string client = {};  ///< ADDRESS:PORT; "" for a count of clients not listed
  std::string error = {};
  bool operator==(const StoreClientClosed&) const = default;
  friend void fields(auto& v, Like<StoreClientClosed> auto& m) {
    v("client", m.client);
    v("error", m.error);
  }
};

struct FabricResult {
  static constexpr char kName[] = "fabric-result";
  static constexpr Journals kIn = Journals::Node;
  static constexpr char kAbout[] = "This node measured a pair of a fabric check (or could not).";
  int round = 0;
  int pair = 0;
  std::string error = {};
  std::int64_t out_kbps = 0;  ///< connector to listener
  std::int64_t in_kbps = 0;   ///< listener to connector
  std::int64_t latency_ns = 0;
  bool operator==(const FabricResult&) const = default;
  friend void fields(auto& v, Like<FabricResult> auto& m) {
    v("round", m.round);
    v("pair", m.pair);
    v("error", m.error);
    v("outKbps", m.out_kbps, note("connector to listener"));
    v("inKbps", m.in_kbps, note("listener to connector"));
    v("latencyNs", m.latency_ns);
  }
};

struct NicVerdict {
  static constexpr char kName[] = "nic-verdict";
  static constexpr Journals kIn = Journals::Node;
  static constexpr char kAbout[] =
      "The coordinator's critical NIC verdict about one of this node's ports; with "
      "sanityCheck.history it is recorded there as a failed check.";
  std::string port = {};
  std::string problem = {};
  std::string evidence = {};
  std::string history = {};  ///< the history file it was recorded in; "" when none
  bool operator==(const NicVerdict&) const = default;
  friend void fields(auto& v, Like<NicVerdict> auto& m) {
    v("port", m.port);
    v("problem", m.problem);
    v("evidence", m.evidence);
    v("history", m.history, note("the check history file; empty without sanityCheck.history"));
  }
};

}  // namespace pai::launcher::journal
