#include "launcher/checks/port_reservations.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>

namespace pai::checks {
namespace {

// The abstract address of `name` (its first byte NUL) and its length.
socklen_t abstract_address(const std::string& name, sockaddr_un* address) {
  *address = sockaddr_un{};
  address->sun_family = AF_UNIX;
  // sun_path[0] stays NUL; a name longer than the rest is cut (an address of 90 characters).
  const std::size_t length = std::min(name.size(), sizeof address->sun_path - 1);
  std::memcpy(address->sun_path + 1, name.data(), length);
  return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + length);
}

// The pid of the process listening on `name`, or 0 when it cannot be told.
pid_t holder_of(const std::string& name) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return 0;
  sockaddr_un address;
  const socklen_t length = abstract_address(name, &address);
  pid_t pid = 0;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), length) == 0) {
    ucred credentials{};
    socklen_t size = sizeof credentials;
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) == 0) pid = credentials.pid;
  }
  ::close(fd);
  return pid;
}

}  // namespace

PortReservations::~PortReservations() {
  for (const auto& [name, fd] : held_) ::close(fd);
}

std::string PortReservations::reserve(const std::string& address, int port) {
  const std::string name = "pai-port/" + std::to_string(port) + "/" + address;
  std::lock_guard<std::mutex> lock(mutex_);
  if (held_.count(name) != 0) return "";
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return std::string("cannot open a socket to reserve it: ") + std::strerror(errno);
  sockaddr_un where;
  const socklen_t length = abstract_address(name, &where);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&where), length) != 0) {
    const int error = errno;
    ::close(fd);
    if (error != EADDRINUSE) {
      return std::string("cannot reserve it: ") + std::strerror(error);
    }
    const pid_t holder = holder_of(name);
    return "reserved by another pai-launch on this host" +
           (holder > 0 ? " (pid " + std::to_string(holder) + ")" : std::string());
  }
  // Listening lets a second launcher ask who holds it; nothing is ever accepted.
  ::listen(fd, 4);
  held_[name] = fd;
  return "";
}

}  // namespace pai::checks
