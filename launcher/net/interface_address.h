// The numeric addresses of one network interface: where a node's data-plane traffic (the
// fabric's interface, NCCL_SOCKET_IFNAME) comes from and goes to.
#pragma once

#include <string>
#include <vector>

namespace pai::net {

/// The IPv4 and IPv6 addresses of interface `name` (getifaddrs), IPv4 first, IPv6
/// link-local addresses left out (no use without a scope); empty when it has none or does
/// not exist.
std::vector<std::string> interface_addresses(const std::string& name);

}  // namespace pai::net
