// `pai-launch ctl ...`: the control-socket client for training processes.
#pragma once

#include <string>
#include <vector>

namespace pai::launcher {

/// Sends one request to the socket named by $PAI_CONTROL_SOCKET: `words` are the request
/// verb and its arguments (`notify loss is NaN`, `progress 1200`, `hang-interval 2h`).
/// Returns 0 on `ok`; 1 when the launcher answers an error or cannot be reached; 2 for a
/// malformed request or a missing PAI_CONTROL_SOCKET. Messages go to stderr.
int ctl_command(const std::vector<std::string>& words);

}  // namespace pai::launcher
