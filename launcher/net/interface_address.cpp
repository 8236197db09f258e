#include "launcher/net/interface_address.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace pai::net {

std::vector<std::string> interface_addresses(const std::string& name) {
  std::vector<std::string> v4;
  std::vector<std::string> v6;
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return {};
  for (const ifaddrs* a = list; a != nullptr; a = a->ifa_next) {
    if (a->ifa_addr == nullptr || name != a->ifa_name) continue;
    const int family = a->ifa_addr->sa_family;
    char text[INET6_ADDRSTRLEN] = {};
    if (family == AF_INET) {
      const auto* in = reinterpret_cast<const sockaddr_in*>(a->ifa_addr);
      if (::inet_ntop(AF_INET, &in->sin_addr, text, sizeof text)) v4.emplace_back(text);
    } else if (family == AF_INET6) {
      const auto* in6 = reinterpret_cast<const sockaddr_in6*>(a->ifa_addr);
      if (IN6_IS_ADDR_LINKLOCAL(&in6->sin6_addr)) continue;
      if (::inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof text)) v6.emplace_back(text);
    }
  }
  ::freeifaddrs(list);
  v4.insert(v4.end(), v6.begin(), v6.end());
  return v4;
}

namespace {

bool same_address(const sockaddr* a, const sockaddr_storage& b) {
  if (a->sa_family != b.ss_family) return false;
  if (a->sa_family == AF_INET) {
    return reinterpret_cast<const sockaddr_in*>(a)->sin_addr.s_addr ==
           reinterpret_cast<const sockaddr_in*>(&b)->sin_addr.s_addr;
  }
  return a->sa_family == AF_INET6 &&
         std::memcmp(&reinterpret_cast<const sockaddr_in6*>(a)->sin6_addr,
                     &reinterpret_cast<const sockaddr_in6*>(&b)->sin6_addr, sizeof(in6_addr)) == 0;
}

}  // namespace

std::string interface_towards(const std::string& host, std::string* why) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* found = nullptr;
  if (const int rc = ::getaddrinfo(host.c_str(), "9", &hints, &found); rc != 0) {
    *why = host + " does not resolve: " + ::gai_strerror(rc);
    return "";
  }
  sockaddr_storage local{};
  socklen_t length = sizeof local;
  const int fd = ::socket(found->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  const bool routed = fd >= 0 && ::connect(fd, found->ai_addr, found->ai_addrlen) == 0 &&
                      ::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &length) == 0;
  const int error = errno;
  if (fd >= 0) ::close(fd);
  ::freeaddrinfo(found);
  if (!routed) {
    *why = "no route to " + host + ": " + std::strerror(error);
    return "";
  }
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) {
    *why = std::string("cannot list the interfaces: ") + std::strerror(errno);
    return "";
  }
  std::string name;
  for (const ifaddrs* a = list; a != nullptr && name.empty(); a = a->ifa_next) {
    if (a->ifa_addr != nullptr && same_address(a->ifa_addr, local)) name = a->ifa_name;
  }
  ::freeifaddrs(list);
  if (name.empty()) *why = "the address this host reaches " + host + " from is on no interface";
  return name;
}

}  // namespace pai::net
