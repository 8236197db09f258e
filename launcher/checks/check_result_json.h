// The JSON form of check results: what the coordinator receives, what events.jsonl records and
// what `pai-launch check --json` prints.
//
//   {"name": "burn", "status": "passed", "summary": "...", "figure": "412.3 TFLOPS",
//    "seconds": 20.4, "detail": "...", "facts": {"driver": "550.54.15"}}
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "launcher/checks/check_result.h"

namespace pai::checks {

/// A check result text that cannot be read back; what() names the field.
class CheckResultError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One result as a compact JSON object.
std::string to_json(const CheckResult& result);
/// Several results as a compact JSON array, in order.
std::string to_json(const std::vector<CheckResult>& results);

/// Parses what to_json(const CheckResult&) wrote. Throws CheckResultError for invalid JSON,
/// a missing or mistyped field or an unknown status.
CheckResult result_from_json(const std::string& text);
/// Parses what to_json(const std::vector<CheckResult>&) wrote; CheckResultError as above.
std::vector<CheckResult> results_from_json(const std::string& text);

}  // namespace pai::checks
