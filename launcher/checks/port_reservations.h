// Ports a launcher checked, held from its network check until it exits, so that two jobs
// started together on one host cannot both pass the check on the same ports (the check probes
// a port and lets it go; the ranks bind it seconds later).
//
// A reservation is an abstract Unix socket named after the address and port
// ("\0pai-port/<port>/<address>"), bound and listening: the kernel lets one process of a
// network namespace bind a name, as it does a port, frees it when that process dies however
// it dies, and tells a second launcher who holds it (SO_PEERCRED). It binds no TCP port: the
// ranks and the coordinator bind theirs as before. The descriptors are close-on-exec and no
// rank or check command gets them (libpai/inherited_fds.h).
#pragma once

#include <map>
#include <mutex>
#include <string>

namespace pai::checks {

class PortReservations {
 public:
  PortReservations() = default;
  /// Releases every reservation.
  ~PortReservations();
  PortReservations(const PortReservations&) = delete;
  PortReservations& operator=(const PortReservations&) = delete;

  /// Reserves `port` on `address` (as the plan names the node) for as long as this object
  /// lives. "" when it is held now (also when this object held it already); otherwise why
  /// not: "reserved by another pai-launch on this host (pid 1234)", the pid left out when
  /// the holder cannot be asked. Safe to call from several threads.
  std::string reserve(const std::string& address, int port);

 private:
  std::mutex mutex_;
  std::map<std::string, int> held_;  // abstract name -> listening socket
};

}  // namespace pai::checks
