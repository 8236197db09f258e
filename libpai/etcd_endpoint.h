// An etcd member's client URL as pai takes it (spec `coordinator.ha.etcd`,
// docs/coordinator-ha.md): http://HOST:PORT, HOST a name or a numeric address (IPv6 in
// brackets), no path. pai-compile checks the spec's list with it; the launcher's etcd client
// (launcher/ha/etcd_client.h) connects by it.
#pragma once

#include <optional>
#include <string>

namespace pai {

struct EtcdEndpoint {
  std::string host;  ///< without brackets
  int port = 0;
};

/// The endpoint `url` names, or nullopt with `*why` saying what is wrong ("expected
/// http://HOST:PORT", "https is not supported: ...").
std::optional<EtcdEndpoint> parse_etcd_endpoint(const std::string& url, std::string* why);

}  // namespace pai
