#include "launcher/coordinator/peer_address.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstring>

namespace pai::launcher::coordinator {

std::optional<std::string> numeric_address(const std::string& text) {
  char out[INET6_ADDRSTRLEN];
  in_addr v4{};
  if (inet_pton(AF_INET, text.c_str(), &v4) == 1) {
    return inet_ntop(AF_INET, &v4, out, sizeof out) ? std::optional<std::string>(out)
                                                    : std::nullopt;
  }
  in6_addr v6{};
  if (inet_pton(AF_INET6, text.c_str(), &v6) != 1) return std::nullopt;
  // A dual-stack listener reports IPv4 peers as ::ffff:a.b.c.d; compare them as IPv4.
  if (IN6_IS_ADDR_V4MAPPED(&v6)) {
    std::memcpy(&v4, &v6.s6_addr[12], sizeof v4);
    return inet_ntop(AF_INET, &v4, out, sizeof out) ? std::optional<std::string>(out)
                                                    : std::nullopt;
  }
  return inet_ntop(AF_INET6, &v6, out, sizeof out) ? std::optional<std::string>(out) : std::nullopt;
}

}  // namespace pai::launcher::coordinator
