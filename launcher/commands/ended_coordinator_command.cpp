#include "launcher/commands/ended_coordinator_command.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <optional>
#include <stdexcept>

#include "launcher/os/process.h"
#include "libpai/whole_number.h"
#include "libpai/write_all.h"

namespace pai::launcher {

int ended_coordinator_command(const std::vector<std::string>& args) {
  const bool sized = args.size() == 5 || args.size() == 6;
  const auto port = sized ? parse_whole_number(args[2], 0, 65535) : std::nullopt;
  const auto seconds =
      sized ? parse_whole_number(args[3], 0, kEndedCoordinatorLimit.count()) : std::nullopt;
  const auto ready =
      args.size() == 6 ? parse_whole_number(args[5], 3, 1 << 20) : std::optional<long>(-1);
  if (!port || !seconds || !ready) {
    write_all(2,
              "pai-launch ended-coordinator: usage: pai-launch ended-coordinator JOB ADDRESS "
              "PORT SECONDS END [READY_FD] (started by pai-launch run, not by hand)\n");
    return 2;
  }
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(*seconds);
  try {
    coordinator::EndedCoordinator ended(coordinator::EndedJob{.job = args[0],
                                                              .listen_address = args[1],
                                                              .port = static_cast<int>(*port),
                                                              .end = args[4]});
    if (*ready >= 0) {
      const char listening = '1';
      [[maybe_unused]] const ssize_t n = ::write(static_cast<int>(*ready), &listening, 1);
      ::close(static_cast<int>(*ready));
    }
    ended.serve(until);
  } catch (const std::runtime_error&) {
    return 1;
  }
  return 0;
}

int start_ended_coordinator(const std::string& program, const coordinator::EndedJob& job,
                            std::chrono::seconds serve_for) {
  constexpr int kReadyTimeoutMs = 5000;
  int ready[2];
  if (::pipe2(ready, O_CLOEXEC) != 0) throw std::runtime_error("cannot create a pipe");
  const int devnull = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (devnull < 0) {
    ::close(ready[0]);
    ::close(ready[1]);
    throw std::runtime_error("cannot open /dev/null");
  }
  SpawnRequest request;
  // Its fd 3 (SpawnRequest::channel_fd) hears once it listens.
  request.argv = {program,
                  "ended-coordinator",
                  job.job,
                  job.listen_address,
                  std::to_string(job.port),
                  std::to_string(serve_for.count()),
                  job.end,
                  "3"};
  request.stdin_fd = devnull;
  request.stdout_fd = devnull;
  request.stderr_fd = devnull;
  request.channel_fd = ready[1];
  request.detach = true;
  int pid = -1;
  try {
    pid = spawn_process(request);
  } catch (...) {
    ::close(devnull);
    ::close(ready[0]);
    ::close(ready[1]);
    throw;
  }
  ::close(devnull);
  ::close(ready[1]);
  // Listening before this launcher exits: a run of the job again right after finds it (and
  // asks it to leave) instead of racing it for the port.
  pollfd p{ready[0], POLLIN, 0};
  char listening = 0;
  const bool heard = ::poll(&p, 1, kReadyTimeoutMs) > 0 && ::read(ready[0], &listening, 1) == 1;
  ::close(ready[0]);
  if (!heard) {
    throw std::runtime_error("pai-launch ended-coordinator (pid " + std::to_string(pid) +
                             ") did not listen on " + job.listen_address + ":" +
                             std::to_string(job.port) + " (taken by a new coordinator?)");
  }
  return pid;
}

}  // namespace pai::launcher
