// The OpenPAI fields a translation leaves out, reported together.
//
// A job file from OpenPAI's marketplace has a dozen fields with no meaning on bare metal
// (virtual clusters, HiveD SKUs, job metadata); one warning per file lists them all, each
// with its place and why, instead of a dozen warnings.
#pragma once

#include <string>
#include <vector>

#include "compiler/document/diagnostics.h"
#include "compiler/document/document.h"

namespace pai {

class DroppedFields {
 public:
  /// Records that the field at `path`, written at `loc`, is dropped because of `reason`
  /// (a short clause, "" for none).
  void add(const Location& loc, std::string path, std::string reason);
  /// Reports one warning, located at the first field recorded, that lists every dropped
  /// field as "path (line:col, reason)"; nothing when none was recorded.
  void report(Diagnostics& diags) const;

 private:
  struct Field {
    Location loc;
    std::string path;
    std::string reason;
  };
  std::vector<Field> fields_;
};

}  // namespace pai
