// CheckResult: the outcome of one sanity check on one node, a plain value the coordinator
// carries (its JSON form is in check_result_json.h).
#pragma once

#include <map>
#include <string>

namespace pai::checks {

/// The outcome of one check. `summary` is one line; `figure` is the headline number of the
/// check ("8x NVIDIA H100 80GB HBM3", "412.3 TFLOPS", "186.2 GB/s"), empty when none;
/// `detail` holds what helps diagnose a failure (an output tail, per-GPU lines); `facts`
/// are values compared across nodes by the coordinator (driver version, GPU model).
struct CheckResult {
  /// Passed: the node is fit for this check. Failed: it is not. Skipped: the check could not
  /// or need not run here (no CUDA driver, nothing to check); never a reason to replace a node.
  enum Status { Passed, Failed, Skipped };

  std::string name;
  Status status = Skipped;
  std::string summary;
  std::string figure;
  double seconds = 0;
  std::string detail;
  std::map<std::string, std::string> facts;
};

/// "passed", "failed" or "skipped".
const char* to_string(CheckResult::Status status);

/// A result named `name` with `status` and `summary`, everything else empty.
CheckResult make_result(std::string name, CheckResult::Status status, std::string summary);

}  // namespace pai::checks
