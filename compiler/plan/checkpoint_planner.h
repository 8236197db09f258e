// The checkpoint interval planner (issue 34, item 2): Young/Daly's interval and the job's
// expected ETTR from its size, a node's MTBF, and the checkpoint and restart costs
// (docs/checkpoint-planning.md); the arithmetic is libpai/checkpoint_interval.h's.
#pragma once

#include <cstdint>
#include <string>

#include "libpai/plan.h"

namespace pai {

/// Fills the computed fields of plan.fault_tolerance.checkpoint_plan from its inputs and
/// plan.nodes (the job's instances; idle spares do not fail the job): job_mtbf_seconds,
/// interval_seconds (planned_interval_seconds, libpai/checkpoint_interval.h) and
/// expected_ettr at that interval.
void plan_checkpoints(Plan& plan);

/// The line pai-compile prints: "checkpoint plan: every 1h 13m (expected ETTR 96.9%, job
/// MTBF 1d 20h over 128 nodes)", with a note when the job cannot progress.
std::string checkpoint_plan_line(const CheckpointPlan& checkpoints, int nodes);

}  // namespace pai
