#include "launcher/commands/ctl_command.h"

#include <cstdlib>
#include <stdexcept>

#include "launcher/supervisor/control_socket.h"
#include "libpai/write_all.h"

namespace pai::launcher {

namespace {

// A launcher busy relaying a flood of output still answers well within this.
constexpr int kReplyTimeoutMs = 10000;

int complain(const std::string& text, int code) {
  write_all(2, "pai-launch ctl: " + text + "\n");
  return code;
}

}  // namespace

int ctl_command(const std::vector<std::string>& words) {
  std::string line;
  for (const auto& w : words) line += (line.empty() ? "" : " ") + w;
  if (line.find('\n') != std::string::npos) return complain("a request must be one line", 2);
  if (line.size() > kMaxControlLine) {
    return complain("request too long (limit " + std::to_string(kMaxControlLine) + " bytes)", 2);
  }
  std::string error;
  if (!parse_control_line(line, &error)) return complain(error, 2);
  const char* path = std::getenv("PAI_CONTROL_SOCKET");
  if (path == nullptr || *path == '\0') {
    return complain("PAI_CONTROL_SOCKET is not set (run this in a process started by pai-launch)",
                    2);
  }
  std::string reply;
  try {
    reply = send_control_request(path, line, kReplyTimeoutMs);
  } catch (const std::runtime_error& e) {
    return complain(e.what(), 1);
  }
  if (reply == "ok") return 0;
  if (reply.rfind("ok ", 0) == 0) {  // a request that asks for something: its answer
    write_all(1, reply.substr(3) + "\n");
    return 0;
  }
  if (reply.rfind("error ", 0) == 0) return complain(reply.substr(6), 1);
  return complain("unexpected reply: " + reply, 1);
}

}  // namespace pai::launcher
