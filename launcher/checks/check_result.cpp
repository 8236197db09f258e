#include "launcher/checks/check_result.h"

#include <utility>

namespace pai::checks {

const char* to_string(CheckResult::Status status) {
  switch (status) {
    case CheckResult::Passed:
      return "passed";
    case CheckResult::Failed:
      return "failed";
    case CheckResult::Skipped:
      return "skipped";
  }
  return "skipped";
}

CheckResult make_result(std::string name, CheckResult::Status status, std::string summary) {
  CheckResult result;
  result.name = std::move(name);
  result.status = status;
  result.summary = std::move(summary);
  return result;
}

}  // namespace pai::checks
