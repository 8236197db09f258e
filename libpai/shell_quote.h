// POSIX shell quoting.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pai {

/// `s` as one word for any POSIX shell (sh, dash, bash): single-quoted, with each ' written
/// as '"'"'. Words made only of safe characters ([A-Za-z0-9_@%+=:,./-], not starting with
/// '-') are returned as they are. Any byte string round-trips exactly, NUL excepted.
std::string shell_quote(std::string_view s);

/// shell_quote(s) appended to `out`, with no string of its own (for renderers that quote
/// thousands of values).
void append_shell_quoted(std::string& out, std::string_view s);

/// The words quoted and joined by single spaces.
std::string shell_join(const std::vector<std::string>& words);

}  // namespace pai
