// Writing a whole buffer to a file descriptor: the one loop over short writes and EINTR that
// the compiler's atomic files, the launcher's logs and the checks' result pipes all use.
#pragma once

#include <string_view>

namespace pai {

/// Writes all of `bytes` to `fd`, retrying on EINTR and short writes. False on any other
/// error, with errno set by the failed write(2); how much was written is then unknown.
bool write_all(int fd, std::string_view bytes);

}  // namespace pai
