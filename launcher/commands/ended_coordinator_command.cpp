#include "launcher/commands/ended_coordinator_command.h"

#include <fcntl.h>
#include <unistd.h>

#include <charconv>
#include <optional>
#include <stdexcept>

#include "launcher/os/process.h"
#include "libpai/write_all.h"

namespace pai::launcher {
namespace {

// A whole decimal number in [low, high], or nullopt.
std::optional<long> number(const std::string& text, long low, long high) {
  long value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < low || value > high) {
    return std::nullopt;
  }
  return value;
}

}  // namespace

int ended_coordinator_command(const std::vector<std::string>& args) {
  const auto port = args.size() == 5 ? number(args[2], 0, 65535) : std::nullopt;
  const auto seconds =
      args.size() == 5 ? number(args[3], 0, kEndedCoordinatorLimit.count()) : std::nullopt;
  if (!port || !seconds) {
    write_all(2,
              "pai-launch ended-coordinator: usage: pai-launch ended-coordinator JOB ADDRESS "
              "PORT SECONDS END (started by pai-launch run, not by hand)\n");
    return 2;
  }
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(*seconds);
  try {
    coordinator::EndedCoordinator ended(coordinator::EndedJob{.job = args[0],
                                                              .listen_address = args[1],
                                                              .port = static_cast<int>(*port),
                                                              .end = args[4]});
    ended.serve(until);
  } catch (const std::runtime_error&) {
    return 1;
  }
  return 0;
}

int start_ended_coordinator(const std::string& program, const coordinator::EndedJob& job,
                            std::chrono::seconds serve_for) {
  const int devnull = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (devnull < 0) throw std::runtime_error("cannot open /dev/null");
  SpawnRequest request;
  request.argv = {program,
                  "ended-coordinator",
                  job.job,
                  job.listen_address,
                  std::to_string(job.port),
                  std::to_string(serve_for.count()),
                  job.end};
  request.stdin_fd = devnull;
  request.stdout_fd = devnull;
  request.stderr_fd = devnull;
  request.detach = true;
  try {
    const int pid = spawn_process(request);
    ::close(devnull);
    return pid;
  } catch (...) {
    ::close(devnull);
    throw;
  }
}

}  // namespace pai::launcher
