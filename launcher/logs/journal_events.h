// The journal (`events.jsonl`, design §6, §11): every event the launchers and the coordinator
// record, one struct each, and `Event`, the variant of them all. This header (with the parts
// it includes by writer: journal_node_events.h, journal_shared_events.h,
// journal_coordinator_events.h) is the journal's one definition: the writer and the reader
// (journal.h, journal_json.h), docs/journal.md and schemas/journal.schema.json are made from it.
//
// An event struct has
//   kName    its `event` in the journal ("restart"),
//   kIn      the journals it is written to (a node's, the coordinator's, both),
//   kAbout   one sentence: what it records,
// and its field table (libpai/fields.h): `v("key", m.member, options...)` for each field, in
// the order they are written. A field is always written unless its member is a std::optional
// (written when set) or it has field::present_if (written when that holds); either makes it
// optional in the docs and the schema. A note(...) option is its sentence in docs/journal.md.
// Members are bool, int, std::int64_t, double, std::string, a nested value of
// journal_values.h, std::vector and std::map<std::string, ...> of those, or RawJson.
//
// Adding an event: its struct in the part of its writer, its type in `Event` below (anywhere;
// the order is not written), then PAI_UPDATE_GOLDEN=1 for the docs and the schema
// (tests/launcher/logs/journal_docs_test.cpp fails until they are made again). A reader that
// does not know an event skips it (counted), so old readers still read new journals.
#pragma once

#include <string>
#include <variant>

#include "launcher/logs/journal_coordinator_events.h"
#include "launcher/logs/journal_node_events.h"
#include "launcher/logs/journal_shared_events.h"
#include "launcher/logs/journal_values.h"

namespace pai::launcher::journal {

/// The journal format written: 2 (nested values as JSON objects and arrays, a `journal`
/// record first). Format 1 (launchers before it) had no `journal` record and wrote nested
/// values as their JSON text in a string; readers read both.
inline constexpr int kFormat = 2;

/// The first record of every journal file a launcher creates.
struct Header {
  static constexpr char kName[] = "journal";
  static constexpr Journals kIn = Journals::Both;
  static constexpr char kAbout[] =
      "The first record of a journal file: its format and the program that wrote it.";
  int format = kFormat;
  std::string writer = {};  ///< "pai-launch 0.9.0"
  bool operator==(const Header&) const = default;
  friend void fields(auto& v, Like<Header> auto& m) {
    v("format", m.format, note("2; a journal without this record is format 1"));
    v("writer", m.writer, note("`pai-launch <version>`"));
  }
};

/// Every event of the journal.
using Event = std::variant<
    // clang-format off
    Header,
    // Both journals
    Start, Stop, Kill, Restart, Hang, Forensics, JobSucceeded, JobFailed, JobCancelled,
    ProtocolError, FaultInjected,
    // A node's
    LauncherStarted, Check, ProcessStarted, SpawnFailed, Exit, StackDump, Signal, Notify,
    HangInterval, ExitHangInterval, RetryableError, Steps, CheckpointStarted, CheckpointResumed,
    Checkpoint, CheckpointFailed, CheckpointAbandoned, CheckpointWait, Finish, NodeStopping,
    CoordinatorUnreachable, Joined, GpuSamplingOff, CoordinatorLost, CoordinatorFound, Standby,
    Assigned,
    FabricResult, NicVerdict, StoreServing, StoreClientClosed, WarmStartCold, FaultReverted,
    // The coordinator's
    Join, Checks, FabricLint, FabricDrift, Nic, Progress, PeerRejected, Assignment, Disconnected, NodeLost,
    SpareLost, NodeReplaced, NodeExcluded, WaitingForSpare, FabricSkipped, FabricRound,
    FabricPair, FabricVerdict, FabricCongestion, Exited, Failure, GpuIdle, Diagnosis,
    DiagnosisRestart, Paused, Resumed, SwapStarted, SwapSaved, SwapDone, SwapAbandoned,
    CheckpointRequested, CheckpointInterval, Run, Rsh,
    MetricsEndpoint, MetricsLinger, ConnectionsRefused,
    PortProbes, ConnectionRejected, ConnectionDropped, InternalError, CoordinatorError,
    CoordinatorElected, CoordinatorSteppedDown
    // clang-format on
    >;

/// The `event` of `event`: its kName.
const char* name_of(const Event& event);

}  // namespace pai::launcher::journal
