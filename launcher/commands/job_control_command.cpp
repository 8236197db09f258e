#include "launcher/commands/job_control_command.h"

#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <sstream>
#include <thread>
#include <map>
#include <memory>
#include <optional>
#include <utility>

#include "launcher/commands/screen_frame.h"
#include "launcher/commands/status_table.h"
#include "launcher/logs/log_merge.h"
#include "launcher/logs/log_relay.h"
#include "launcher/net/message.h"
#include "launcher/net/protocol.h"
#include "libpai/write_all.h"

namespace pai::launcher {

namespace {

using Json = nlohmann::json;

// run and logs wait as long as the commands and the job last; they read in slices of this.
constexpr std::chrono::hours kUnbounded{24};

// The job said no (an `error` answer): exit 1 with its text.
struct Refused {
  std::string text;
};

class ControlSession {
 public:
  ControlSession(const JobControlOptions& options, net::Client& client, std::string endpoint)
      : options_(options), client_(client), endpoint_(std::move(endpoint)) {}

  int status() {
    if (options_.watch) return watch_status();
    const auto answer = ask_status();
    write_all(options_.out_fd, render(answer));
    return 0;
  }

  // status --watch: an answer every interval until the job is finished; when the coordinator
  // goes away after the first answer (its job ended), the last one stays on the screen.
  int watch_status() {
    const bool tty = ::isatty(options_.out_fd) == 1;
    const auto every = std::chrono::duration<double>(options_.watch_interval).count();
    for (bool first = true;; first = false) {
      std::optional<net::StatusReply> answer;
      try {
        answer = ask_status();
      } catch (const net::ConnectionError&) {
        if (first) throw;
        write_all(options_.out_fd, "the coordinator closed the connection: the job ended\n");
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
      if (answer->phase == "finished") return 0;
      std::this_thread::sleep_for(options_.watch_interval);
    }
  }

  net::StatusReply ask_status() {
    send(net::StatusRequest{});
    return expect<net::StatusReply>(options_.reply_timeout);
  }

  std::string render(const net::StatusReply& answer) const {
    return options_.json ? net::to_json(answer).dump(2) + "\n" : render_status_table(answer);
  }

  // stop, start, cancel and kill: one request, answered `ok` or `error`.
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
    const bool color = ::isatty(options_.out_fd) == 1;
    std::map<int, std::unique_ptr<LogRelay>> relays;
    std::optional<LogMerge> merge;
    if (options_.merge) {
      std::optional<LogMerge::Clock::duration> window;
      if (options_.follow) window = options_.merge_window;
      merge.emplace(window, [&](std::string_view text) { write_all(options_.out_fd, text); });
    }
    auto finish = [&] {
      for (auto& [rank, relay] : relays) relay->finish();
      if (merge) merge->finish();
    };
    for (;;) {
      std::optional<net::ControlReply> reply;
      try {
        // Merged output is printed as each group's window passes, between messages too.
        const auto due = merge ? merge->next_due() : std::nullopt;
        const auto wait =
            due ? std::chrono::ceil<std::chrono::milliseconds>(
                      std::max(*due - LogMerge::Clock::now(), LogMerge::Clock::duration::zero()))
                : std::chrono::milliseconds(kUnbounded);
        reply = next<net::Log, net::Done>(wait, /*unbounded=*/!due, /*timeout_is_empty=*/true);
        if (merge) merge->expire(LogMerge::Clock::now());
        if (!reply) continue;
      } catch (const net::ConnectionError& e) {
        // A follower ends with the job: the coordinator goes away when the job is over.
        if (!options_.follow || !closed_by_coordinator(e)) throw;
        finish();
        say("the coordinator closed the connection: the job is over");
        return 0;
      }
      const auto* log = std::get_if<net::Log>(&*reply);
      if (log == nullptr) {  // done
        finish();
        return 0;
      }
      if (merge) {
        auto host = hosts.find(log->instance);
        merge->feed(log->rank,
                    host != hosts.end() ? host->second : "instance-" + std::to_string(log->instance),
                    log->data, LogMerge::Clock::now());
        continue;
      }
      if (options_.rank >= 0) {
        write_all(options_.out_fd, log->data);
        continue;
      }
      auto& relay = relays[log->rank];
      if (!relay) {
        auto name = instances.find(log->instance);
        const std::string prefix =
            "[" +
            (name != instances.end() ? name->second : "instance-" + std::to_string(log->instance)) +
            "/" + std::to_string(log->rank) + "]";
        relay = std::make_unique<LogRelay>(prefix, color, log->rank, options_.out_fd, nullptr,
                                           LogRelay::Writes::Direct);
      }
      relay->feed(log->data);
    }
  }

  void say(const std::string& text) const {
    write_all(options_.err_fd,
              std::string("pai-launch ") + to_string(options_.verb) + ": " + text + "\n");
  }

 private:
  void send(const net::ControlRequest& message) { client_.send(net::to_json(message)); }

  // The next answer that is not a heartbeat; it must be one of `Expected`, which is told by
  // its type before its fields are read. An `error` answer throws Refused; silence past
  // `timeout` throws ConnectionError (unless `unbounded`: then it waits on; or
  // `timeout_is_empty`: then it returns nothing).
  template <class... Expected>
  std::optional<net::ControlReply> next(std::chrono::milliseconds timeout, bool unbounded = false,
                                        bool timeout_is_empty = false) {
    for (;;) {
      std::optional<Json> message = client_.receive(timeout);
      if (!message) {
        if (unbounded) continue;
        if (timeout_is_empty) return std::nullopt;
        throw net::ConnectionError(endpoint_ + ": no answer from the coordinator within " +
                                   std::to_string(timeout.count()) + " ms");
      }
      const std::string type = net::MessageReader(*message).type();
      if (type == net::Heartbeat::kType) continue;
      if (type != net::ErrorReply::kType && ((type != Expected::kType) && ...)) {
        throw net::ProtocolError("unexpected message \"" + type + "\"");
      }
      net::ControlReply reply = net::parse_control_reply(*message);
      if (const auto* error = std::get_if<net::ErrorReply>(&reply)) throw Refused{error->text};
      return reply;
    }
  }

  // The next answer, which must be a `Reply`.
  template <class Reply>
  Reply expect(std::chrono::milliseconds timeout) {
    return std::get<Reply>(*next<Reply>(timeout));
  }

  static bool closed_by_coordinator(const net::ConnectionError& e) {
    const std::string what = e.what();
    const std::string closed = "the coordinator closed the connection";
    return what.size() >= closed.size() &&
           what.compare(what.size() - closed.size(), closed.size(), closed) == 0;
  }

  const JobControlOptions& options_;
  net::Client& client_;
  std::string endpoint_;
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
  try {
    std::unique_ptr<net::Client> client = connect_control(target);
    ControlSession session(options, *client, target.endpoint());
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
      case ControlVerb::Run:
        return session.run();
      case ControlVerb::Logs:
        return session.logs();
    }
  } catch (const Refused& e) {
    return complain(e.text, 1);
  } catch (const net::ConnectionError& e) {
    return complain(e.what(), 1);
  } catch (const net::ProtocolError& e) {
    return complain("the coordinator of job " + target.job + " at " + target.endpoint() +
                        " answered something unexpected: " + e.what(),
                    1);
  }
  return 1;
}

}  // namespace pai::launcher
