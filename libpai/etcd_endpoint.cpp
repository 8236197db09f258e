#include "libpai/etcd_endpoint.h"

#include <charconv>

namespace pai {

std::optional<EtcdEndpoint> parse_etcd_endpoint(const std::string& url, std::string* why) {
  const std::string scheme = "http://";
  if (url.rfind("https://", 0) == 0) {
    *why = "https is not supported: pai's etcd client speaks http:// to the members' client URLs";
    return std::nullopt;
  }
  *why = "expected http://HOST:PORT";
  if (url.rfind(scheme, 0) != 0) return std::nullopt;
  std::string rest = url.substr(scheme.size());
  if (!rest.empty() && rest.back() == '/') rest.pop_back();
  const std::size_t colon = rest.rfind(':');
  if (colon == std::string::npos || colon == 0) return std::nullopt;
  int port = 0;
  const char* end = rest.data() + rest.size();
  if (std::from_chars(rest.data() + colon + 1, end, port).ptr != end || colon + 1 == rest.size() ||
      port < 1 || port > 65535) {
    return std::nullopt;
  }
  std::string host = rest.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  } else if (host.find_first_of(":[]") != std::string::npos) {
    return std::nullopt;
  }
  if (host.find_first_of("/?#@ ") != std::string::npos) return std::nullopt;
  why->clear();
  return EtcdEndpoint{host, port};
}

}  // namespace pai
