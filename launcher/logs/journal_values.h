// The journal's shared parts (journal_events.h): which journal an event is written to, the
// option a field table may give a field beyond libpai/fields.h's (a note for docs/journal.md),
// and the values events nest: an exit status, a failure classification, a hang's culprit, the
// master, an assignment's rows, a rendezvous' waiting nodes and JSON
// the journal does not own. Each nested value lists its fields once, like the events.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "libpai/fields.h"

namespace pai::launcher::journal {

/// Which journals an event is written to: a node's (`<logs>/<instance>/events.jsonl`, by its
/// launcher), the coordinator's (`<logs>/coordinator/events.jsonl`), or both.
enum class Journals { Node = 1, Coordinator = 2, Both = 3 };

/// Option of a field: a sentence for docs/journal.md (what the value means, who writes it).
/// Writers and readers ignore it.
struct Note {
  const char* text;
};

/// A Note saying `text`.
constexpr Note note(const char* text) { return Note{text}; }

/// JSON the journal does not own, held as its text: a node's check results as the protocol
/// carries them (launcher/checks/check_result_json.h). Written as the JSON itself; an array
/// or an object.
struct RawJson {
  std::string text = "[]";
  bool operator==(const RawJson&) const = default;
};

/// How a process ended: its exit code, or the signal that killed it (0: none).
struct ExitStatus {
  int code = 0;
  int signal = 0;
  bool operator==(const ExitStatus&) const = default;
  friend void fields(auto& v, Like<ExitStatus> auto& m) {
    v("code", m.code);
    v("signal", m.signal);
  }
};

/// A launcher's failure classification of an exit (launcher/policy/failure_classifier.h).
struct ExitClassification {
  bool retryable = false;
  std::string reason = {};
  std::string matched_line = {};  ///< the log line a retryable pattern matched
  std::string signature = {};     ///< what the restart metrics count it as
  bool operator==(const ExitClassification&) const = default;
  friend void fields(auto& v, Like<ExitClassification> auto& m) {
    v("retryable", m.retryable);
    v("reason", m.reason);
    v("matchedLine", m.matched_line);
    v("signature", m.signature);
  }
};

/// The rank a diagnosis verdict names as a job-wide hang's culprit.
struct HangCulprit {
  std::string cls = {};  ///< the verdict's class, RankNonCommHang
  std::int64_t rank = -1;
  std::string node = {};
  bool operator==(const HangCulprit&) const = default;
  friend void fields(auto& v, Like<HangCulprit> auto& m) {
    v("class", m.cls);
    v("rank", m.rank);
    v("node", m.node);
  }
};

/// Where the job's master (MASTER_ADDR, MASTER_PORT) is.
struct Master {
  std::string host = {};     ///< the plan's host name
  std::string address = {};  ///< MASTER_ADDR
  std::int64_t port = 0;
  bool operator==(const Master&) const = default;
  friend void fields(auto& v, Like<Master> auto& m) {
    v("host", m.host);
    v("address", m.address);
    v("port", m.port);
  }
};

/// One instance of an assignment and the node that holds it.
struct AssignedInstance {
  std::string instance = {};
  std::string node = {};
  std::string address = {};
  bool operator==(const AssignedInstance&) const = default;
  friend void fields(auto& v, Like<AssignedInstance> auto& m) {
    v("instance", m.instance);
    v("node", m.node);
    v("address", m.address);
  }
};

/// A node the rendezvous waits for, and why.
struct WaitingNode {
  std::string node = {};
  std::string why = {};  ///< "no connection", "failed check burn", "running checks"
  bool operator==(const WaitingNode&) const = default;
  friend void fields(auto& v, Like<WaitingNode> auto& m) {
    v("node", m.node);
    v("why", m.why);
  }
};

/// A node whose fact differs from the majority's, in a `fabric-lint` record.
struct LintOutlier {
  std::string node = {};
  std::string key = {};       ///< the fact: "port.mlx5_0/1.mtu"
  std::string value = {};     ///< "(missing)" when the node lacks it
  std::string majority = {};  ///< the other nodes' value
  bool operator==(const LintOutlier&) const = default;
  friend void fields(auto& v, Like<LintOutlier> auto& m) {
    v("node", m.node);
    v("key", m.key);
    v("value", m.value);
    v("majority", m.majority);
  }
};

/// A node's setting that contradicts the plan, in a `fabric-lint` record.
struct LintContradiction {
  std::string node = {};
  std::string key = {};
  std::string value = {};
  std::string why = {};  ///< what it contradicts
  bool operator==(const LintContradiction&) const = default;
  friend void fields(auto& v, Like<LintContradiction> auto& m) {
    v("node", m.node);
    v("key", m.key);
    v("value", m.value);
    v("why", m.why);
  }
};

/// A fact the nodes disagree on without a majority to name an outlier by.
struct LintDisagreement {
  std::string key = {};
  std::map<std::string, std::vector<std::string>> values = {};  ///< value -> the nodes with it
  bool operator==(const LintDisagreement&) const = default;
  friend void fields(auto& v, Like<LintDisagreement> auto& m) {
    v("key", m.key);
    v("values", m.values, note("each value and the nodes that have it"));
  }
};

/// One fact that changed on a node between two rounds of checks, in a `fabric-drift` record.
struct FactChanged {
  std::string node = {};
  std::string key = {};
  std::string before = {};  ///< "(missing)" when it was not there
  std::string after = {};   ///< "(missing)" when it is gone
  bool operator==(const FactChanged&) const = default;
  friend void fields(auto& v, Like<FactChanged> auto& m) {
    v("node", m.node);
    v("key", m.key);
    v("before", m.before);
    v("after", m.after);
  }
};

}  // namespace pai::launcher::journal
