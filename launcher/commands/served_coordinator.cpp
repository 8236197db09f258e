#include "launcher/commands/served_coordinator.h"

#include <algorithm>
#include <stdexcept>
#include <system_error>

#include "launcher/logs/output_writers.h"
#include "launcher/os/signals.h"

namespace pai::launcher {

namespace {

void write_record(EventLog& journal, const coordinator::Record& r) {
  // A record that cannot be written is said once by the journal; the line below still tells.
  journal.record(r.event);
  // A line of several (a table) is prefixed line by line, so each can be told apart.
  std::string text;
  for (std::size_t start = 0; start < r.line.size();) {
    const std::size_t end = std::min(r.line.find('\n', start), r.line.size());
    text += "pai-launch: coordinator: " + r.line.substr(start, end - start) + "\n";
    start = end + 1;
  }
  terminal_say(2, text);
}

}  // namespace

ServedCoordinator::ServedCoordinator(const Plan& plan, coordinator::ServerOptions options,
                                     const std::string& job_log_dir)
    : listen_address_(options.listen_address) {
  const std::string log_dir = job_log_dir + "/coordinator";
  try {
    journal_ = std::make_unique<EventLog>(log_dir + "/events.jsonl");
  } catch (const std::system_error& e) {
    throw std::runtime_error("cannot write logs to " + log_dir + ": " + e.code().message());
  }
  EventLog* journal = journal_.get();
  options.record = [journal](const coordinator::Record& r) { write_record(*journal, r); };
  const auto reread = 5 * options.settings.heartbeat_interval;
  server_ = std::make_unique<coordinator::CoordinatorServer>(plan, std::move(options));
  port_ = server_->port();
  coordinator::CoordinatorServer* server = server_.get();
  goodput_ = std::make_unique<report::GoodputWatch>(
      job_log_dir, reread,
      [server](const report::LiveAccount& live) {
        coordinator::GoodputReading reading;
        reading.causes = live.account.causes;
        reading.ettr = live.account.ettr();
        reading.journals = live.journals;
        reading.checkpoint_saves = live.account.checkpoint_saves;
        reading.checkpoint_cost_seconds = live.account.checkpoint_cost_seconds();
        server->goodput(reading);
      },
      [](const std::string& why) {
        terminal_say(
            2, "pai-launch: coordinator: cannot account for the job's goodput: " + why + "\n");
      });
}

ServedCoordinator::~ServedCoordinator() = default;

std::vector<std::string> ServedCoordinator::absent() const {
  return server_ ? server_->absent() : std::vector<std::string>{};
}

void ServedCoordinator::note(const coordinator::Record& record) { write_record(*journal_, record); }

void ServedCoordinator::step_down(const std::string& node, const std::string& reason) {
  if (!server_) return;
  goodput_.reset();
  server_.reset();
  write_record(*journal_,
               coordinator::Record(journal::CoordinatorSteppedDown{.node = node, .reason = reason},
                                   "stepped down: " + reason));
}

void ServedCoordinator::wait(std::chrono::milliseconds timeout) {
  if (!server_) return;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  constexpr std::chrono::milliseconds kSlice{100};
  while (server_->wait(kSlice) < 0 && pending_stop_signal() == 0 &&
         std::chrono::steady_clock::now() < deadline) {
  }
}

}  // namespace pai::launcher
