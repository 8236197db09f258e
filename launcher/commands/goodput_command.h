// `pai-launch goodput LOGDIR [--format text|json]`: where every rank-second of a job went
// (docs/goodput.md), from its log folder's journals, read as the report reads them.
#pragma once

#include <string>

#include "launcher/logs/goodput.h"

namespace pai::launcher {

/// What `pai-launch goodput` asks for.
struct GoodputOptions {
  std::string log_dir;          ///< the job's log folder (or one instance's folder in it)
  std::string format = "text";  ///< "text": a table of cause, rank-seconds, share; "json"
};

/// The account as a table: a headline (job, rank slots, wall time, ETTR), one row per cause
/// with its rank-seconds and share, the total, then the notes.
std::string goodput_text(const std::string& job, const goodput::Account& account);

/// The account as one JSON object and a newline (docs/goodput.md names its members).
std::string goodput_json(const std::string& job, const goodput::Account& account);

/// Prints the account of `options.log_dir` on standard output. Returns 0; 2 when the folder
/// holds no journal or only empty ones, or cannot be read (the message names the folder or
/// file); 1 when the standard output cannot be written.
int goodput_command(const GoodputOptions& options);

}  // namespace pai::launcher
