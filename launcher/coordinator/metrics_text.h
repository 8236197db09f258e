// The coordinator's Prometheus metrics (spec `monitoring`): its state and JobMetrics rendered
// in the text exposition format, version 0.0.4. A pure function of the state and the time: no
// socket, no clock. The series are listed in docs/metrics.md. Internal to
// launcher/coordinator/.
#pragma once

#include <string>
#include <string_view>

#include "launcher/coordinator/coordinator_state.h"
#include "launcher/coordinator/run_view.h"

namespace pai::launcher::coordinator {

/// The Content-Type of metrics_text()'s output.
inline constexpr char kMetricsContentType[] = "text/plain; version=0.0.4; charset=utf-8";

/// Series one rank adds at most: its own plus its share of its node's and instance's (a node
/// of one rank carries them all). metrics_text() never exceeds it.
inline constexpr int kMaxSeriesPerRank = 50;

/// GPUs shown per rank of a node at most (3 series each: utilization, memory used and total):
/// a node of one rank shows its first 3 GPUs, a node of 8 ranks all of its 8.
inline constexpr int kMaxGpusPerRank = 3;

/// Check results shown per node at most (the latest round's first ones, in the plan's order).
inline constexpr int kMaxChecksPerNode = 16;

/// `value` as a label value between double quotes: backslash, double quote and newline
/// escaped; bytes that are not UTF-8 replaced by U+FFFD.
std::string escape_label_value(std::string_view value);

/// Every series of the job as of `now`; `job` is null before the job runs.
std::string metrics_text(const CoordinatorState& state, const RunView* job, Clock::time_point now);

}  // namespace pai::launcher::coordinator
