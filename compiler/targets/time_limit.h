// A job's time limit as a scheduler sees it: pai's coordinator cancels the job at the limit
// (spec `timeLimit`), and the scheduler's own deadline (Slurm --time, Kubernetes
// activeDeadlineSeconds) comes after the stop that cancel starts, so that the job ends as pai
// cancelled it, with its reason journaled, not killed by the scheduler.
#pragma once

#include <cstdint>
#include <string>

#include "libpai/plan.h"

namespace pai {

/// Seconds a stop of the job may take: the checkpoint wait, the grace period between SIGTERM
/// and SIGKILL, and a minute for the launchers to report. A scheduler warns this long before
/// its deadline (Slurm --signal).
std::int64_t stop_lead_seconds(const Plan& plan);

/// Seconds after which the scheduler may kill the job: the time limit plus
/// stop_lead_seconds(); 0 without a limit.
std::int64_t scheduler_deadline_seconds(const Plan& plan);

/// `seconds` as Slurm's --time "D-HH:MM:SS", rounded up to whole minutes (Slurm's unit).
std::string slurm_time(std::int64_t seconds);

}  // namespace pai
