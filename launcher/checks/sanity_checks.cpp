#include "launcher/checks/sanity_checks.h"

#include <algorithm>
#include <stdexcept>

#include "launcher/checks/burn_check.h"
#include "launcher/checks/custom_check.h"
#include "launcher/checks/gpu_check.h"
#include "launcher/checks/nccl_check.h"
#include "launcher/checks/network_check.h"
#include "launcher/checks/node_fingerprint.h"
#include "launcher/checks/storage_check.h"

namespace pai::checks {
namespace {

bool contains(const std::vector<std::string>& list, const std::string& name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

}  // namespace

std::vector<CheckResult> run_sanity_checks(const Plan& plan, const Placement& placement,
                                           const CheckOptions& options) {
  std::vector<std::string> wanted = options.only;
  if (wanted.empty()) {
    wanted = plan.sanity_check.checks;
    wanted.push_back("custom");
    wanted.push_back("fingerprint");
  }
  for (const auto& name : wanted) {
    if (!contains(kCheckNames, name)) throw std::invalid_argument("unknown check \"" + name + "\"");
  }
  std::int64_t timeout =
      options.timeout_seconds > 0 ? options.timeout_seconds : plan.sanity_check.timeout_seconds;

  std::vector<CheckResult> results;
  std::vector<std::string> done;
  for (const auto& name : wanted) {
    if (contains(done, name)) continue;
    done.push_back(name);
    if (name == "gpu") {
      results.push_back(run_gpu_check(plan, placement, options, timeout));
    } else if (name == "burn") {
      results.push_back(run_burn_check(plan, options, timeout));
    } else if (name == "nccl") {
      results.push_back(run_nccl_check(plan, options, timeout));
    } else if (name == "network") {
      results.push_back(run_network_check(plan, placement, options));
    } else if (name == "mounts") {
      results.push_back(run_mounts_check(plan));
    } else if (name == "disk") {
      results.push_back(run_disk_check(plan));
    } else if (name == "fingerprint") {
      results.push_back(run_fingerprint_check(plan, placement, options));
    } else {
      for (const auto& check : plan.sanity_check.custom)
        results.push_back(run_custom_check(check, options.containment));
    }
  }
  return results;
}

bool all_passed(const std::vector<CheckResult>& results) {
  return std::none_of(results.begin(), results.end(),
                      [](const CheckResult& r) { return r.status == CheckResult::Failed; });
}

}  // namespace pai::checks
