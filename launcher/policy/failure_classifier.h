// Failure classification (design §8): is a failed process worth restarting?
//
// Pure functions of the exit status, the tail of the process's output and the job's policy,
// so every rule is unit-tested without processes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "libpai/plan.h"

namespace pai::launcher {

/// How a process ended, as waitpid(2) reported it.
struct ExitStatus {
  int code = 0;    ///< exit code; meaningful when signal == 0
  int signal = 0;  ///< terminating signal; 0 when the process exited

  /// Decodes a waitpid(2) status word.
  static ExitStatus from_wait_status(int status);
  /// True for exit code 0.
  bool success() const { return signal == 0 && code == 0; }
  /// The shell-compatible code: `code`, or 128 + `signal`.
  int shell_code() const { return signal != 0 ? 128 + signal : code; }
};

/// "SIGTERM", or "signal 40" for a signal without a common name.
std::string signal_name(int signal);

/// "exit code 3", "signal 9 (SIGKILL)".
std::string describe(const ExitStatus& status);

/// The verdict on one failure.
struct Classification {
  bool retryable = false;
  /// Why, for people: "signal 9 (SIGKILL) from outside: retryable", "exit code 1: not
  /// retryable (no retryable error in the log)".
  std::string reason;
  /// The pattern that decided ("NCCL error"), empty when the log did not decide.
  std::string matched_pattern;
  /// The whole output line holding `matched_pattern`.
  std::string matched_line;
  /// Identifies "the same error" for maxSameError: "pattern:NCCL error", "signal:9",
  /// "exit:1", "hang".
  std::string signature;
};

/// How many trailing bytes of a failed process's output are scanned for patterns.
inline constexpr std::size_t kLogTailBytes = 64 * 1024;

/// Built-in patterns whose presence makes a failure retryable (transient: network, NCCL,
/// hardware that a restart or node replacement can fix). Matched case-insensitively.
const std::vector<std::string>& builtin_retryable_patterns();

/// Built-in patterns that make a failure NOT retryable under exitCodeAndErrorMsg even when
/// a retryable pattern also matches (deterministic program errors such as CUDA OOM).
const std::vector<std::string>& builtin_fatal_patterns();

/// Classifies a failed process (`status` not success). `log_tail` is the end of its combined
/// output (only the last kLogTailBytes are scanned, and only under exitCodeAndErrorMsg);
/// `retryable_errors` are the job's own patterns (case-insensitive substrings).
///
/// Rules: exit codes 126/127 (cannot execute / not found) are never retryable. Policy
/// `never`: nothing is retryable. `onFailure`: everything else is. `exitCode`: only a
/// SIGKILL/SIGTERM/SIGINT/SIGHUP from outside (or a shell's 128+N for them) is.
/// `exitCodeAndErrorMsg`: a fatal pattern makes it not retryable; else a retryable pattern
/// (built-in or the job's) makes it retryable; else the `exitCode` rule applies. Crashes
/// (SIGSEGV, SIGABRT, ...) are therefore retryable only under onFailure or with a matching
/// pattern.
Classification classify_failure(const ExitStatus& status, std::string_view log_tail,
                                RestartPolicy policy,
                                const std::vector<std::string>& retryable_errors);

/// Classifies a hang (no output and no progress for `seconds`, or ranks stuck exiting):
/// retryable unless the policy is `never`.
Classification classify_hang(RestartPolicy policy, std::int64_t seconds, bool while_exiting);

/// A rank that failed while the kernel's OOM killer killed in its cgroup (memory.events
/// oom_kill): "killed by the OOM killer", not retryable (the same job runs out of memory again).
Classification classify_oom_kill(const ExitStatus& status);

}  // namespace pai::launcher
