#include "compiler/document/capped_child.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <new>
#include <stdexcept>

#include "libpai/write_all.h"

namespace pai {
namespace {

// Exit codes of the child; what it wrote counts only with kExitDone.
constexpr int kExitDone = 0;
constexpr int kExitWriteFailed = 1;
constexpr int kExitThrew = 2;
constexpr int kExitOutOfMemory = 3;

void out_of_memory() { ::_exit(kExitOutOfMemory); }

// `caps` goes unused in PAI_SANITIZE builds, which set no memory cap.
[[noreturn]] void run_child(int fd, [[maybe_unused]] const ChildCaps& caps,
                            const std::function<std::string()>& work) {
  std::set_new_handler(out_of_memory);
#ifndef PAI_SANITIZE
  if (caps.max_memory_bytes > 0) {
    const auto bytes = static_cast<rlim_t>(caps.max_memory_bytes);
    struct rlimit limit {};
    limit.rlim_cur = limit.rlim_max = bytes;
    if (::setrlimit(RLIMIT_AS, &limit) != 0) {
      write_all(fd, std::string("cannot set the memory cap: ") + std::strerror(errno));
      ::_exit(kExitThrew);
    }
  }
#endif
  int code = kExitDone;
  try {
    if (!write_all(fd, work())) code = kExitWriteFailed;
  } catch (const std::bad_alloc&) {
    code = kExitOutOfMemory;
  } catch (const std::exception& e) {
    code = write_all(fd, e.what()) ? kExitThrew : kExitWriteFailed;
  } catch (...) {
    code = write_all(fd, "unknown exception") ? kExitThrew : kExitWriteFailed;
  }
  ::_exit(code);
}

// Reads `fd` until end of file or `deadline`; false when the deadline came first.
bool read_until(int fd, std::chrono::steady_clock::time_point deadline, std::string* out) {
  char buffer[65536];
  for (;;) {
    // Rounded up: the child gets its whole time, never a fraction of a millisecond less.
    const auto left =
        std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    struct pollfd p {};
    p.fd = fd;
    p.events = POLLIN;
    const auto wait_ms = std::min<std::int64_t>(left.count(), 60'000);
    const int ready = ::poll(&p, 1, static_cast<int>(wait_ms));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
    if (ready == 0) continue;
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) throw std::runtime_error(std::string("read: ") + std::strerror(errno));
    if (n == 0) return true;
    out->append(buffer, static_cast<std::size_t>(n));
  }
}

int reap(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

}  // namespace

ChildResult run_capped(const ChildCaps& caps, const std::function<std::string()>& work) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    throw std::runtime_error(std::string("cannot start a capped child: pipe: ") +
                             std::strerror(errno));
  }
  const auto deadline = std::chrono::steady_clock::now() + caps.timeout;
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error(std::string("cannot start a capped child: fork: ") +
                             std::strerror(err));
  }
  if (pid == 0) {
    ::close(fds[0]);
    run_child(fds[1], caps, work);
  }
  ::close(fds[1]);

  ChildResult result;
  bool finished = false;
  try {
    finished = read_until(fds[0], deadline, &result.output);
  } catch (...) {
    ::kill(pid, SIGKILL);
    reap(pid);
    ::close(fds[0]);
    throw;
  }
  ::close(fds[0]);
  if (!finished) {
    ::kill(pid, SIGKILL);
    reap(pid);
    result.outcome = ChildOutcome::TimedOut;
    result.output.clear();
    return result;
  }
  // The pipe closes when the child exits: this wait is short.
  const int status = reap(pid);
  if (WIFEXITED(status) && WEXITSTATUS(status) == kExitDone) {
    result.outcome = ChildOutcome::Done;
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == kExitOutOfMemory) {
    result.outcome = ChildOutcome::OutOfMemory;
    result.output.clear();
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == kExitThrew) {
    result.outcome = ChildOutcome::Failed;
  } else if (WIFEXITED(status)) {
    result.outcome = ChildOutcome::Failed;
    result.output =
        "it could not send its result back (exit code " + std::to_string(WEXITSTATUS(status)) + ")";
  } else {
    const int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    result.outcome = ChildOutcome::Failed;
    result.output = "it was killed by signal " + std::to_string(sig) + " (" +
                    std::string(::strsignal(sig)) + ")";
  }
  return result;
}

}  // namespace pai
