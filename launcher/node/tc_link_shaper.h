// A drill's link fault as a tc rule (docs/drill.md): on the egress of the interface this node
// reaches the coordinator by, an HTB root qdisc (handle 7ead:) sends every IP packet but those to
// or from the coordinator's port (and ICMPv6) into a class limited to kSlowLinkRate (slow-link),
// or (dropped-link) redirects them back in as if received (mirred), where they are not for this
// host and go: a black hole past the NIC, as TCP sees it (kernels built without netem or the
// gact drop action still have htb, u32 and mirred). ARP and the like pass. Needs
// CAP_NET_ADMIN, and an interface of the node's own: on loopback the rule would hit every local
// connection, the other "nodes" too. Traffic that bypasses the kernel (RDMA verbs) is not
// touched. A delayed undo (delayed_undo.h: `tc qdisc del ... handle 7ead:`) takes the rule off
// if this launcher dies first.
#pragma once

#include <string>
#include <vector>

#include "launcher/node/delayed_undo.h"
#include "libpai/drill_fault.h"

namespace pai::launcher {

/// The tc commands (without the program) that put `fault` on `interface`, sparing the traffic
/// to and from TCP/UDP port `spared_port`, in order.
std::vector<std::vector<std::string>> tc_fault_commands(DrillFault fault,
                                                        const std::string& interface,
                                                        int spared_port);
/// The tc command (without the program) that takes it off again, and only it (by its handle).
std::vector<std::string> tc_undo_command(const std::string& interface);

class TcLinkShaper {
 public:
  /// For a node whose coordinator listens at `coordinator_address`:`coordinator_port`.
  TcLinkShaper(std::string coordinator_address, int coordinator_port);
  /// Takes a fault still on off.
  ~TcLinkShaper();
  TcLinkShaper(const TcLinkShaper&) = delete;
  TcLinkShaper& operator=(const TcLinkShaper&) = delete;

  /// Puts `fault` (SlowLink, DroppedLink) on for `seconds`, replacing one that is on: "" done,
  /// else why not, nothing left in place.
  std::string shape(DrillFault fault, int seconds);
  /// Takes it off: "" done (or none was on), else what tc said.
  std::string unshape();
  /// The interface the fault is on ("" while none is).
  const std::string& interface() const { return interface_; }

 private:
  std::string coordinator_address_;
  int coordinator_port_;
  std::string tc_;         // the tc program, found once
  std::string interface_;  // while a fault is on
  DelayedUndo undo_;
};

}  // namespace pai::launcher
