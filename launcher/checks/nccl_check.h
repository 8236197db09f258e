// The `nccl` check: a float32 sum all-reduce across GPUs, verified and timed as nccl-tests does.
#pragma once

#include <cstdint>

#include "launcher/checks/check_options.h"
#include "launcher/checks/check_result.h"
#include "libpai/plan.h"

namespace pai::checks {

/// Timed all-reduce iterations after one warm-up.
inline constexpr int kNcclIterations = 5;

/// Runs the all-reduce of sanityCheck.nccl.size bytes per GPU in a child process killed at
/// `timeout_seconds`. With options.nccl it joins the job-wide communicator (this node's GPUs
/// are ranks first_rank...; on the node of rank 0 the check makes the ncclUniqueId and hands it
/// to publish_unique_id); without, it all-reduces across this node's GPUs only. The
/// communicator is non-blocking and aborted at the deadline, so a peer that never joins fails
/// the check instead of hanging it. Rank r contributes r + 1 everywhere; every element must come
/// back as n(n+1)/2. Fails below sanityCheck.nccl.minBusBandwidthGBps. Skipped without a CUDA
/// driver, without NCCL, or with fewer than two GPUs in the all-reduce.
CheckResult run_nccl_check(const Plan& plan, const CheckOptions& options,
                           std::int64_t timeout_seconds);

/// The fabric check's NCCL engine for one pair of nodes (design §12, issue 15): the same
/// all-reduce over both nodes' GPUs, joined as options.nccl says (the listening node makes
/// the id and hands it to publish_unique_id, its partner joins with it), in a child process
/// killed at `timeout_seconds`. No floor here: the coordinator judges the pair. Returns the
/// bus bandwidth in GB/s; throws std::runtime_error with one line when the all-reduce fails
/// or cannot run on this node ("NCCL engine: no NCCL (...)").
double run_nccl_pair(const Plan& plan, const CheckOptions& options, std::int64_t timeout_seconds);

}  // namespace pai::checks
