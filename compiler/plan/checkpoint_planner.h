// The checkpoint interval planner (issue 34, item 2): Young/Daly's interval and the job's
// expected ETTR from its size, a node's MTBF, and the checkpoint and restart costs
// (docs/checkpoint-planning.md).
#pragma once

#include <cstdint>
#include <string>

#include "libpai/plan.h"

namespace pai {

/// Daly's higher-order estimate of the compute time between checkpoints that minimises the
/// expected wall time, for a job MTBF `job_mtbf` and a save stall `cost` (seconds, both >= 0):
/// sqrt(2 cost M) [1 + sqrt(cost / 2M) / 3 + (cost / 2M) / 9] - cost while cost < 2M,
/// else M. Finite for every finite input; 0 when cost is 0.
double daly_interval(double job_mtbf, double cost);

/// The expected share of wall time spent training (0 to 1) when checkpointing every
/// `interval` seconds of training at `cost` seconds a save and `restart` seconds a failure,
/// failures being exponential with mean `job_mtbf` (Daly's model, failures during saves and
/// restarts included): interval / (M e^(restart/M) (e^((interval+cost)/M) - 1)). Computed in
/// logarithms: never NaN or infinite; 0 where the job cannot progress. `interval` > 0.
double expected_ettr(double interval, double cost, double restart, double job_mtbf);

/// Fills the computed fields of plan.fault_tolerance.checkpoint_plan from its inputs and
/// plan.nodes (the job's instances; idle spares do not fail the job): job_mtbf_seconds,
/// interval_seconds (daly_interval rounded to whole seconds, at least 1, at most 365 days)
/// and expected_ettr at that interval.
void plan_checkpoints(Plan& plan);

/// The line pai-compile prints: "checkpoint plan: every 1h 13m (expected ETTR 96.9%, job
/// MTBF 1d 20h over 128 nodes)", with a note when the job cannot progress.
std::string checkpoint_plan_line(const CheckpointPlan& checkpoints, int nodes);

}  // namespace pai
