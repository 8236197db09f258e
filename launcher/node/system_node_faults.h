// The node's own faults as the real node carries them out: the link faults as a tc rule
// (tc_link_shaper.h), disk-full as a file filling the output folder's disk (disk_filler.h).
#pragma once

#include <string>

#include "launcher/node/disk_filler.h"
#include "launcher/node/node_faults.h"
#include "launcher/node/tc_link_shaper.h"

namespace pai::launcher {

class SystemNodeFaults final : public NodeFaults {
 public:
  /// For a node whose coordinator listens at `coordinator_address`:`coordinator_port`, of a job
  /// whose output folder is `output_dir` ("" for none).
  SystemNodeFaults(std::string coordinator_address, int coordinator_port, std::string output_dir);

  std::string put(DrillFault fault, int seconds) override;
  std::string remove() override;
  std::string place() const override;

 private:
  TcLinkShaper link_;
  DiskFiller disk_;
};

}  // namespace pai::launcher
