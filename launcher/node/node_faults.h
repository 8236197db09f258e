// What a node agent needs to carry out a drill's faults of the node itself (docs/drill.md): a
// slow or dropped link (tc_link_shaper.h) and a full output folder (disk_filler.h), each put on
// and taken off again. system_node_faults.h is the real one; tests use a fake.
#pragma once

#include <string>

#include "libpai/drill_fault.h"

namespace pai::launcher {

class NodeFaults {
 public:
  virtual ~NodeFaults() = default;
  /// Puts `fault` (one for which carried_by_node() holds) on the node for `seconds`, replacing
  /// any other. "" when it is in place; else why not, with nothing left in place. The fault must
  /// come off by itself `seconds` (and a margin) from now even if this launcher is killed.
  virtual std::string put(DrillFault fault, int seconds) = 0;
  /// Takes the fault off; "" when it is off (or none was on), else why it could not be.
  virtual std::string remove() = 0;
  /// Where the fault is: the interface, or the file that fills the disk ("" while none is).
  virtual std::string place() const = 0;
};

}  // namespace pai::launcher
