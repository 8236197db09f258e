#include "launcher/checks/isolated_check.h"

#include <unistd.h>

#include <exception>
#include <string_view>

#include "launcher/checks/check_result_json.h"
#include "launcher/checks/child_process.h"
#include "libpai/write_all.h"

namespace pai::checks {
namespace {

// Results are small; anything near this size is garbage, not a result.
constexpr std::size_t kResultCap = 4 << 20;
constexpr std::string_view kMessagePrefix = "message ";

}  // namespace

CheckResult run_isolated(const std::string& name,
                         const std::function<CheckResult(const SendToParent& send)>& body,
                         std::chrono::milliseconds timeout, const OnChildMessage& on_message,
                         ChildContainment* containment) {
  // The pipe carries zero or more "message <text>" lines, then the result's JSON, which a
  // compact dump keeps on one line.
  std::string pending;
  auto on_output = [&](std::string_view chunk) {
    if (!on_message) return;
    pending.append(chunk);
    std::size_t end;
    while ((end = pending.find('\n')) != std::string::npos) {
      std::string line = pending.substr(0, end);
      pending.erase(0, end + 1);
      if (line.rfind(kMessagePrefix, 0) == 0) on_message(line.substr(kMessagePrefix.size()));
    }
  };
  ChildOutcome outcome = run_in_child(
      [&](int fd) {
        SendToParent send = [fd](const std::string& message) {
          write_all(fd, std::string(kMessagePrefix) + message + "\n");
        };
        CheckResult result;
        try {
          result = body(send);
        } catch (const std::exception& e) {
          result = make_result(name, CheckResult::Failed, e.what());
        }
        return write_all(fd, to_json(result)) ? 0 : 1;
      },
      timeout, kResultCap, on_output, containment);
  CheckResult result;
  bool parsed = false;
  if (outcome.ending == ChildOutcome::Exited && outcome.code == 0) {
    std::size_t last_line = outcome.output.rfind('\n');
    try {
      result = result_from_json(
          last_line == std::string::npos ? outcome.output : outcome.output.substr(last_line + 1));
      parsed = true;
    } catch (const CheckResultError&) {
      parsed = false;
    }
  }
  if (!parsed) {
    std::string why = describe_ending(outcome, timeout);
    if (outcome.ending == ChildOutcome::Exited) why += " without a result";
    result = make_result(name, CheckResult::Failed, why);
    result.detail = outcome.output.substr(0, 4096);
  }
  result.seconds = outcome.seconds;
  return result;
}

CheckResult run_isolated(const std::string& name, const std::function<CheckResult()>& body,
                         std::chrono::milliseconds timeout, ChildContainment* containment) {
  return run_isolated(
      name, [&body](const SendToParent&) { return body(); }, timeout, {}, containment);
}

}  // namespace pai::checks
