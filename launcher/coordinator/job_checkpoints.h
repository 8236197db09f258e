// The checkpoint advice the ranks follow while the job runs (docs/checkpoint-planning.md,
// "While the job runs"): the interval the compiler planned, refined from the mean stall of
// the saves the job's own journals measure, and the number of the latest `checkpoint-now`
// request. The hub sends it to the running instances' nodes (`checkpoint-advice`), whose
// launchers answer the ranks' `checkpoint-advice` control requests with it. Internal to
// launcher/coordinator/.
#pragma once

#include <cstdint>
#include <optional>

#include "launcher/logs/journal.h"
#include "launcher/net/protocol.h"
#include "libpai/plan.h"

namespace pai::launcher::coordinator {

class JobCheckpoints {
 public:
  /// A refinement moves the interval only when the new one differs by at least this share
  /// of the current one: a mean that wanders by a few percent sends nothing.
  static constexpr double kMinChange = 0.1;

  /// Starts from the plan's faultTolerance.checkpointPlan (an unplanned plan, interval 0, is
  /// never refined).
  explicit JobCheckpoints(const CheckpointPlan& plan);

  /// What the nodes tell the ranks now.
  net::CheckpointAdvice advice() const { return advice_; }
  /// Whether the advice differs from what every rank got at its start
  /// (PAI_CHECKPOINT_INTERVAL_SECONDS, no request): then a node gets it before each start.
  bool changed() const;

  /// The job's saves so far: `saves` that stalled the ranks, `cost_seconds` their mean. The
  /// record of a refinement when the interval moves (by kMinChange, and by a second at
  /// least); nullopt otherwise, and before the first save.
  std::optional<journal::CheckpointInterval> measured(double cost_seconds, std::int64_t saves);

  /// A `checkpoint-now` request: its number, 1 and up.
  std::int64_t request();

 private:
  const CheckpointPlan& plan_;
  net::CheckpointAdvice advice_;
};

}  // namespace pai::launcher::coordinator
