#include "compiler/spec/exec_limits.h"

namespace pai {

std::string exec_string_problem(std::string_view text) {
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos) {
    return "holds a NUL byte at byte " + std::to_string(nul) +
           ": a process is given the text before it, and the env script and the launcher "
           "would disagree";
  }
  if (text.size() >= kMaxExecString) {
    return "is " + std::to_string(text.size() + 1) + " bytes with its terminating NUL, over " +
           "the kernel's limit of " + std::to_string(kMaxExecString) +
           " for one argument or NAME=value (MAX_ARG_STRLEN): exec would fail with E2BIG";
  }
  return "";
}

}  // namespace pai
