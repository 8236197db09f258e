#include "launcher/commands/job_control_command.h"

#include <unistd.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <utility>

#include "launcher/logs/log_relay.h"
#include "launcher/net/message.h"
#include "launcher/commands/status_table.h"
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
    client_.send(Json{{"type", "status"}});
    const Json answer = expect("status", options_.reply_timeout);
    write_all(options_.out_fd, options_.json ? answer.dump(2) + "\n" : render_status_table(answer));
    return 0;
  }

  // stop, start and kill: one request, answered `ok` or `error`.
  int request(Json message) {
    client_.send(message);
    const Json answer = expect("ok", options_.reply_timeout);
    const net::MessageReader ok(answer);
    write_all(options_.out_fd, ok.string("text") + "\n");
    return 0;
  }

  int run() {
    client_.send(Json{{"type", "run"}, {"argv", options_.command}});
    const bool color = ::isatty(options_.out_fd) == 1;
    std::map<std::string, int> codes;
    std::map<std::string, int> colors;  // node -> color, in order of first output
    std::map<std::pair<std::string, std::string>, std::unique_ptr<LogRelay>> relays;
    for (;;) {
      const Json message = next(kUnbounded, /*unbounded=*/true);
      const net::MessageReader m(message);
      if (m.type() == "exec-output") {
        const std::string node = m.string("node");
        const std::string stream = m.string("stream");
        auto& relay = relays[{node, stream}];
        if (!relay) {
          const int index = colors.emplace(node, static_cast<int>(colors.size())).first->second;
          relay = std::make_unique<LogRelay>("[" + node + "]", color, index,
                                             stream == "stderr" ? options_.err_fd : options_.out_fd,
                                             -1, nullptr);
        }
        relay->feed(m.bytes("data"));
      } else if (m.type() == "exec-exit") {
        const std::string node = m.string("node");
        codes[node] = m.integer("code", -1, 1 << 20);
        for (const char* stream : {"stdout", "stderr"}) {
          auto it = relays.find({node, stream});
          if (it != relays.end()) it->second->finish();
        }
      } else if (m.type() == "done") {
        break;
      } else {
        unexpected(m);
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
    // Lines of every rank are told apart as the launchers' terminals do: "[worker-0/3] ".
    std::map<int, std::string> instances;
    if (options_.rank < 0) {
      client_.send(Json{{"type", "status"}});
      const Json answer = expect("status", options_.reply_timeout);
      // Only names are taken from it: a node it cannot name gets "instance-I" below.
      for (const Json& node : net::MessageReader(answer).array("nodes")) {
        if (!node.is_object() || !node.value("instance", Json()).is_number_integer() ||
            !node.value("role", Json()).is_string() || !node.value("index", Json()).is_number()) {
          continue;
        }
        const int instance = node["instance"].get<int>();
        if (instance < 0) continue;
        instances[instance] =
            node["role"].get<std::string>() + "-" + std::to_string(node["index"].get<int>());
      }
    }
    client_.send(Json{{"type", "logs"},
                      {"rank", options_.rank},
                      {"follow", options_.follow},
                      {"tail", options_.tail}});
    const bool color = ::isatty(options_.out_fd) == 1;
    std::map<int, std::unique_ptr<LogRelay>> relays;
    auto finish = [&] {
      for (auto& [rank, relay] : relays) relay->finish();
    };
    for (;;) {
      std::optional<Json> message;
      try {
        message = next(kUnbounded, /*unbounded=*/true);
      } catch (const net::ConnectionError& e) {
        // A follower ends with the job: the coordinator goes away when the job is over.
        if (!options_.follow || !closed_by_coordinator(e)) throw;
        finish();
        say("the coordinator closed the connection: the job is over");
        return 0;
      }
      const net::MessageReader m(*message);
      if (m.type() == "log") {
        const int rank = m.integer("rank", 0, 1 << 30);
        const std::string data = m.bytes("data");
        if (options_.rank >= 0) {
          write_all(options_.out_fd, data);
          continue;
        }
        auto& relay = relays[rank];
        if (!relay) {
          const int instance = m.integer("instance", 0, 1 << 30);
          auto name = instances.find(instance);
          const std::string prefix =
              "[" +
              (name != instances.end() ? name->second : "instance-" + std::to_string(instance)) +
              "/" + std::to_string(rank) + "]";
          relay = std::make_unique<LogRelay>(prefix, color, rank, options_.out_fd, -1, nullptr);
        }
        relay->feed(data);
      } else if (m.type() == "done") {
        finish();
        return 0;
      } else {
        unexpected(m);
      }
    }
  }

  void say(const std::string& text) const {
    write_all(options_.err_fd,
              std::string("pai-launch ") + to_string(options_.verb) + ": " + text + "\n");
  }

 private:
  // The next message that is not a heartbeat. An `error` answer throws Refused; silence
  // past `timeout` throws ConnectionError (unless `unbounded`: then it waits on).
  Json next(std::chrono::milliseconds timeout, bool unbounded = false) {
    for (;;) {
      std::optional<Json> message = client_.receive(timeout);
      if (!message) {
        if (unbounded) continue;
        throw net::ConnectionError(endpoint_ + ": no answer from the coordinator within " +
                                   std::to_string(timeout.count()) + " ms");
      }
      const net::MessageReader m(*message);
      if (m.type() == "heartbeat") continue;
      if (m.type() == "error") throw Refused{m.string("text")};
      return *message;
    }
  }

  // The next message, which must be of `type`.
  Json expect(const std::string& type, std::chrono::milliseconds timeout) {
    Json message = next(timeout);
    const net::MessageReader m(message);
    if (m.type() != type) unexpected(m);
    return message;
  }

  [[noreturn]] static void unexpected(const net::MessageReader& m) {
    throw net::ProtocolError("unexpected message \"" + m.type() + "\"");
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
      if (o.tail < 0) return "--tail must be 0 or more bytes";
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
        return session.request(Json{{"type", "stop"}});
      case ControlVerb::Start:
        return session.request(Json{{"type", "start"}});
      case ControlVerb::Kill:
        return session.request(Json{{"type", "kill"}, {"instance", options.instance}});
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
