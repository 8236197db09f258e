#include "launcher/os/descriptor_reserve.h"

#include <fcntl.h>
#include <unistd.h>

namespace pai::launcher {

DescriptorReserve::DescriptorReserve(int count) {
  for (int i = 0; i < count; ++i) {
    const int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (fd < 0) break;
    fds_.push_back(fd);
  }
}

DescriptorReserve::~DescriptorReserve() { release(); }

void DescriptorReserve::release() {
  for (int fd : fds_) ::close(fd);
  fds_.clear();
}

}  // namespace pai::launcher
