// The checkpoint interval planner (issue 34, item 2): Young/Daly's interval and the job's
// expected ETTR from its size, a node's MTBF, and the checkpoint and restart costs
// (docs/checkpoint-planning.md); the arithmetic is libpai/checkpoint_interval.h's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "libpai/plan.h"

namespace pai {

/// Fills the computed fields of plan.fault_tolerance.checkpoint_plan from its inputs and
/// plan.nodes (the job's instances; idle spares do not fail the job): job_mtbf_seconds,
/// interval_seconds (planned_interval_seconds, libpai/checkpoint_interval.h) and
/// expected_ettr at that interval. Unless `node_mtbf_stated`, the node MTBF comes from the
/// hosts' check histories when the plan keeps them and they say enough
/// (compiler/plan/history_mtbf.h); what reading them skipped goes to `warnings` (if given).
void plan_checkpoints(Plan& plan, bool node_mtbf_stated = false,
                      std::vector<std::string>* warnings = nullptr);

/// The line pai-compile prints: "checkpoint plan: every 1h 13m (expected ETTR 96.9%, job
/// MTBF 1d 20h over 128 nodes)", with a note when the job cannot progress.
std::string checkpoint_plan_line(const CheckpointPlan& checkpoints, int nodes);

}  // namespace pai
