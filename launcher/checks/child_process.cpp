#include "launcher/checks/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <system_error>

#include "libpai/inherited_fds.h"

namespace pai::checks {
namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void throw_errno(const char* what) {
  throw std::system_error(errno, std::generic_category(), what);
}

// The launcher blocks signals for its signal loop and may ignore some; a child must start clean
// so that SIGKILL-free signals (SIGTERM from a user's script, SIGPIPE) behave as usual.
void reset_signals() {
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig != SIGKILL && sig != SIGSTOP) signal(sig, SIG_DFL);
  }
}

// Keeps memory bounded while a child floods its output: only the tail is ever kept.
void append_capped(std::string& kept, const char* data, std::size_t n, std::size_t cap) {
  kept.append(data, n);
  if (kept.size() > 2 * cap + 65536) kept.erase(0, kept.size() - cap);
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

ChildOutcome run_in_child(const std::function<int(int fd)>& body, std::chrono::milliseconds timeout,
                          std::size_t output_cap,
                          const std::function<void(std::string_view chunk)>& on_output,
                          ChildContainment* containment) {
  // Made before the fork: the child only enters it.
  std::unique_ptr<ContainedChild> place = containment ? containment->contain() : nullptr;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw_errno("pipe2");
  auto start = Clock::now();
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    int saved = errno;
    close(fds[0]);
    close(fds[1]);
    errno = saved;
    throw_errno("fork");
  }
  if (pid == 0) {
    // Into its place before anything else, so that nothing it starts is outside it.
    if (place && !place->enter()) {
      const char* message = "cannot enter the check's cgroup\n";
      ssize_t ignored = write(fds[1], message, std::strlen(message));
      (void)ignored;
      _exit(1);
    }
    setpgid(0, 0);
    // Its own group keeps the launcher's signals off it; a launcher killed with SIGKILL must
    // not leave it running (GPU work holds the GPUs until its own deadline otherwise). The
    // forking thread waits for the child, so only the process's death can fire this.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1);  // the launcher died before prctl
    reset_signals();
    close(fds[0]);
    // Like a rank: nothing of the launcher's (the coordinator's socket, the journals) reaches
    // the check's command, or what it leaves running.
    close_on_exec_above_stderr();
    int code = 1;
    try {
      code = body(fds[1]);
    } catch (...) {
      code = 1;
    }
    _exit(code);
  }
  // Both sides set the group so that a kill right after fork cannot miss it.
  setpgid(pid, pid);
  close(fds[1]);

  ChildOutcome outcome;
  auto deadline = start + timeout;
  // A pidfd turns the child's exit into a poll event, so the exit is seen at once; on a kernel
  // without pidfd_open the exit is polled for every few milliseconds instead.
  int exit_fd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  bool reaped = false;
  int status = 0;
  bool open = true;
  char buffer[65536];
  while (true) {
    if (!reaped && waitpid(pid, &status, WNOHANG) == pid) {
      reaped = true;
      // Descendants left behind would keep the pipe open; the group goes with the child, and
      // its place with what left the group.
      kill(-pid, SIGKILL);
      if (place) place->kill();
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0 || (reaped && !open)) break;
    long long wait_ms = reaped         ? 0
                        : exit_fd >= 0 ? left.count()
                                       : std::min<long long>(5, left.count());
    pollfd p[2] = {{open ? fds[0] : -1, POLLIN, 0}, {reaped ? -1 : exit_fd, POLLIN, 0}};
    int n = poll(p, 2, static_cast<int>(std::min<long long>(wait_ms, 60000)));
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (n == 0 && reaped) break;
    if (!(p[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    ssize_t got = read(fds[0], buffer, sizeof buffer);
    if (got > 0) {
      if (on_output) on_output(std::string_view(buffer, static_cast<std::size_t>(got)));
      append_capped(outcome.output, buffer, static_cast<std::size_t>(got), output_cap);
      outcome.output_bytes += static_cast<std::size_t>(got);
    } else if (got == 0 || errno != EINTR) {
      open = false;
    }
  }
  if (exit_fd >= 0) close(exit_fd);
  close(fds[0]);
  if (!reaped) {
    kill(-pid, SIGKILL);
    if (place) place->kill();
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    outcome.ending = ChildOutcome::TimedOut;
    outcome.code = SIGKILL;
  } else if (WIFEXITED(status)) {
    outcome.ending = ChildOutcome::Exited;
    outcome.code = WEXITSTATUS(status);
  } else {
    outcome.ending = ChildOutcome::Signaled;
    outcome.code = WTERMSIG(status);
  }
  // Kills what is still in the place (a helper that closed the pipe) and removes it.
  place.reset();
  if (outcome.output.size() > output_cap)
    outcome.output.erase(0, outcome.output.size() - output_cap);
  outcome.seconds = seconds_since(start);
  return outcome;
}

ChildOutcome run_shell_command(const std::string& command, std::chrono::milliseconds timeout,
                               std::size_t output_cap, ChildContainment* containment) {
  return run_in_child(
      [&command](int fd) {
        int null = open("/dev/null", O_RDONLY);
        if (null >= 0) dup2(null, 0);
        dup2(fd, 1);
        dup2(fd, 2);
        execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
        const char* message = "cannot execute /bin/sh\n";
        ssize_t ignored = write(2, message, std::strlen(message));
        (void)ignored;
        return 127;
      },
      timeout, output_cap, {}, containment);
}

std::string describe_ending(const ChildOutcome& outcome, std::chrono::milliseconds timeout) {
  switch (outcome.ending) {
    case ChildOutcome::Exited:
      return "exited with status " + std::to_string(outcome.code);
    case ChildOutcome::Signaled:
      return "killed by signal " + std::to_string(outcome.code) + " (" + strsignal(outcome.code) +
             ")";
    case ChildOutcome::TimedOut: {
      auto ms = timeout.count();
      std::string limit =
          ms % 1000 == 0 ? std::to_string(ms / 1000) + "s" : std::to_string(ms) + "ms";
      return "timed out after " + limit + " (process group killed)";
    }
  }
  return "";
}

std::string output_tail(const ChildOutcome& outcome) {
  if (outcome.output_bytes <= outcome.output.size()) return outcome.output;
  return "[... " + std::to_string(outcome.output_bytes - outcome.output.size()) +
         " bytes omitted ...]\n" + outcome.output;
}

}  // namespace pai::checks
