#include "launcher/commands/rsh_command.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <string_view>

#include "launcher/net/client.h"
#include "libpai/write_all.h"

namespace pai::launcher {

namespace {

using Json = nlohmann::json;
using namespace std::chrono_literals;

// ssh's options that take an argument, and those that do not (rsh's -l, -n, -d, -x, -K are
// among them). All are accepted; only -n changes anything here.
constexpr std::string_view kWithArgument = "BbcDEeFIiJLlmOopQRSWw";
constexpr std::string_view kFlags = "46AaCdfGgKkMNnqsTtVvXxYy";
// Bytes of stdin per exec-stdin message: well under the frame cap once base64-encoded.
constexpr std::size_t kStdinChunk = 64 * 1024;
// The coordinator refused the command (an `error` answer: no such node, not connected).
struct Refused {
  std::string text;
};

// How long the coordinator may take to answer `status`.
constexpr auto kStatusTimeout = 30s;

const char* const kUsage =
    "usage: pai-launch rsh [ssh options] [--plan plan.json | --coordinator ADDRESS:PORT "
    "--token-file FILE --job NAME] HOST COMMAND...\n"
    "Runs COMMAND with /bin/sh -c on the node HOST (a node name or address, or ROLE-INDEX for\n"
    "an instance, as OpenPAI names it) of a running job,\n"
    "through its coordinator: Open MPI's remote shell agent of pai jobs. Inside a job,\n"
    "PAI_COORDINATOR, PAI_TOKEN_FILE and PAI_JOB_NAME name the job.\n";

// A long option of ours: "--plan X" or "--plan=X". True when `args[i]` was one.
bool long_option(const std::vector<std::string>& args, std::size_t& i, JobLocator& locator) {
  static const std::pair<const char*, std::string JobLocator::*> kOptions[] = {
      {"--plan", &JobLocator::plan_path},
      {"--coordinator", &JobLocator::coordinator},
      {"--token-file", &JobLocator::token_file},
      {"--job", &JobLocator::job},
  };
  const std::string& arg = args[i];
  for (const auto& [name, field] : kOptions) {
    const std::string prefix = std::string(name) + "=";
    if (arg.rfind(prefix, 0) == 0) {
      locator.*field = arg.substr(prefix.size());
      return true;
    }
    if (arg == name) {
      if (i + 1 >= args.size()) throw RshUsageError(std::string(name) + " needs a value");
      locator.*field = args[++i];
      return true;
    }
  }
  return false;
}

class RemoteCommand {
 public:
  RemoteCommand(net::Client& client, int in_fd, int out_fd, int err_fd)
      : client_(client), in_fd_(in_fd), out_fd_(out_fd), err_fd_(err_fd) {}

  /// Relays stdin and output until the command's exit; returns its code.
  int relay(bool stdin_open) {
    if (!stdin_open) send_stdin({}, true);
    std::vector<char> buffer(kStdinChunk);
    for (;;) {
      // Frames already read off the socket would not wake poll.
      while (client_.has_buffered()) {
        if (auto code = handle(client_.receive(0ms))) return *code;
      }
      pollfd fds[2] = {{client_.native_handle(), POLLIN, 0}, {stdin_open ? in_fd_ : -1, POLLIN, 0}};
      if (::poll(fds, 2, -1) < 0) {
        if (errno == EINTR) continue;
        throw net::ConnectionError(std::string("poll failed: ") + std::strerror(errno));
      }
      if (fds[1].revents != 0) {
        const ssize_t n = ::read(in_fd_, buffer.data(), buffer.size());
        if (n > 0) {
          send_stdin(std::string_view(buffer.data(), static_cast<std::size_t>(n)), false);
        } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
          // End of input (or an unreadable stdin, which ends it too).
          send_stdin({}, true);
          stdin_open = false;
        }
      }
      if (fds[0].revents != 0) {
        if (auto code = handle(client_.receive(0ms))) return *code;
      }
    }
  }

 private:
  void send_stdin(std::string_view data, bool eof) {
    client_.send(net::to_json(net::RshStdin{std::string(data), eof}));
  }

  // The exit code once the command ended.
  std::optional<int> handle(const std::optional<Json>& message) {
    if (!message) return std::nullopt;  // part of a frame so far
    const net::ControlReply reply = net::parse_control_reply(*message);
    if (const auto* output = std::get_if<net::NodeExecOutput>(&reply)) {
      write_all(output->stream == net::Stream::Stderr ? err_fd_ : out_fd_, output->data);
    } else if (const auto* exit = std::get_if<net::NodeExecExit>(&reply)) {
      return exit->code < 0 ? kRshFailure : std::min(exit->code, 255);
    } else if (const auto* error = std::get_if<net::ErrorReply>(&reply)) {
      throw Refused{error->text};
    } else if (!std::holds_alternative<net::Heartbeat>(reply)) {
      throw net::ProtocolError(std::string("unexpected message \"") + net::type_of(reply) + "\"");
    }
    return std::nullopt;
  }

  net::Client& client_;
  int in_fd_, out_fd_, err_fd_;
};

}  // namespace

RshRequest parse_rsh_arguments(const std::vector<std::string>& args) {
  RshRequest request;
  std::size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg == "--help" || arg == "-h") {
      request.help = true;
      return request;
    }
    if (long_option(args, i, request.locator)) continue;
    if (arg.size() < 2 || arg[0] != '-') break;  // HOST
    if (arg[1] == '-') throw RshUsageError("unknown option " + arg);
    // A cluster of short options: "-xT", "-lroot", "-o BatchMode=yes".
    for (std::size_t k = 1; k < arg.size(); ++k) {
      const char c = arg[k];
      if (kWithArgument.find(c) != std::string_view::npos) {
        if (k + 1 == arg.size() && i + 1 >= args.size()) {
          throw RshUsageError(std::string("option -") + c + " needs an argument");
        }
        if (k + 1 == arg.size()) ++i;  // its argument is the next word
        break;
      }
      if (kFlags.find(c) == std::string_view::npos) {
        throw RshUsageError(std::string("unknown option -") + c);
      }
      if (c == 'n') request.no_stdin = true;
    }
  }
  if (i >= args.size()) throw RshUsageError("no HOST given");
  request.host = args[i++];
  if (const std::size_t at = request.host.rfind('@'); at != std::string::npos) {
    request.host.erase(0, at + 1);  // -l USER and USER@ name a login: the node is what counts
  }
  if (request.host.empty()) throw RshUsageError("the HOST is empty");
  if (i >= args.size()) {
    throw RshUsageError("no COMMAND given (an interactive shell is not supported)");
  }
  for (; i < args.size(); ++i) request.command += (request.command.empty() ? "" : " ") + args[i];
  return request;
}

std::string resolve_rsh_host(const net::StatusReply& status, const std::string& host) {
  std::vector<std::string> names;
  std::vector<std::string> by_address;
  std::string by_instance;
  for (const net::NodeStatus& node : status.nodes) {
    if (node.node == host) return node.node;
    names.push_back(node.node);
    if (node.address == host) by_address.push_back(node.node);
    // OpenPAI's ssh plugin names each instance <role>-<index> (`mpirun -H worker-0,worker-1`).
    if (node.index >= 0 && node.role + "-" + std::to_string(node.index) == host) {
      by_instance = node.node;
    }
  }
  if (by_address.size() == 1) return by_address.front();
  if (by_address.empty() && !by_instance.empty()) return by_instance;
  if (by_address.size() > 1) {
    std::string list;
    for (const auto& n : by_address) list += (list.empty() ? "" : ", ") + n;
    throw RshUsageError("address " + host + " is shared by nodes " + list +
                        ": name the node instead");
  }
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  throw RshUsageError("no node named or addressed " + host + " in job " + status.job +
                      " (nodes: " + list + ")");
}

int rsh_command(const std::vector<std::string>& args, int in_fd, int out_fd, int err_fd) {
  auto complain = [&](const std::string& text) {
    write_all(err_fd, "pai-launch rsh: " + text + "\n");
    return kRshFailure;
  };
  RshRequest request;
  JobTarget target;
  try {
    request = parse_rsh_arguments(args);
    if (request.help) {
      write_all(out_fd, kUsage);
      return 0;
    }
    target = locate_job(request.locator);
  } catch (const RshUsageError& e) {
    return complain(std::string(e.what()) + "\n" + kUsage);
  } catch (const LocateError& e) {
    return complain(e.what());
  }
  try {
    std::unique_ptr<net::Client> client = connect_control(target);
    // The coordinator knows nodes by name; the hostfile mpirun reads holds addresses.
    client->send(net::to_json(net::StatusRequest{}));
    std::optional<net::ControlReply> reply;
    while (!reply || std::holds_alternative<net::Heartbeat>(*reply)) {
      const std::optional<Json> message = client->receive(kStatusTimeout);
      if (!message) throw net::ConnectionError(target.endpoint() + ": no answer to status");
      reply = net::parse_control_reply(*message);
    }
    const auto* status = std::get_if<net::StatusReply>(&*reply);
    if (status == nullptr) {
      throw net::ProtocolError(std::string("expected status, got \"") + net::type_of(*reply) +
                               "\"");
    }
    const std::string node = resolve_rsh_host(*status, request.host);
    client->send(net::to_json(net::RshRequest{node, {"/bin/sh", "-c", request.command}}));
    RemoteCommand command(*client, in_fd, out_fd, err_fd);
    return command.relay(!request.no_stdin);
  } catch (const RshUsageError& e) {
    return complain(e.what());
  } catch (const Refused& e) {
    return complain(e.text);
  } catch (const net::ConnectionError& e) {
    return complain(e.what());
  } catch (const net::ProtocolError& e) {
    return complain("the coordinator of job " + target.job + " at " + target.endpoint() +
                    " answered something unexpected: " + e.what());
  }
}

}  // namespace pai::launcher
