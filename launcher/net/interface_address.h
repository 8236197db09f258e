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

/// The local interface this host reaches `host` (a name or a numeric address) through: the
/// one holding the source address the kernel's routes pick for it (a UDP socket connected to
/// it; nothing is sent). Empty with `*why` set when the host does not resolve, has no route,
/// or the source address is on no interface.
std::string interface_towards(const std::string& host, std::string* why);

}  // namespace pai::net
