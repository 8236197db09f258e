// Comparing a plan host's address with the address a connection comes from. Internal to
// launcher/coordinator/.
#pragma once

#include <optional>
#include <string>

namespace pai::launcher::coordinator {

/// The canonical text of a numeric IPv4 or IPv6 address ("::ffff:10.0.0.1" -> "10.0.0.1",
/// "fe80:0::1" -> "fe80::1"), or nullopt when `text` is not numeric (a DNS name).
std::optional<std::string> numeric_address(const std::string& text);

}  // namespace pai::launcher::coordinator
