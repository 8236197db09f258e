// Reading a hung rank's stacks (design §12, hang forensics): is the rank waiting inside a
// collective, or busy (or stuck) outside any? A pure function of the stack text that
// faulthandler, py-spy, eu-stack or gdb printed; the rank whose stack is outside while the
// others wait in collectives is the culprit of the hang, with or without telemetry.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "libpai/enum_names.h"

namespace pai::launcher {

/// Where a rank's stack stands.
enum class StackPlace {
  Unknown,     ///< no stack could be read
  Collective,  ///< inside a collective (torch.distributed, c10d::, gloo::, nccl, MPI)
  Outside,     ///< a stack was read and no frame of it is a collective
};

/// What a stack says, and the frame that says it.
struct StackVerdict {
  StackPlace place = StackPlace::Unknown;
  /// Collective: its innermost collective frame; Outside: the innermost frame of the thread
  /// judged (for Python, of the thread faulthandler calls current or py-spy's MainThread);
  /// Unknown: empty. At most kMaxFrameText bytes.
  std::string frame;
  bool operator==(const StackVerdict&) const = default;
};

/// Longest StackVerdict::frame kept.
inline constexpr std::size_t kMaxFrameText = 200;

/// Judges Python stacks: faulthandler's dump ("Current thread 0x... (most recent call
/// first):" / `  File "x.py", line 3 in f`) or `py-spy dump`'s (`    f (x.py:3)`). Inside a
/// collective when any thread has a frame of a torch.distributed collective (all_reduce,
/// broadcast, barrier, all_gather, reduce_scatter, all_to_all, ... or wait, send, recv,
/// reduce, gather, scatter in a torch/distributed file); other text in `text` (the rank's
/// own output around the dump) is ignored. Unknown when no frame is found.
StackVerdict judge_python_stack(std::string_view text);

/// Judges native stacks of process `pid`: eu-stack's ("TID 123:" / "#0  0x... symbol") or
/// gdb's ("Thread 1 (Thread 0x... (LWP 123) ...):" / "#0  0x... in symbol (...)"). Only the
/// main thread (TID == pid; gdb's thread 1 when no LWP matches) counts: library threads of
/// gloo or NCCL idle in their own loops in every rank. Inside a collective when a frame of
/// it names c10d, gloo, nccl or an MPI collective (mangled or not). Unknown when the main
/// thread has no frame.
StackVerdict judge_native_stack(std::string_view text, int pid);

/// One rank's verdict from both: Collective when either says so (DDP waits for its
/// all-reduce under Python's `backward`, which only the native stack shows), else Outside
/// when either read a stack, else Unknown.
StackVerdict combine_verdicts(const StackVerdict& python, const StackVerdict& native);

/// A rank and its verdict.
struct RankStackVerdict {
  int rank = 0;  ///< global
  StackVerdict verdict;
  bool operator==(const RankStackVerdict&) const = default;
};

/// The culprits of a hang from the stacks alone: the ranks Outside, in rank order, when at
/// least one other rank is in a Collective; none otherwise (everyone outside, everyone
/// waiting, or nothing known).
std::vector<int> stack_culprits(const std::vector<RankStackVerdict>& ranks);

/// The ranks at `place`, in rank order, as the journal writes them: "0,2,3"; "" for none.
std::string ranks_at(const std::vector<RankStackVerdict>& ranks, StackPlace place);

/// One sentence naming the stack_culprits() and what shows it: "rank 1 is outside any
/// collective (at <module> (train.py:8)) while 3 ranks wait in one (rank 0 at
/// c10d::Reducer::finalize_backward())"; "" when there is no culprit.
std::string stack_evidence(const std::vector<RankStackVerdict>& ranks);

}  // namespace pai::launcher

namespace pai {

/// "unknown", "collective", "outside": the wire, journal and file form (pai::to_string,
/// pai::enum_from_string).
template <>
struct EnumNames<launcher::StackPlace> {
  static constexpr std::array<EnumName<launcher::StackPlace>, 3> table{
      {{launcher::StackPlace::Unknown, "unknown"},
       {launcher::StackPlace::Collective, "collective"},
       {launcher::StackPlace::Outside, "outside"}}};
};

}  // namespace pai
