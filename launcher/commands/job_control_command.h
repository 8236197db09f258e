// Job control of a running multi-node job, like ACP's `jmt` (design §8): `pai-launch status`,
// `stop`, `start`, `cancel`, `run -- CMD...`, `kill INSTANCE`, `checkpoint-now` and `logs`, each
// one request to the job's coordinator as a "control" peer (docs/protocol.md).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "launcher/commands/coordinator_address.h"

namespace pai::launcher {

enum class ControlVerb { Status, Stop, Start, Cancel, Run, Kill, CheckpointNow, Logs };

/// The verb's name on the command line ("status", ...).
const char* to_string(ControlVerb verb);

/// The options of one control command.
struct JobControlOptions {
  ControlVerb verb = ControlVerb::Status;
  JobLocator locator;  ///< which job (--plan | --coordinator/--token-file/--job | env)
  bool json = false;   ///< status --json: the coordinator's status message as JSON
  /// status --watch: ask again every `watch_interval` until the job ends or the command is
  /// interrupted; on a terminal each answer is redrawn in place
  bool watch = false;
  std::chrono::milliseconds watch_interval{std::chrono::seconds(2)};
  std::vector<std::string> command;  ///< run: the command run on every node
  std::string instance;              ///< kill: "role-i"
  bool follow = false;               ///< logs --follow
  int rank = -1;                     ///< logs --rank; -1 = every rank
  int tail = 100;                    ///< logs --tail: lines of each rank's log before now
  /// logs: --tail looks back at most this many bytes of each rank's log (a longer last line
  /// is cut, behind a marker)
  std::int64_t tail_bytes = 1024 * 1024;
  bool merge = false;  ///< logs --merge: "[node:rank] " labels, identical lines collapsed
  /// logs --merge --follow: how long a line waits for identical lines of other ranks
  std::chrono::milliseconds merge_window{std::chrono::seconds(1)};
  /// How long status, stop, start and kill wait for the answer (run and logs wait as long
  /// as their commands and the job last).
  std::chrono::milliseconds reply_timeout{std::chrono::seconds(30)};
  int out_fd = 1;  ///< where results go
  int err_fd = 2;  ///< where "pai-launch VERB: ..." messages go
};

/// Runs the command. Exit codes: 0 done; 1 the operation failed (the coordinator cannot be
/// reached, answers an error, or breaks the protocol); 2 usage (bad arguments, the job
/// cannot be located). `run` exits with the highest exit code of the nodes instead (0 when
/// every node's command succeeded); its output is relayed line by line behind "[NODE] ".
/// `logs` prefixes lines with "[role-i/RANK] " unless one rank was asked for; with `merge`,
/// with "[NODE:RANK] " and identical lines of several ranks collapse (logs/log_merge.h).
int job_control_command(const JobControlOptions& options);

}  // namespace pai::launcher
