#include "launcher/policy/restart_backoff.h"

#include <algorithm>

namespace pai::launcher {

bool one_off_failure(const std::string& signature) {
  return signature == "signal:9" || signature == "node-lost";
}

std::int64_t restart_backoff(std::int64_t backoff, const std::string& signature, int same) {
  if (backoff <= 0) return 0;
  // Repeats of this failure before this one; a one-off's first repeat waits the plain backoff.
  int doublings = std::max(0, same - 1);
  if (one_off_failure(signature)) {
    if (same <= 1) return 0;
    doublings -= 1;
  }
  const std::int64_t cap = std::max(backoff, kMaxBackoffSeconds);
  std::int64_t wait = backoff;
  for (int i = 0; i < doublings && wait < cap; ++i) wait *= 2;
  return std::min(wait, cap);
}

}  // namespace pai::launcher
