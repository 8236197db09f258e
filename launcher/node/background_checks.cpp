#include "launcher/node/background_checks.h"

#include <fcntl.h>
#include <unistd.h>

#include <stdexcept>
#include <utility>

#include "launcher/checks/history_check.h"
#include "launcher/checks/sanity_checks.h"

namespace pai::launcher {

BackgroundChecks::BackgroundChecks(const Plan& plan, std::string node, Supervisor& supervisor)
    : plan_(plan), node_(std::move(node)), supervisor_(supervisor) {}

BackgroundChecks::~BackgroundChecks() {
  if (thread_.joinable()) thread_.join();
  for (int fd : pipe_) {
    if (fd >= 0) ::close(fd);
  }
}

void BackgroundChecks::start(const Placement& placement, const checks::CheckOptions& options,
                             Done done) {
  if (thread_.joinable()) return;
  // The supervisor then waits only for its own pids; the checks wait for theirs.
  supervisor_.set_reap_known_only(true);
  if (pipe_[0] < 0 && ::pipe2(pipe_, O_CLOEXEC) != 0) {
    throw std::runtime_error("cannot create a pipe for the sanity checks");
  }
  done_ = std::move(done);
  EventLoop& loop = supervisor_.loop();
  loop.watch(pipe_[0], [this, &loop] {
    char byte;
    if (::read(pipe_[0], &byte, 1) != 1) return;
    loop.unwatch(pipe_[0]);
    thread_.join();
    supervisor_.set_reap_known_only(false);
    done_(std::move(results_));
  });
  thread_ = std::thread([this, placement, options] {
    try {
      results_ = checks::run_sanity_checks(plan_, placement, options);
      checks::keep_history(plan_, node_, &results_);
    } catch (const std::exception& e) {
      results_ = {checks::make_result("checks", checks::CheckResult::Failed, e.what())};
    }
    const char byte = 1;
    [[maybe_unused]] ssize_t n = ::write(pipe_[1], &byte, 1);
  });
}

}  // namespace pai::launcher
