// What execve(2) takes (design §5): each argument and each environment entry NAME=value is one
// string of at most MAX_ARG_STRLEN bytes with its terminating NUL, and a NUL inside one ends it
// early, so the rank would see a shorter value than the env script's `export`. The compiler
// refuses both, at the field, instead of a launch that fails with E2BIG on every node or ranks
// that disagree with their env script.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace pai {

/// linux/binfmts.h: MAX_ARG_STRLEN is PAGE_SIZE * 32, 131,072 bytes with 4 KiB pages (the
/// smallest page any Linux target of pai uses, so the limit holds everywhere).
inline constexpr std::size_t kMaxExecString = 32 * 4096;

/// "" when `text` (an argument, or NAME=value) can be one execve string; else why not, in
/// words for an error at the field: "is 140000 bytes, over ..." or "holds a NUL byte at ...".
std::string exec_string_problem(std::string_view text);

}  // namespace pai
