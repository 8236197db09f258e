// The events only the coordinator's journal has (`<logs>/coordinator/events.jsonl`): the
// rendezvous and the nodes' checks, the fabric check, nodes lost, replaced and excluded, the
// job's instances as their launchers report them, diagnosis verdicts, job control, and the
// server's connections. Included through journal_events.h.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "launcher/logs/journal_values.h"

namespace pai::launcher::journal {

// ---- Rendezvous and checks ----

struct Join {
  static constexpr char kName[] = "join";
  static constexpr Journals kIn = Journals::Coordinator;
  static constexpr char kAbout[] = "A node's launcher joined, with the results of its checks.";
  std::string node = {};
  std::string address = {};
  std::int64_t pid = 0;  ///< the launcher's
  bool ready = false;    ///< its checks passed
  RawJson checks = {};   ///< its check results, as the protocol's `join` carries them
  bool operator==(const Join&) const = default;
  friend void fields(auto& v, Like<Join> auto& m) {
    v("node", m.node);
    v("address", m.address);
    v("pid", m.pid, note("the launcher's"));
    v("ready", m.ready, note("its checks passed"));
    v("checks", m.checks, note("its check results as docs/checks.md describes them"));
  }
};

struct Checks {
  static constexpr char kName[] = "checks";
  static constexpr Journals kIn = Journals::Coordinator;
  static constexpr char kAbout[] = "A node ran its checks again (before a restart, or a retry).";
  std::string node = {};
  int attempt = 0;  ///< runs in this round of checks
  bool ready = false;
  RawJson checks = {};
  bool operator==(const Checks&) const = default;
  friend void fields(auto& v, Like<Checks> auto& m) {
    v("node", m.node);
    v("attempt", m.attempt, note("runs in this round of checks"));
    v("ready", m.ready);
    v("checks", m.checks, note("its check results as docs/checks.md describes them"));
  }
};

struct FabricLint {
  static constexpr char kName[] = "fabric-lint";
  static constexpr Journals kIn = Journals::Coordinator;
  static constexpr char kAbout[] =
      "The nodes' fingerprints compared at the rendezvous: nodes whose facts differ from the "
      "majority's, settings that contradict the plan, facts the nodes disagree on.";
  std::vector<LintOutlier> outliers = {};
  std::vector<LintContradiction> contradictions = {};
  std::vector<LintDisagreement> disagreements = {};
  std::vector<std::string> excluded = {};  ///< nodes taken out (sanityCheck.lint: exclude)
  bool operator==(const FabricLint&) const = default;
  friend void fields(auto& v, Like<FabricLint> auto& m) {
    v("outliers", m.outliers);
    v("contradictions", m.contradictions);
    v("disagreements", m.disagreements);
    v("excluded", m.excluded, note("the nodes `sanityCheck.lint: exclude` takes out"));
  }
};

struct FabricDrift {
  static constexpr char kName[] = "fabric-drift";
  static constexpr Journals kIn = Journals::Coordinator;
  static constexpr char kAbout[] =
      "At a start after the first: the facts that changed on each node since the attempt that "
      "last ran.";
  int attempt = 0;  ///< the attempt starting
  int since = 0;    ///< the attempt the facts are compared with
  std::vector<FactChanged> changes = {};
  bool operator==(const FabricDrift&) const = default;
  friend void fields(auto& v, Like<FabricDrift> auto& m) {
    v("attempt", m.attempt);
    v("since", m.since);
    v("changes", m.changes);
  }
};

struct Nic {
  static constexpr char kName[] = "nic";
  static constexpr Journals kIn = Journals::Coordinator;
  static constexpr char kAbout[] =
      "A NIC verdict: a node's RDMA port down, flapping, with rising error counters, in a "
      "congestion storm or moving far fewer bytes than the others (launcher/policy/"
      "nic_verdict.h).";
  std::string node = {};
  std::string port = {};     ///< "mlx5_0/1"
  std::string netdev = {};   ///< "eth2"; "" none
  std::string problem = {};  ///< down, flapping, errors, congestion, slow
  std::string counter = {};  ///< the counter that shows it; "state" for down
  double rate = 0;           ///< its rate per second (bytes per second for slow)
  std::string evidence = {};
  std::string severity = {};  ///< "critical" or "warning"
  bool operator==(const Nic&) const = default;
  friend void fields(auto& v, Like<Nic> auto& m) {
    v("node", m.node);
    v("port", m.port);
    v("netdev", m.netdev);
    v("problem", m.problem, note("`down`, `flapping`, `errors`, `congestion` or `slow`"));
    v("counter", m.counter, note("`hw_counters/local_ack_timeout_err`...; `state` for down"));
    v("rate", m.rate, note("per second; bytes per second for `slow`"));
    v("evidence", m.evidence);
    v("severity", m.severity, note("`critical` or `warning`"));
  }
};

struct Progress {
  static constexpr char kName[] = "progress";
  static constexpr Journals kIn = Journals::Coordinator;
  static constexpr char kAbout[] =
      "Where the rendezvous stands: the instances ready, who it waits for.";
  std::int64_t ready = 0;
  std::int64_t total = 0;
  std::vector<WaitingNode> waiting = {};  ///< the first few nodes waited for
  std::int64_t waiting_more = 0;          ///< nodes waited for beyond those
  bool operator==(const Progress&) const = default;
  friend void fields(auto& v, Like<Progress> auto& m) {
    v("ready", m.ready);
    v("total", m.total);
    v("waiting", m.waiting, note("the first few nodes waited for"));
    v("waitingMore", m.waiting_more, field::present_if(m.waiting_more > 0),
      note("how many more are waited for"));
  }
};

struct PeerRejected {
  static constexpr char kName[] = "peer-rejected";
  static constexpr Journals kIn = Journals::Coordinator;
  static constexpr char kAbout[] =
      "An authenticated peer was refused (an unknown node, a second launcher, another plan).";
  std::string peer = {};  ///< "launcher" or "control"
  std::string node = {};
  std::string address = {};
  std::string reason = {};
  bool operator==(const PeerRejected&) const = default;
  friend void fields(auto& v, Like<PeerRejected> auto& m) {
    v("peer", m.peer, note("`launcher` or `control`"));
    v("node", m.node);
    v("address", m.address);
    v("reason", m.reason);
  }
};

struct Assignment {
  static constexpr char kName[] = "assignment";
  static constexpr Journals kIn = Journals::Coordinator;
  static constexpr char kAbout[] =
      "Every instance's node, as assigned to the launchers, and the master.";
  std::vector<AssignedInstance> instances = {};
  Master master = {};
  bool operator==(const Assignment&) const = default;
  friend void fields(auto& v, Like<Assignment> auto& m) {
    v("instances", m.instances);
    v("master", m.master);
  }
};

// ---- Nodes ----

struct Disconnected {
  static constexpr char kName[] = "disconnected";
  static constexpr Journals kIn = Journals::Coordinator;
  static constexpr char kAbout[] = "A node's launcher went away during the rendezvous.";
  std::string node = {};
  std::string reason = {};
  bool operator==(const Disconnected&) const = default;
  friend void fields(auto& v, Like<Disconnected> auto& m) {
    v("node", m.node);
    v("reason", m.reason);
  }
};

struct NodeLost {
  static constexpr char kName[] = "node-lost";
  static constexpr Journals kIn = Journals::Coordinator;
  static constexpr char kAbout[] = "The launcher of a node holding an instance was lost.";
  std::string node = {};
  std::string instance = {};
  std::string reason = {};
  bool operator==(const NodeLost&) const = default;
  friend void fields(auto& v, Like<NodeLost> auto& m) {
    v("node", m.node);
    v("instance", m.instance);
    v("reason", m.reason);
  }
};

struct SpareLost {
  static constexpr char kName[] = "spare-lost";
  static constexpr Journals kIn = Journals::Coordinator;
  static constexpr char kAbout[] = "The launcher of a spare was lost.";
  std::string node = {};
  std::string reason = {};
  bool operator==(const SpareLost&) const = default;
  friend void fields(auto& v, Like<SpareLost> auto& m) {
    v("node", m.node);
    v("reason", m.reason);
  }
};

struct NodeReplaced {
  static constexpr char kName[] = "node-replaced";
  static constexpr Journals kIn = Journals::Coordinator;
  static constexpr char kAbout[] = "A spare takes a node's instance.";
  std::string instance = {};
  std::string node = {};
  std::string spare = {};
  std::string reason = {};
  bool operator==(const NodeReplaced&) const = default;
  friend void fields(auto& v, Like<NodeReplaced> auto& m) {
    v("instance", m.instance);
    v("node", m.node);
    v("spare", m.spare);
    v("reason", m.reason);
  }
};

struct NodeExcluded {
  static constexpr char kName[] = "node-excluded";
  static constexpr Journals kIn = Journals::Coordinator;
  static constexpr char kAbout[] =
      "A node is excluded from the job: by the fabric check or a coordinator taking the job "
      "over (`reason`), or to isolate a diagnosis verdict (`class`).";
  std::string node = {};
  std::optional<std::string> instance = {};  ///< a verdict's: the instance it held
  std::optional<std::string> reason = {};    ///< the fabric check's or a takeover's
  std::optional<std::string> cls = {};       ///< a verdict's class
  bool operator==(const NodeExcluded&) const = default;
  friend void fields(auto& v, Like<NodeExcluded> auto& m) {
    v("node", m.node);
    v("instance", m.instance, note("a diagnosis isolation's: the instance it held"));
    v("reason", m.reason, note("the fabric check's or a takeover's"));
    v("class", m.cls, note("a diagnosis isolation's: the verdict's class"));
  }
};

struct WaitingForSpare {
  static constexpr char kName[] = "waiting-for-spare";
  static constexpr Journals kIn = Journals::Coordinator;
  static constexpr char kAbout[] =
      "A node failed its checks and a spare that may still join is waited for.";
  std::optional<std::string> node = {};  ///< the failed node; none after the fabric check
  std::string checks = {};               ///< the checks it failed, "fabric" for the fabric check
  bool operator==(const WaitingForSpare&) const = default;
  friend void fields(auto& v, Like<WaitingForSpare> auto& m) {
    v("node", m.node, note("the node; absent after the fabric check"));
    v("checks", m.checks, note("the checks it failed: `burn, nccl`, or `fabric`"));
  }
};

// ---- The fabric check ----

struct FabricSkipped {
  static constexpr char kName[] = "fabric-skipped";
  static constexpr Journals kIn = Journals::Coordinator;
  static constexpr char kAbout[] = "The fabric check was skipped: fewer than 2 nodes to pair.";
  std::int64_t nodes = 0;
  bool operator==(const FabricSkipped&) const = default;
  friend void fields(auto& v, Like<FabricSkipped> auto& m) { v("nodes", m.nodes); }
};

struct FabricRound {
  static constexpr char kName[] = "fabric-round";
  static constexpr Journals kIn = Journals::Coordinator;
  static constexpr char kAbout[] = "A round of the fabric check begins.";
  int round = 0;
  std::vector<std::vector<std::string>> pairs = {};  ///< [first, second] each
  bool all_nodes = false;  ///< every node at once, across the halves of the plan
  bool operator==(const FabricRound&) const = default;
  friend void fields(auto& v, Like<FabricRound> auto& m) {
    v("round", m.round);
    v("pairs", m.pairs, note("the pairs it measures, each as [first, second]"));
    v("allNodes", m.all_nodes, note("every node at once, across the halves of the plan"));
  }
};

/// One pair of a fabric check: its figures, or why it has none. The event `fabric-pair` and
/// the rows of `fabric-verdict` and `fabric-congestion`.
struct FabricPair {
  static constexpr char kName[] = "fabric-pair";
  static constexpr Journals kIn = Journals::Coordinator;
  static constexpr char kAbout[] =
      "A pair of nodes of a fabric check measured (or failed to): its bandwidth and latency, or "
      "the error.";
  std::int64_t round = 0;
  std::optional<std::int64_t> pair = {};  ///< its number in the round; not for a late pair
  std::string first = {};                 ///< the listening node
  std::string second = {};                ///< the connecting node, which measures
  double gbps = 0;                        ///< the slower direction, Gbit/s
  double latency_us = 0;
  std::optional<double> bus_gbs = {};        ///< NCCL's bus bandwidth, GB/s, when the pair ran NCCL
  std::optional<double> expected_gbps = {};  ///< rows of fabric-congestion: its own pair's figure
  std::string error = {};                    ///< why there are no figures; "" when there are
  bool operator==(const FabricPair&) const = default;
  friend void fields(auto& v, Like<FabricPair> auto& m) {
    v("round", m.round);
    v("pair", m.pair, note("the pair's number in its round; absent for a pair that was late"));
    v("first", m.first);
    v("second", m.second);
    v("gbps", m.gbps, field::present_if(m.error.empty()), note("the slower direction"));
    v("latencyUs", m.latency_us, field::present_if(m.error.empty()));
    v("busGBps", m.bus_gbs, note("NCCL's bus bandwidth, when the pair ran NCCL"));
    v("expectedGbps", m.expected_gbps,
      note("in fabric-congestion's pairs: what the pair measured alone"));
    v("error", m.error, field::present_if(!m.error.empty()), note("why there are no figures"));
  }
};

struct FabricVerdict {
  static constexpr char kName[] = "fabric-verdict";
  static constexpr Journals kIn = Journals::Coordinator;
  static constexpr char kAbout[] =
      "The fabric check's verdict: bad nodes and links, and every pair.";
  bool healthy = false;
  int rounds = 0;
  double median_gbps = 0;
  double relative_floor_gbps = 0;
  std::vector<std::string> bad_nodes = {};
  std::vector<std::vector<std::string>> bad_links = {};  ///< [first, second] each
  std::vector<std::string> suspects = {};
  std::vector<FabricPair> pairs = {};
  bool operator==(const FabricVerdict&) const = default;
  friend void fields(auto& v, Like<FabricVerdict> auto& m) {
    v("healthy", m.healthy);
    v("rounds", m.rounds);
    v("medianGbps", m.median_gbps);
    v("relativeFloorGbps", m.relative_floor_gbps);
    v("badNodes", m.bad_nodes);
    v("badLinks", m.bad_links, note("each as [first, second]"));
    v("suspects", m.suspects);
    v("pairs", m.pairs);
  }
};

struct FabricCongestion {
  static constexpr char kName[] = "fabric-congestion";
  static constexpr Journals kIn = Journals::Coordinator;
  static constexpr char kAbout[] =
      "The fabric check's all-nodes round against the pairs measured alone: congestion is the "
      "fabric's, no node is blamed.";
  bool congested = false;
  double median_gbps = 0;
  double median_ratio = 0;
  std::vector<std::vector<std::string>> slow_pairs = {};  ///< [first, second] each
  std::vector<FabricPair> pairs = {};                     ///< with expectedGbps
  bool operator==(const FabricCongestion&) const = default;
  friend void fields(auto& v, Like<FabricCongestion> auto& m) {
    v("congested", m.congested);
    v("medianGbps", m.median_gbps);
    v("medianRatio", m.median_ratio);
    v("slowPairs", m.slow_pairs, note("each as [first, second]"));
    v("pairs", m.pairs);
  }
};

// ---- The job's instances ----

struct Exited {
  static constexpr char kName[] = "exited";
  static constexpr Journals kIn = Journals::Coordinator;
  static constexpr char kAbout[] = "A launcher reported that a process of its instance exited.";
  std::string instance = {};
  int local_rank = 0;
  ExitStatus status = {};
  bool retryable = false;
  std::string reason = {};  ///< the launcher's classification
  bool stopping = false;    ///< the launcher was stopping it
  bool operator==(const Exited&) const = default;
  friend void fields(auto& v, Like<Exited> auto& m) {
    v("instance", m.instance);
    v("localRank", m.local_rank);
    v("status", m.status);
    v("retryable", m.retryable);
    v("reason", m.reason, note("the launcher's classification"));
    v("stopping", m.stopping, note("the launcher was stopping it"));
  }
};

struct Failure {
  static constexpr char kName[] = "failure";
  static constexpr Journals kIn = Journals::Coordinator;
  static constexpr char kAbout[] = "A launcher's failure summary of a failed rank.";
  std::string instance = {};
  int rank = 0;
  std::string summary = {};
  bool operator==(const Failure&) const = default;
  friend void fields(auto& v, Like<Failure> auto& m) {
    v("instance", m.instance);
    v("rank", m.rank);
    v("summary", m.summary);
  }
};

struct GpuIdle {
  static constexpr char kName[] = "gpu-idle";
  static constexpr Journals kIn = Journals::Coordinator;
  static constexpr char kAbout[] =
      "A GPU stayed below the plan's utilization threshold for its window (`monitoring.gpuIdle`).";
  std::string node = {};
  std::string instance = {};
  int gpu = 0;
  int utilization = 0;      ///< the latest sample, percent
  int max_utilization = 0;  ///< the highest of the episode
  double threshold_percent = 0;
  std::int64_t window_seconds = 0;
  std::int64_t idle_seconds = 0;
  std::string action = {};  ///< "warn" or "restart"
  bool operator==(const GpuIdle&) const = default;
  friend void fields(auto& v, Like<GpuIdle> auto& m) {
    v("node", m.node);
    v("instance", m.instance);
    v("gpu", m.gpu);
    v("utilization", m.utilization, note("the latest sample, percent"));
    v("maxUtilization", m.max_utilization, note("the highest sample of the episode"));
    v("thresholdPercent", m.threshold_percent);
    v("windowSeconds", m.window_seconds);
    v("idleSeconds", m.idle_seconds);
    v("action", m.action, note("`warn` or `restart`"));
  }
};

struct Diagnosis {
  static constexpr char kName[] = "diagnosis";
  static constexpr Journals kIn = Journals::Coordinator;
  static constexpr char kAbout[] =
      "A diagnosis verdict of the ranks' telemetry names a hung or slow rank, node or link.";
  std::string cls = {};  ///< RankNonCommHang, RankNonCommSlow, ...
  std::string node = {};
  int rank = -1;
  int gpu = -1;
  std::string severity = {};  ///< "warning" or "critical"
  std::string evidence = {};
  bool operator==(const Diagnosis&) const = default;
  friend void fields(auto& v, Like<Diagnosis> auto& m) {
    v("class", m.cls, note("`RankNonCommHang`, `RankNonCommSlow`, ..."));
    v("node", m.node);
    v("rank", m.rank, note("-1 when a node or link is named"));
    v("gpu", m.gpu, note("the rank's local GPU, -1 unknown"));
    v("severity", m.severity, note("`warning` or `critical`"));
    v("evidence", m.evidence);
  }
};

struct DiagnosisRestart {
  static constexpr char kName[] = "diagnosis-restart";
  static constexpr Journals kIn = Journals::Coordinator;
  static constexpr char kAbout[] =
      "The job restarts so that the fabric check tests the links of a verdict's suspect nodes.";
  std::string cls = {};
  std::vector<std::string> suspects = {};
  bool operator==(const DiagnosisRestart&) const = default;
  friend void fields(auto& v, Like<DiagnosisRestart> auto& m) {
    v("class", m.cls);
    v("suspects", m.suspects);
  }
};

// ---- Control ----

struct Paused {
  static constexpr char kName[] = "paused";
  static constexpr Journals kIn = Journals::Coordinator;
  static constexpr char kAbout[] = "A user paused the job (`pai-launch stop`).";
  std::string by = {};
  std::int64_t instances = 0;  ///< instances stopped
  bool operator==(const Paused&) const = default;
  friend void fields(auto& v, Like<Paused> auto& m) {
    v("by", m.by);
    v("instances", m.instances, note("how many are stopped"));
  }
};

struct Resumed {
  static constexpr char kName[] = "resumed";
  static constexpr Journals kIn = Journals::Coordinator;
  static constexpr char kAbout[] = "A user resumed the job (`pai-launch start`).";
  std::string by = {};
  std::int64_t instances = 0;  ///< instances started
  bool operator==(const Resumed&) const = default;
  friend void fields(auto& v, Like<Resumed> auto& m) {
    v("by", m.by);
    v("instances", m.instances, note("how many are started"));
  }
};

struct SwapStarted {
  static constexpr char kName[] = "swap-started";
  static constexpr Journals kIn = Journals::Coordinator;
  static constexpr char kAbout[] =
      "A node degrading without failing is swapped for a ready spare (`faultTolerance.swap`): "
      "its slow or NIC verdict held for `swap.after`, so the ranks are asked for a checkpoint.";
  std::string node = {};
  std::string instance = {};
  std::string cls = {};
  std::string evidence = {};
  std::int64_t request = 0;
  bool operator==(const SwapStarted&) const = default;
  friend void fields(auto& v, Like<SwapStarted> auto& m) {
    v("node", m.node, note("the degrading node"));
    v("instance", m.instance, note("the instance it holds"));
    v("class", m.cls,
      note("the verdict's: RankNonCommSlow, RankCommSlow, nic errors, nic flapping, nic down"));
    v("evidence", m.evidence, note("the verdict's evidence"));
    v("request", m.request, note("the checkpoint request the ranks answer"));
  }
};

struct SwapSaved {
  static constexpr char kName[] = "swap-saved";
  static constexpr Journals kIn = Journals::Coordinator;
  static constexpr char kAbout[] =
      "The checkpoint a swap asked for is saved: the job stops (as a pause) to start again with "
      "the spare in the node's place.";
  std::string node = {};
  std::string instance = {};
  std::int64_t step = 0;
  bool operator==(const SwapSaved&) const = default;
  friend void fields(auto& v, Like<SwapSaved> auto& m) {
    v("node", m.node, note("the degrading node"));
    v("instance", m.instance, note("the instance whose rank saved it"));
    v("step", m.step, note("the checkpoint's step"));
  }
};

struct SwapDone {
  static constexpr char kName[] = "swap-done";
  static constexpr Journals kIn = Journals::Coordinator;
  static constexpr char kAbout[] =
      "A swap's stop is over: the job starts again from the swap's checkpoint with the spare in "
      "the node's place, no failure counted.";
  std::string node = {};
  std::string spare = {};
  std::int64_t step = 0;
  std::int64_t stop_ms = 0;
  bool operator==(const SwapDone&) const = default;
  friend void fields(auto& v, Like<SwapDone> auto& m) {
    v("node", m.node, note("the node swapped out (excluded)"));
    v("spare", m.spare, note("the spare that takes its instance"));
    v("step", m.step, note("the checkpoint's step"));
    v("stopMs", m.stop_ms, note("from the save to the last instance stopped"));
  }
};

struct SwapAbandoned {
  static constexpr char kName[] = "swap-abandoned";
  static constexpr Journals kIn = Journals::Coordinator;
  static constexpr char kAbout[] =
      "A swap is given up and the job runs on as it was: no checkpoint within "
      "`swap.checkpointTimeout`, the job paused or restarting, or no spare left.";
  std::string node = {};
  std::string reason = {};
  bool operator==(const SwapAbandoned&) const = default;
  friend void fields(auto& v, Like<SwapAbandoned> auto& m) {
    v("node", m.node, note("the degrading node"));
    v("reason", m.reason);
  }
};

struct CheckpointRequested {
  static constexpr char kName[] = "checkpoint-requested";
  static constexpr Journals kIn = Journals::Coordinator;
  static constexpr char kAbout[] =
      "A user asked the ranks to checkpoint at their next step (`pai-launch checkpoint-now`).";
  std::string by = {};
  std::int64_t request = 0;    ///< the request's number, 1 and up
  std::int64_t instances = 0;  ///< instances told
  bool operator==(const CheckpointRequested&) const = default;
  friend void fields(auto& v, Like<CheckpointRequested> auto& m) {
    v("by", m.by);
    v("request", m.request,
      note("its number, 1 and up: the ranks' `checkpoint-advice` carries it"));
    v("instances", m.instances, note("how many running instances are told"));
  }
};

struct CheckpointInterval {
  static constexpr char kName[] = "checkpoint-interval";
  static constexpr Journals kIn = Journals::Coordinator;
  static constexpr char kAbout[] =
      "The coordinator refined the checkpoint interval from the saves it measured "
      "([checkpoint-planning.md](checkpoint-planning.md#while-the-job-runs)).";
  std::int64_t seconds = 0;           ///< the new interval
  std::int64_t previous_seconds = 0;  ///< the one it replaces
  double cost_seconds = 0;            ///< the measured mean stall of a save
  std::int64_t saves = 0;             ///< the saves measured
  double expected_ettr = 0;           ///< at the new interval, with the measured cost
  bool operator==(const CheckpointInterval&) const = default;
  friend void fields(auto& v, Like<CheckpointInterval> auto& m) {
    v("seconds", m.seconds, note("the new interval"));
    v("previousSeconds", m.previous_seconds, note("the one it replaces"));
    v("costSeconds", m.cost_seconds, note("the measured mean stall of a save"));
    v("saves", m.saves, note("the saves measured"));
    v("expectedEttr", m.expected_ettr,
      note("0 to 1, at the new interval with the measured cost and the plan's restart cost"));
  }
};

struct Run {
  static constexpr char kName[] = "run";
  static constexpr Journals kIn = Journals::Coordinator;
  static constexpr char kAbout[] =
      "A user runs a command on every node of the job (`pai-launch run` with a command).";
  std::vector<std::string> argv = {};
  std::vector<std::string> nodes = {};
  std::string by = {};
  bool operator==(const Run&) const = default;
  friend void fields(auto& v, Like<Run> auto& m) {
    v("argv", m.argv);
    v("nodes", m.nodes);
    v("by", m.by);
  }
};

struct Rsh {
  static constexpr char kName[] = "rsh";
  static constexpr Journals kIn = Journals::Coordinator;
  static constexpr char kAbout[] =
      "A remote command on a node of the job (`pai-launch rsh`, MPI's agent).";
  std::string node = {};
  std::vector<std::string> argv = {};
  std::string by = {};
  bool operator==(const Rsh&) const = default;
  friend void fields(auto& v, Like<Rsh> auto& m) {
    v("node", m.node);
    v("argv", m.argv);
    v("by", m.by);
  }
};

// ---- The server ----

struct MetricsEndpoint {
  static constexpr char kName[] = "metrics-endpoint";
  static constexpr Journals kIn = Journals::Coordinator;
  static constexpr char kAbout[] = "Where the coordinator serves its Prometheus metrics.";
  std::string url = {};
  bool operator==(const MetricsEndpoint&) const = default;
  friend void fields(auto& v, Like<MetricsEndpoint> auto& m) { v("url", m.url); }
};

struct MetricsLinger {
  static constexpr char kName[] = "metrics-linger";
  static constexpr Journals kIn = Journals::Coordinator;
  static constexpr char kAbout[] =
      "The job ended; the coordinator serves its final metrics a while longer, for the scrapes "
      "that record how it ended (monitoring.metricsLinger).";
  std::int64_t seconds = 0;  ///< at most this long, or until scraped twice
  bool operator==(const MetricsLinger&) const = default;
  friend void fields(auto& v, Like<MetricsLinger> auto& m) {
    v("seconds", m.seconds, note("at most this long, or until the final state was scraped twice"));
  }
};

/// The fields of connections-refused and port-probes: refusals counted per address and
/// reason over an interval, or (no reason) the rest summed.
template <class Counts>
void refusal_fields(auto& v, Counts& m) {
  v("count", m.count);
  v("reason", m.reason, note("absent in the record that sums the rest"));
  v("address", m.address, field::present_if(!m.address.empty()), note("absent when unknown"));
}

struct ConnectionsRefused {
  static constexpr char kName[] = "connections-refused";
  static constexpr Journals kIn = Journals::Coordinator;
  static constexpr char kAbout[] =
      "Connections refused before they authenticated, counted per address and reason each "
      "second.";
  std::int64_t count = 0;
  std::optional<std::string> reason = {};
  std::string address = {};
  bool operator==(const ConnectionsRefused&) const = default;
  friend void fields(auto& v, Like<ConnectionsRefused> auto& m) { refusal_fields(v, m); }
};

struct PortProbes {
  static constexpr char kName[] = "port-probes";
  static constexpr Journals kIn = Journals::Coordinator;
  static constexpr char kAbout[] =
      "Connections closed before they said anything (the nodes' network checks probe the port), "
      "counted as connections-refused are.";
  std::int64_t count = 0;
  std::optional<std::string> reason = {};
  std::string address = {};
  bool operator==(const PortProbes&) const = default;
  friend void fields(auto& v, Like<PortProbes> auto& m) { refusal_fields(v, m); }
};

struct ConnectionRejected {
  static constexpr char kName[] = "connection-rejected";
  static constexpr Journals kIn = Journals::Coordinator;
  static constexpr char kAbout[] = "An authenticated connection broke the protocol and was closed.";
  std::string address = {};
  std::string node = {};
  std::string reason = {};
  bool operator==(const ConnectionRejected&) const = default;
  friend void fields(auto& v, Like<ConnectionRejected> auto& m) {
    v("address", m.address);
    v("node", m.node);
    v("reason", m.reason);
  }
};

struct ConnectionDropped {
  static constexpr char kName[] = "connection-dropped";
  static constexpr Journals kIn = Journals::Coordinator;
  static constexpr char kAbout[] = "A peer that does not read its messages was dropped.";
  std::string address = {};
  std::string node = {};
  std::string reason = {};
  bool operator==(const ConnectionDropped&) const = default;
  friend void fields(auto& v, Like<ConnectionDropped> auto& m) {
    v("address", m.address);
    v("node", m.node);
    v("reason", m.reason);
  }
};

struct InternalError {
  static constexpr char kName[] = "internal-error";
  static constexpr Journals kIn = Journals::Coordinator;
  static constexpr char kAbout[] = "The coordinator's state machine failed on an event (a bug).";
  std::string error = {};
  bool operator==(const InternalError&) const = default;
  friend void fields(auto& v, Like<InternalError> auto& m) { v("error", m.error); }
};

struct CoordinatorError {
  static constexpr char kName[] = "coordinator-error";
  static constexpr Journals kIn = Journals::Coordinator;
  static constexpr char kAbout[] = "The coordinator's server failed on one action and went on.";
  std::string what = {};
  bool operator==(const CoordinatorError&) const = default;
  friend void fields(auto& v, Like<CoordinatorError> auto& m) { v("what", m.what); }
};

struct CoordinatorElected {
  static constexpr char kName[] = "coordinator-elected";
  static constexpr Journals kIn = Journals::Coordinator;
  static constexpr char kAbout[] =
      "With `coordinator.ha`: this launcher was elected to coordinate the job through etcd, at "
      "the start or taking over from a coordinator that was lost (`lost`).";
  std::string node = {};
  std::string address = {};  ///< ADDRESS:PORT it serves on
  std::int64_t revision = 0;
  std::optional<std::string> lost = {};
  bool operator==(const CoordinatorElected&) const = default;
  friend void fields(auto& v, Like<CoordinatorElected> auto& m) {
    v("node", m.node);
    v("address", m.address, note("`ADDRESS:PORT` it serves on"));
    v("revision", m.revision,
      note("its election key's etcd create revision: a later leader's is higher"));
    v("lost", m.lost, note("a takeover's: the node whose coordinator was lost"));
  }
};

struct CoordinatorSteppedDown {
  static constexpr char kName[] = "coordinator-stepped-down";
  static constexpr Journals kIn = Journals::Coordinator;
  static constexpr char kAbout[] =
      "With `coordinator.ha`: this coordinator stopped acting because its etcd lease may have "
      "expired (another launcher may lead from then on).";
  std::string node = {};
  std::string reason = {};
  bool operator==(const CoordinatorSteppedDown&) const = default;
  friend void fields(auto& v, Like<CoordinatorSteppedDown> auto& m) {
    v("node", m.node);
    v("reason", m.reason);
  }
};

}  // namespace pai::launcher::journal
