// The events both journals have: a node's launcher journals what it does to its instance,
// the coordinator what it decided for the job's instances. One struct per event name holds
// the fields of both; a field only one of them writes is optional and its note says whose.
// Included through journal_events.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "launcher/logs/journal_values.h"

namespace pai::launcher::journal {

struct Start {
  static constexpr char kName[] = "start";
  static constexpr Journals kIn = Journals::Both;
  static constexpr char kAbout[] = "An attempt of an instance starts.";
  std::string instance = {};
  std::optional<std::string> node = {};  ///< the coordinator's: where it starts
  int attempt = 0;
  std::optional<std::int64_t> processes = {};  ///< a node's: its ranks
  bool operator==(const Start&) const = default;
  friend void fields(auto& v, Like<Start> auto& m) {
    v("instance", m.instance);
    v("node", m.node, note("the coordinator's: the node it starts on"));
    v("attempt", m.attempt);
    v("processes", m.processes, note("a node's: its ranks"));
  }
};

struct Stop {
  static constexpr char kName[] = "stop";
  static constexpr Journals kIn = Journals::Both;
  static constexpr char kAbout[] = "An instance is being stopped, and why.";
  std::string instance = {};
  int signal = 0;
  bool dump_stacks = false;  ///< hang forensics first
  std::string reason = {};
  bool operator==(const Stop&) const = default;
  friend void fields(auto& v, Like<Stop> auto& m) {
    v("instance", m.instance);
    v("signal", m.signal);
    v("dumpStacks", m.dump_stacks, note("the ranks' stacks are collected first"));
    v("reason", m.reason);
  }
};

struct Kill {
  static constexpr char kName[] = "kill";
  static constexpr Journals kIn = Journals::Both;
  static constexpr char kAbout[] =
      "An instance gets SIGKILL: its grace period is over (a node's), or a user asked "
      "(`pai-launch kill`).";
  std::string instance = {};
  std::optional<std::string> node = {};    ///< the coordinator's
  std::optional<std::string> by = {};      ///< the coordinator's: who asked
  std::optional<std::string> reason = {};  ///< a node's: "grace period over"
  bool operator==(const Kill&) const = default;
  friend void fields(auto& v, Like<Kill> auto& m) {
    v("instance", m.instance);
    v("node", m.node, note("the coordinator's"));
    v("by", m.by, note("the coordinator's: who asked"));
    v("reason", m.reason, note("a node's: `grace period over`, `pai-launch kill`"));
  }
};

struct Restart {
  static constexpr char kName[] = "restart";
  static constexpr Journals kIn = Journals::Both;
  static constexpr char kAbout[] = "The restart policy restarts an instance after a backoff.";
  std::string instance = {};
  int attempt = 0;                                   ///< the attempt it starts
  std::optional<std::int64_t> backoff_seconds = {};  ///< a node's
  std::optional<std::int64_t> delay_seconds = {};    ///< the coordinator's
  std::string reason = {};
  std::optional<std::string> signature = {};  ///< the coordinator's: what the metrics count
  bool operator==(const Restart&) const = default;
  friend void fields(auto& v, Like<Restart> auto& m) {
    v("instance", m.instance);
    v("attempt", m.attempt, note("the attempt it starts"));
    v("backoffSeconds", m.backoff_seconds, note("a node's"));
    v("delaySeconds", m.delay_seconds, note("the coordinator's"));
    v("reason", m.reason);
    v("signature", m.signature, note("the coordinator's: the failure's kind, as metrics count it"));
  }
};

struct Hang {
  static constexpr char kName[] = "hang";
  static constexpr Journals kIn = Journals::Both;
  static constexpr char kAbout[] =
      "An instance hangs: silent for its hang interval, or stuck exiting; or (the coordinator's "
      "`jobWide`) no instance of the job made progress.";
  std::string instance = {};
  bool job_wide = false;  ///< the coordinator's job-wide verdict
  std::int64_t seconds = 0;
  bool exiting = false;  ///< stuck exiting rather than silent; not for a job-wide hang
  std::optional<std::int64_t> last_step = {};  ///< a node's: the last step a rank reported
  std::optional<HangCulprit> culprit = {};     ///< a job-wide hang's, named by a diagnosis verdict
  bool operator==(const Hang&) const = default;
  friend void fields(auto& v, Like<Hang> auto& m) {
    v("instance", m.instance);
    v("jobWide", m.job_wide, field::present_if(m.job_wide), note("the coordinator's, only true"));
    v("seconds", m.seconds);
    v("exiting", m.exiting, field::present_if(!m.job_wide),
      note("stuck exiting rather than silent; absent for a job-wide hang"));
    v("lastStep", m.last_step, note("a node's: the last step a rank reported, -1 none"));
    v("culprit", m.culprit, note("a job-wide hang's culprit, named by a diagnosis verdict"));
  }
};

struct Forensics {
  static constexpr char kName[] = "forensics";
  static constexpr Journals kIn = Journals::Both;
  static constexpr char kAbout[] =
      "Hang forensics: where each rank's stack was when a hung instance was stopped.";
  std::string instance = {};
  std::optional<std::string> node = {};  ///< the coordinator's: the node that sent them
  int attempt = 0;
  std::string folder = {};                   ///< where the stacks are
  std::string in_collective = {};            ///< "0,2": ranks whose stack is inside a collective
  std::string outside = {};                  ///< ranks outside any collective
  std::string unknown = {};                  ///< ranks whose stack tells neither
  std::optional<std::int64_t> culprit = {};  ///< a node's: the culprit rank, -1 none
  std::optional<std::string> culprits = {};  ///< the coordinator's: "1,3" over every node
  std::string evidence = {};
  std::optional<std::string> errors = {};  ///< a node's: files or tools that failed, "; "-separated
  bool operator==(const Forensics&) const = default;
  friend void fields(auto& v, Like<Forensics> auto& m) {
    v("instance", m.instance);
    v("node", m.node, note("the coordinator's: the node that sent them"));
    v("attempt", m.attempt);
    v("folder", m.folder);
    v("inCollective", m.in_collective, note("ranks whose stack is in a collective, `0,2`"));
    v("outside", m.outside, note("ranks outside any collective"));
    v("unknown", m.unknown, note("ranks whose stack tells neither"));
    v("culprit", m.culprit,
      note("a node's: the first rank outside while others wait in a collective, -1 none"));
    v("culprits", m.culprits, note("the coordinator's: the culprits over all nodes, `1,3`"));
    v("evidence", m.evidence);
    v("errors", m.errors, note("a node's: files or tools that failed, `; `-separated"));
  }
};

struct JobSucceeded {
  static constexpr char kName[] = "job-succeeded";
  static constexpr Journals kIn = Journals::Both;
  static constexpr char kAbout[] = "The job succeeded.";
  std::optional<std::string> job = {};  ///< a node's
  bool operator==(const JobSucceeded&) const = default;
  friend void fields(auto& v, Like<JobSucceeded> auto& m) { v("job", m.job, note("a node's")); }
};

struct JobFailed {
  static constexpr char kName[] = "job-failed";
  static constexpr Journals kIn = Journals::Both;
  static constexpr char kAbout[] =
      "The job failed: the launcher's or the coordinator's reason, with what it knows of the "
      "failed process.";
  std::optional<std::string> job = {};  ///< a node's
  std::string reason = {};
  int exit_code = 0;
  std::optional<std::int64_t> rank = {};         ///< a node's: the failed global rank, -1 none
  std::optional<std::string> matched_line = {};  ///< a node's
  std::optional<std::string> instance = {};      ///< the coordinator's, with an instance to blame
  std::optional<int> local_rank = {};
  std::optional<ExitStatus> status = {};
  std::optional<ExitClassification> classification = {};
  std::optional<std::string> summary = {};              ///< the failed rank's failure summary
  std::optional<std::string> stack_culprit = {};        ///< the culprit hang forensics named
  std::optional<std::string> node = {};                 ///< a node whose checks failed
  std::optional<std::string> checks = {};               ///< the checks it failed: "burn, nccl"
  std::optional<std::vector<std::string>> report = {};  ///< a failed fabric check's report
  bool operator==(const JobFailed&) const = default;
  friend void fields(auto& v, Like<JobFailed> auto& m) {
    v("job", m.job, note("a node's"));
    v("reason", m.reason);
    v("exitCode", m.exit_code);
    v("rank", m.rank, note("a node's: the failed global rank, -1 none"));
    v("matchedLine", m.matched_line, note("a node's"));
    v("instance", m.instance, note("the coordinator's, with an instance to blame"));
    v("localRank", m.local_rank, note("the coordinator's, for a failed policy decision"));
    v("status", m.status, note("the coordinator's, with an instance"));
    v("classification", m.classification, note("the coordinator's, with an instance"));
    v("summary", m.summary, note("the coordinator's: the failed rank's failure summary"));
    v("stackCulprit", m.stack_culprit, note("the coordinator's: the culprit of hang forensics"));
    v("node", m.node, note("the coordinator's: the node whose checks failed"));
    v("checks", m.checks, note("the coordinator's: the checks it failed, `burn, nccl`"));
    v("report", m.report, note("the coordinator's: a failed fabric check's report, by line"));
  }
};

struct JobCancelled {
  static constexpr char kName[] = "job-cancelled";
  static constexpr Journals kIn = Journals::Both;
  static constexpr char kAbout[] =
      "The job was cancelled: a user's stop, a signal to a launcher, the time limit.";
  std::optional<std::string> job = {};     ///< a node's
  std::optional<std::string> by = {};      ///< the coordinator's: who cancelled it
  std::optional<std::string> reason = {};  ///< a node's
  int exit_code = 0;
  bool operator==(const JobCancelled&) const = default;
  friend void fields(auto& v, Like<JobCancelled> auto& m) {
    v("job", m.job, note("a node's"));
    v("by", m.by, note("the coordinator's: who cancelled it"));
    v("reason", m.reason, note("a node's"));
    v("exitCode", m.exit_code);
  }
};

struct ProtocolError {
  static constexpr char kName[] = "protocol-error";
  static constexpr Journals kIn = Journals::Both;
  static constexpr char kAbout[] =
      "A message was not understood: by a node (from its coordinator) or by the coordinator "
      "(whose peer's connection it closes).";
  std::optional<std::int64_t> session = {};  ///< the coordinator's
  std::optional<std::string> peer = {};      ///< the coordinator's: "launcher" or "control"
  std::optional<std::string> node = {};      ///< the coordinator's: the node the peer claims
  std::optional<std::string> address = {};   ///< the coordinator's
  std::string error = {};
  bool operator==(const ProtocolError&) const = default;
  friend void fields(auto& v, Like<ProtocolError> auto& m) {
    v("session", m.session, note("the coordinator's"));
    v("peer", m.peer, note("the coordinator's: `launcher` or `control`"));
    v("node", m.node, note("the coordinator's: the node the peer claims to be"));
    v("address", m.address, note("the coordinator's"));
    v("error", m.error);
  }
};

struct FaultInjected {
  static constexpr char kName[] = "fault-injected";
  static constexpr Journals kIn = Journals::Both;
  static constexpr char kAbout[] =
      "A drill's fault (`pai-launch drill`): the coordinator sent it to the node, the node put it "
      "into its rank, on its rank's GPU (slow-gpu: a burn, recorded once it runs), on its link "
      "(slow-link, dropped-link: a tc rule), on its output folder's disk (disk-full: a file "
      "filling it), or, for node-loss, is about to SIGKILL its own launcher.";
  std::string fault = {};
  std::string instance = {};
  std::int64_t rank = -1;
  std::int64_t seconds = 0;
  std::optional<std::string> node = {};  ///< the coordinator's
  std::optional<std::string> by = {};    ///< the coordinator's: who asked
  std::optional<std::int64_t> pid = {};  ///< a node's: the process it went into
  std::optional<std::string> place = {};  ///< a node's GPU, link or disk fault: where
  bool operator==(const FaultInjected&) const = default;
  friend void fields(auto& v, Like<FaultInjected> auto& m) {
    v("fault", m.fault,
      note("`rank-kill`, `rank-hang`, `slow-rank`, `collective-hang`, `slow-gpu`, `node-loss`, "
           "`slow-link`, `dropped-link` or `disk-full`"));
    v("instance", m.instance);
    v("rank", m.rank, note("the global rank; -1 for the node's faults (node-loss, link, disk)"));
    v("seconds", m.seconds, note("how long a bounded fault lasts; 0 for the others"));
    v("node", m.node, note("the coordinator's"));
    v("by", m.by, note("the coordinator's: who asked"));
    v("pid", m.pid, note("a node's: the process it went into"));
    v("place", m.place,
      note("a node's slow-gpu, link or disk fault: the GPU burned (`GPU 1`), the interface "
           "its tc rule is on, the file filling the output folder's disk"));
  }
};

}  // namespace pai::launcher::journal
