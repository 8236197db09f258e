#include "launcher/os/fd.h"

#include <fcntl.h>
#include <unistd.h>

namespace pai::launcher {

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

void set_nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

}  // namespace pai::launcher
