// Running a piece of work in a forked child under a memory cap and a time cap, for work whose
// cost the input decides and that has no limits of its own (Jsonnet evaluation, design §11:
// "every limit is explicit").
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace pai {

/// The caps of one child.
struct ChildCaps {
  /// The child's address space (RLIMIT_AS) in bytes; 0 = no memory cap. Not applied in builds
  /// with PAI_SANITIZE: AddressSanitizer reserves terabytes of address space up front, so any
  /// RLIMIT_AS would fail its first allocation. There only the time cap holds.
  std::int64_t max_memory_bytes = 0;
  /// How long the child may run before it is killed with SIGKILL.
  std::chrono::milliseconds timeout{60'000};
};

/// How a capped child ended.
enum class ChildOutcome {
  Done,         ///< `work` returned; the result's output is what it returned
  OutOfMemory,  ///< an allocation (operator new) failed under the memory cap
  TimedOut,     ///< still running at the deadline, killed with SIGKILL
  Failed,       ///< `work` threw (output: what()), or the child died otherwise (output says how)
};

struct ChildResult {
  ChildOutcome outcome = ChildOutcome::Failed;
  std::string output;
};

/// Forks a child that applies `caps`, runs `work` and sends what it returns back through a
/// pipe; the parent reads until the child is done or the deadline passes, and always reaps the
/// child. In the child a failed operator new ends the child at once (no unwinding, which
/// could itself allocate), so that running out of memory anywhere reads as OutOfMemory.
/// Throws std::runtime_error when the child cannot be started. For single-threaded callers
/// only (pai-compile): a forked copy of a multi-threaded process may deadlock in malloc.
ChildResult run_capped(const ChildCaps& caps, const std::function<std::string()>& work);

}  // namespace pai
