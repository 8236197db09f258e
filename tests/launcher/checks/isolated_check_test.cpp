#include "launcher/checks/isolated_check.h"

#include <signal.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <stdexcept>
#include <vector>

namespace isolated_check_test {

using namespace pai::checks;
using namespace std::chrono_literals;

TEST_CASE("a check run in a child returns its result") {
  CheckResult r = run_isolated(
      "gpu",
      [] {
        CheckResult result =
            make_result("gpu", CheckResult::Passed, "pid " + std::to_string(getpid()));
        result.facts["driver"] = "1.2.3";
        return result;
      },
      5s);
  CHECK(r.status == CheckResult::Passed);
  CHECK(r.summary != "pid " + std::to_string(getpid()));
  CHECK(r.facts.at("driver") == "1.2.3");
  CHECK(r.seconds > 0);
}

TEST_CASE("a check that hangs fails at its timeout") {
  CheckResult r = run_isolated(
      "nccl",
      [] {
        sleep(30);
        return make_result("nccl", CheckResult::Passed, "never");
      },
      200ms);
  CHECK(r.name == "nccl");
  CHECK(r.status == CheckResult::Failed);
  CHECK(r.summary == "timed out after 200ms (process group killed)");
}

TEST_CASE("a check that crashes fails with the signal") {
  CheckResult r = run_isolated(
      "burn",
      [] {
        raise(SIGABRT);
        return make_result("burn", CheckResult::Passed, "never");
      },
      5s);
  CHECK(r.status == CheckResult::Failed);
  CHECK(r.summary == "killed by signal 6 (Aborted)");
}

TEST_CASE("a check that throws fails with the exception's message") {
  CheckResult r = run_isolated(
      "gpu", []() -> CheckResult { throw std::runtime_error("driver exploded"); }, 5s);
  CHECK(r.status == CheckResult::Failed);
  CHECK(r.name == "gpu");
  CHECK(r.summary == "driver exploded");
}

TEST_CASE("a check that exits without writing a result fails") {
  CheckResult r = run_isolated(
      "gpu", []() -> CheckResult { _exit(0); }, 5s);
  CHECK(r.status == CheckResult::Failed);
  CHECK(r.summary == "exited with status 0 without a result");
}

TEST_CASE("messages from the child arrive while it runs - before its result") {
  std::vector<std::string> messages;
  CheckResult r = run_isolated(
      "nccl",
      [](const SendToParent& send) {
        send("first");
        send("second one");
        return make_result("nccl", CheckResult::Passed, "done");
      },
      std::chrono::seconds(5), [&](const std::string& m) { messages.push_back(m); });
  CHECK(messages == std::vector<std::string>{"first", "second one"});
  CHECK(r.status == CheckResult::Passed);
  CHECK(r.summary == "done");
}

}  // namespace isolated_check_test
