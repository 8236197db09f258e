// The checkpoint interval's arithmetic (docs/checkpoint-planning.md): Daly's interval and the
// expected ETTR of his model. Shared by the compiler's planner (compiler/plan/checkpoint_planner.h),
// which plans from the spec, and the coordinator, which refines the interval from the save
// times it measures while the job runs.
#pragma once

#include <cstdint>

namespace pai {

/// Daly's higher-order estimate of the compute time between checkpoints that minimises the
/// expected wall time, for a job MTBF `job_mtbf` and a save stall `cost` (seconds, both >= 0):
/// sqrt(2 cost M) [1 + sqrt(cost / 2M) / 3 + (cost / 2M) / 9] - cost while cost < 2M,
/// else M. Finite for every finite input; 0 when cost is 0.
double daly_interval(double job_mtbf, double cost);

/// daly_interval rounded to whole seconds, at least 1, at most 365 days: the interval the
/// plan and the ranks carry.
std::int64_t planned_interval_seconds(double job_mtbf, double cost);

/// The expected share of wall time spent training (0 to 1) when checkpointing every
/// `interval` seconds of training at `cost` seconds a save and `restart` seconds a failure,
/// failures being exponential with mean `job_mtbf` (Daly's model, failures during saves and
/// restarts included): interval / (M e^(restart/M) (e^((interval+cost)/M) - 1)). Computed in
/// logarithms: never NaN or infinite; 0 where the job cannot progress. `interval` > 0.
double expected_ettr(double interval, double cost, double restart, double job_mtbf);

}  // namespace pai
