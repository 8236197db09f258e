#include "launcher/commands/job_control_command.h"

#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>
#include <utility>

#include "launcher/commands/control_channel.h"
#include "launcher/commands/finished_job.h"
#include "launcher/commands/log_printer.h"
#include "launcher/commands/screen_frame.h"
#include "launcher/commands/status_table.h"
#include "launcher/logs/log_merge.h"
#include "launcher/logs/log_relay.h"
#include "launcher/logs/rank_log_files.h"
#include "launcher/net/message.h"
#include "launcher/net/protocol.h"
#include "launcher/report/log_folder.h"
#include "libpai/write_all.h"

namespace pai::launcher {

namespace {

using Json = nlohmann::json;

// run and logs wait as long as the commands and the job last; they read in slices of this.
constexpr std::chrono::hours kUnbounded{24};

// How the job ended, from the journals of its log folder `log_dir` (when known), for a
// status that found the coordinator gone.
std::string end_from_journals(const std::string& log_dir) {
  if (log_dir.empty()) {
    return "the job ended (how: pai-launch report LOG_DIR, or --log-dir or --plan here)";
  }
  try {
    return job_end_from_log_folder(log_dir);
  } catch (const report::LogFolderError& e) {
    return "the job ended; its journals do not say how: " + std::string(e.what());
  }
}

LogPrinter::Options printer_options(const JobControlOptions& o) {
  LogPrinter::Options p;
  p.out_fd = o.out_fd;
  p.one_rank = o.rank >= 0;
  p.merge = o.merge;
  if (o.follow) p.merge_window = o.merge_window;
  return p;
}

class ControlSession {
 public:
  ControlSession(const JobControlOptions& options, net::Client& client, const JobTarget& target)
      : options_(options), target_(target), channel_(client, target.endpoint()) {}

  int status() {
    if (options_.watch) return watch_status();
    const auto answer = ask_status();
    write_all(options_.out_fd, render(answer));
    return 0;
  }

  // status --watch: an answer every interval until the job is finished, then how it ended;
  // when the coordinator goes away after the first answer (its job ended), the last one stays
  // on the screen and how the job ended comes from its journals.
  int watch_status() {
    const bool tty = ::isatty(options_.out_fd) == 1;
    const auto every = std::chrono::duration<double>(options_.watch_interval).count();
    for (bool first = true;; first = false) {
      std::optional<net::StatusReply> answer;
      try {
        answer = ask_status();
      } catch (const net::ConnectionError&) {
        if (first) throw;
        write_all(options_.out_fd, "the coordinator closed the connection: " +
                                       end_from_journals(target_.log_dir) + "\n");
        return 0;
      }
      char clock[16] = "";
      const std::time_t now = std::time(nullptr);
      std::tm local{};
      if (::localtime_r(&now, &local) != nullptr) std::strftime(clock, sizeof clock, "%H:%M:%S", &local);
      std::ostringstream header;
      header << "every " << every << "s: pai-launch status  " << clock << "\n\n";
      const std::string frame = header.str() + render(*answer);
      write_all(options_.out_fd, tty ? in_place_frame(frame) : frame + "\n");
      if (answer->phase == "finished") {
        if (answer->outcome) write_all(options_.out_fd, end_line(*answer) + "\n");
        return 0;
      }
      std::this_thread::sleep_for(options_.watch_interval);
    }
  }

  // "the job ended: failed, exit code 1: REASON" from a finished job's answer.
  static std::string end_line(const net::StatusReply& answer) {
    std::string line = "the job ended: " + answer.outcome.value_or("?");
    if (answer.exit_code) line += ", exit code " + std::to_string(*answer.exit_code);
    const std::string reason = answer.reason.value_or("");
    return line + (reason.empty() ? "" : ": " + reason.substr(0, reason.find('\n')));
  }

  net::StatusReply ask_status() {
    send(net::StatusRequest{});
    return expect<net::StatusReply>(options_.reply_timeout);
  }

  std::string render(const net::StatusReply& answer) const {
    return options_.json ? net::to_json(answer).dump(2) + "\n" : render_status_table(answer);
  }

  // stop, start, cancel, kill and checkpoint-now: one request, answered `ok` or `error`.
  int request(const net::ControlRequest& message) {
    send(message);
    write_all(options_.out_fd, expect<net::OkReply>(options_.reply_timeout).text + "\n");
    return 0;
  }

  int run() {
    send(net::RunRequest{options_.command});
    const bool color = ::isatty(options_.out_fd) == 1;
    std::map<std::string, int> codes;
    std::map<std::string, int> colors;  // node -> color, in order of first output
    std::map<std::pair<net::Stream, std::string>, std::unique_ptr<LogRelay>> relays;
    for (;;) {
      const net::ControlReply reply =
          *next<net::NodeExecOutput, net::NodeExecExit, net::Done>(kUnbounded, /*unbounded=*/true);
      if (const auto* output = std::get_if<net::NodeExecOutput>(&reply)) {
        auto& relay = relays[{output->stream, output->node}];
        if (!relay) {
          const int index =
              colors.emplace(output->node, static_cast<int>(colors.size())).first->second;
          relay = std::make_unique<LogRelay>(
              "[" + output->node + "]", color, index,
              output->stream == net::Stream::Stderr ? options_.err_fd : options_.out_fd, nullptr,
              LogRelay::Writes::Direct);
        }
        relay->feed(output->data);
      } else if (const auto* exit = std::get_if<net::NodeExecExit>(&reply)) {
        codes[exit->node] = exit->code;
        for (net::Stream stream : {net::Stream::Stdout, net::Stream::Stderr}) {
          auto it = relays.find({stream, exit->node});
          if (it != relays.end()) it->second->finish();
        }
      } else {
        break;  // done
      }
    }
    int worst = 0;
    for (const auto& [node, code] : codes) {
      if (code == 0) continue;
      say(node + ": exit code " + std::to_string(code));
      worst = std::max(worst, std::clamp(code, 1, 255));
    }
    return worst;
  }

  int logs() {
    // Lines of every rank are told apart as the launchers' terminals do: "[worker-0/3] ";
    // merged, by their node: "[node-1:3] ".
    std::map<int, std::string> instances;  // global instance -> "worker-0"
    std::map<int, std::string> hosts;      // global instance -> its node when asked
    if (options_.rank < 0 || options_.merge) {
      send(net::StatusRequest{});
      for (const net::NodeStatus& node : expect<net::StatusReply>(options_.reply_timeout).nodes) {
        if (node.instance < 0) continue;
        instances[node.instance] = node.role + "-" + std::to_string(node.index);
        hosts[node.instance] = node.node;
      }
    }
    send(net::LogsRequest{options_.rank, options_.follow, options_.tail_bytes, options_.tail});
    LogPrinter printer(printer_options(options_));
    auto name_of = [](const std::map<int, std::string>& names, int instance) {
      auto it = names.find(instance);
      return it != names.end() ? it->second : "instance-" + std::to_string(instance);
    };
    for (;;) {
      std::optional<net::ControlReply> reply;
      try {
        // Merged output is printed as each group's window passes, between messages too.
        const auto due = printer.next_due();
        const auto wait =
            due ? std::chrono::ceil<std::chrono::milliseconds>(
                      std::max(*due - LogMerge::Clock::now(), LogMerge::Clock::duration::zero()))
                : std::chrono::milliseconds(kUnbounded);
        reply = next<net::Log, net::Done>(wait, /*unbounded=*/!due, /*timeout_is_empty=*/true);
        printer.expire();
        if (!reply) continue;
      } catch (const net::ConnectionError& e) {
        // A follower ends with the job: the coordinator goes away when the job is over.
        if (!options_.follow || !closed_by_coordinator(e)) throw;
        printer.finish();
        say("the coordinator closed the connection: the job is over");
        return 0;
      }
      const auto* log = std::get_if<net::Log>(&*reply);
      if (log == nullptr) {  // done
        printer.finish();
        return 0;
      }
      printer.feed(name_of(instances, log->instance), name_of(hosts, log->instance), log->rank,
                   log->data);
    }
  }

  void say(const std::string& text) const {
    write_all(options_.err_fd,
              std::string("pai-launch ") + to_string(options_.verb) + ": " + text + "\n");
  }

 private:
  void send(const net::ControlRequest& message) { channel_.send(message); }

  template <class... Expected>
  std::optional<net::ControlReply> next(std::chrono::milliseconds timeout, bool unbounded = false,
                                        bool timeout_is_empty = false) {
    return channel_.next<Expected...>(timeout, unbounded, timeout_is_empty);
  }

  template <class Reply>
  Reply expect(std::chrono::milliseconds timeout) {
    return channel_.expect<Reply>(timeout);
  }

  static bool closed_by_coordinator(const net::ConnectionError& e) {
    const std::string what = e.what();
    const std::string closed = "the coordinator closed the connection";
    return what.size() >= closed.size() &&
           what.compare(what.size() - closed.size(), closed.size(), closed) == 0;
  }

  const JobControlOptions& options_;
  const JobTarget& target_;
  ControlChannel channel_;
};

// Arguments a verb cannot work without; "" when fine.
std::string usage_problem(const JobControlOptions& o) {
  switch (o.verb) {
    case ControlVerb::Run:
      if (o.command.empty()) return "no command given: pai-launch run [options] -- CMD...";
      break;
    case ControlVerb::Kill:
      if (o.instance.empty()) return "which instance? pai-launch kill ROLE-INDEX (e.g. worker-1)";
      break;
    case ControlVerb::Logs:
      if (o.rank < -1) return "--rank must be a rank of the job (0 or more)";
      if (o.tail < 0) return "--tail must be 0 or more lines";
      break;
    default:
      break;
  }
  return "";
}

// status and logs of a job whose coordinator cannot be reached: when the journals of its log
// folder say it ended, how it ended and its ranks' last logs, from there; nullopt otherwise
// (a job not started yet, a coordinator killed: the connection error stands).
std::optional<int> over(const JobControlOptions& options, const JobTarget& target) {
  if (target.log_dir.empty()) return std::nullopt;
  if (options.verb != ControlVerb::Status && options.verb != ControlVerb::Logs) return std::nullopt;
  std::string end;
  try {
    const report::RootCause root_cause = report::read_log_folder(target.log_dir).root_cause;
    if (root_cause.outcome == report::JobOutcome::Unfinished) return std::nullopt;
    end = job_end_line(root_cause);
  } catch (const report::LogFolderError&) {
    return std::nullopt;
  }
  auto say = [&](const std::string& text) {
    write_all(options.err_fd,
              std::string("pai-launch ") + to_string(options.verb) + ": " + text + "\n");
  };
  if (options.verb == ControlVerb::Status) {
    write_all(options.out_fd, end + "\n");
    return 0;
  }
  say("the job is over (" + end + "); the logs of its ranks' last attempts, from " +
      target.log_dir + ":");
  LogPrinter printer(printer_options(options));
  int printed = 0;
  try {
    printed = print_finished_logs(target.log_dir, options.rank, options.tail_bytes, options.tail,
                                  printer);
  } catch (const RankLogFilesError& e) {
    say(e.what());
    return 1;
  }
  if (printed == 0) {
    say(options.rank >= 0 ? "rank " + std::to_string(options.rank) + " has no log there"
                          : "no rank log is there");
    return 1;
  }
  return 0;
}

}  // namespace

const char* to_string(ControlVerb verb) {
  switch (verb) {
    case ControlVerb::Status:
      return "status";
    case ControlVerb::Stop:
      return "stop";
    case ControlVerb::Start:
      return "start";
    case ControlVerb::Cancel:
      return "cancel";
    case ControlVerb::Run:
      return "run";
    case ControlVerb::Kill:
      return "kill";
    case ControlVerb::CheckpointNow:
      return "checkpoint-now";
    case ControlVerb::Logs:
      return "logs";
  }
  return "?";
}

int job_control_command(const JobControlOptions& options) {
  auto complain = [&](const std::string& text, int code) {
    write_all(options.err_fd,
              std::string("pai-launch ") + to_string(options.verb) + ": " + text + "\n");
    return code;
  };
  if (std::string problem = usage_problem(options); !problem.empty()) return complain(problem, 2);
  JobTarget target;
  try {
    target = locate_job(options.locator);
  } catch (const LocateError& e) {
    return complain(e.what(), 2);
  }
  return talking_to(
      target,
      [&]() -> int {
        std::unique_ptr<net::Client> client;
        try {
          client = connect_control(target);
        } catch (const net::ConnectionError&) {
          if (auto code = over(options, target)) return *code;
          throw;
        }
        ControlSession session(options, *client, target);
        switch (options.verb) {
          case ControlVerb::Status:
            return session.status();
          case ControlVerb::Stop:
            return session.request(net::PauseRequest{});
          case ControlVerb::Start:
            return session.request(net::ResumeRequest{});
          case ControlVerb::Cancel:
            return session.request(net::CancelRequest{});
          case ControlVerb::Kill:
            return session.request(net::KillRequest{options.instance});
          case ControlVerb::CheckpointNow:
            return session.request(net::CheckpointNowRequest{});
          case ControlVerb::Run:
            return session.run();
          case ControlVerb::Logs:
            return session.logs();
        }
        return 1;
      },
      complain);
}

}  // namespace pai::launcher
