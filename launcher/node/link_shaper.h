// What a node agent needs to put a drill's link fault (slow-link, dropped-link; docs/drill.md)
// on its own node's link and take it off again. tc_link_shaper.h is the real one (a tc rule on
// the interface the node reaches the coordinator by); tests use a fake.
#pragma once

#include <string>

#include "libpai/drill_fault.h"

namespace pai::launcher {

class LinkShaper {
 public:
  virtual ~LinkShaper() = default;
  /// Puts `fault` (SlowLink or DroppedLink) on the node's link for `seconds`, the traffic with
  /// the coordinator spared. "" when it is in place; else why not, with nothing left in place.
  /// The fault must come off by itself `seconds` (and a margin) from now even if this launcher
  /// is killed.
  virtual std::string shape(DrillFault fault, int seconds) = 0;
  /// Takes the fault off; "" when it is off (or none was on), else why it could not be.
  virtual std::string unshape() = 0;
  /// The interface the fault is on ("" while none is).
  virtual std::string interface() const = 0;
};

}  // namespace pai::launcher
