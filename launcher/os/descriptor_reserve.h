// Descriptors held back for the way out of running out of them.
#pragma once

#include <vector>

namespace pai::launcher {

/// A process that hits its open files limit still needs a few descriptors to stop what it
/// started, journal why and say so (and the sanitizers check a pointer by writing it into a
/// pipe: without two free descriptors they report every virtual call as an invalid object).
/// Holds `count` descriptors on /dev/null, close-on-exec, until release().
class DescriptorReserve {
 public:
  explicit DescriptorReserve(int count);
  ~DescriptorReserve();
  DescriptorReserve(const DescriptorReserve&) = delete;
  DescriptorReserve& operator=(const DescriptorReserve&) = delete;

  /// Closes the held descriptors; call it first on EMFILE, before anything that may open one.
  void release();

  /// How many descriptors are held now (fewer than asked when the limit was already near).
  int held() const { return static_cast<int>(fds_.size()); }

 private:
  std::vector<int> fds_;
};

}  // namespace pai::launcher
