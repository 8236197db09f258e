// The bare target (--target bare, the default): the job runs on the spec's hosts (or
// --hosts), started by pai-launch on each, and pai-compile writes the plan and its artifacts
// only.
#pragma once

#include "compiler/targets/target.h"

namespace pai {

/// Every step of Target as its default: the spec's hosts, no checks of its own, the plan as
/// planned, no files besides the artifacts.
class BareTarget final : public Target {
 public:
  /// "bare".
  std::string_view name() const override;
};

}  // namespace pai
