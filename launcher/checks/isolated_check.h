// Running a check in a forked child killed at its timeout, so that a hung driver or a dead
// peer cannot hang the launcher. The GPU checks run this way; the child is the only process
// that ever initializes CUDA, so the launcher forks its training processes from a clean state.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "launcher/checks/check_result.h"
#include "launcher/checks/child_containment.h"

namespace pai::checks {

/// Sends a one-line message (no newline in it) from a check's child to the launcher, while the
/// check runs.
using SendToParent = std::function<void(const std::string& message)>;
/// Receives, in the launcher, each message the child sent, as soon as it arrives.
using OnChildMessage = std::function<void(const std::string& message)>;

/// Runs `body` in a child process (child_process.h) and returns its result, passed back
/// through a pipe as JSON, with `seconds` set to the whole run. A child that times out, dies
/// from a signal or returns no readable result gives a Failed result named `name`:
///   "timed out after 300s (process group killed)", "killed by signal 11 (Segmentation fault)",
///   "exited with status 1 without a result".
/// What the body passes to its SendToParent reaches `on_message` while the child still runs
/// (the nccl check publishes its ncclUniqueId this way). With `containment` the child runs in a
/// place of its own, killed with all it holds when the check ends (child_process.h).
CheckResult run_isolated(const std::string& name,
                         const std::function<CheckResult(const SendToParent& send)>& body,
                         std::chrono::milliseconds timeout, const OnChildMessage& on_message,
                         ChildContainment* containment = nullptr);

/// run_isolated() for a body that sends no messages.
CheckResult run_isolated(const std::string& name, const std::function<CheckResult()>& body,
                         std::chrono::milliseconds timeout,
                         ChildContainment* containment = nullptr);

}  // namespace pai::checks
