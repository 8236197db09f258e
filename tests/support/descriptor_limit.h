// The test process's open files limit, lowered for a test of what runs out of descriptors.
#pragma once

#include <sys/resource.h>

#include <filesystem>
#include <stdexcept>

namespace pai::testing {

/// How many descriptors this process has open.
inline int open_descriptors() {
  int n = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    ++n;
  }
  return n - 1;  // the directory_iterator's own
}

/// Lowers the soft RLIMIT_NOFILE to `soft` for its lifetime, and restores the limit it found.
/// Throws std::runtime_error when the limit cannot be lowered.
class DescriptorLimitScope {
 public:
  explicit DescriptorLimitScope(rlim_t soft) {
    if (::getrlimit(RLIMIT_NOFILE, &saved_) != 0) {
      throw std::runtime_error("getrlimit(RLIMIT_NOFILE) failed");
    }
    rlimit lowered = saved_;
    lowered.rlim_cur = soft;
    if (::setrlimit(RLIMIT_NOFILE, &lowered) != 0) {
      throw std::runtime_error("setrlimit(RLIMIT_NOFILE) failed");
    }
  }
  ~DescriptorLimitScope() { ::setrlimit(RLIMIT_NOFILE, &saved_); }
  DescriptorLimitScope(const DescriptorLimitScope&) = delete;
  DescriptorLimitScope& operator=(const DescriptorLimitScope&) = delete;

 private:
  rlimit saved_{};
};

}  // namespace pai::testing
