#include "launcher/os/signals.h"

#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <system_error>

namespace pai::launcher {

namespace {

sigset_t consumed_set() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : consumed_signals()) sigaddset(&set, sig);
  return set;
}

}  // namespace

const std::vector<int>& consumed_signals() {
  static const std::vector<int> signals = {SIGCHLD, SIGTERM, SIGINT, SIGHUP};
  return signals;
}

void block_consumed_signals() {
  sigset_t set = consumed_set();
  sigprocmask(SIG_BLOCK, &set, nullptr);
  signal(SIGPIPE, SIG_IGN);
  // A file size limit is a failed write (EFBIG) to handle like a full disk, not a crash.
  signal(SIGXFSZ, SIG_IGN);
}

int pending_stop_signal() {
  sigset_t pending;
  sigemptyset(&pending);
  if (sigpending(&pending) != 0) return 0;
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) {
    if (sigismember(&pending, sig) == 1) return sig;
  }
  return 0;
}

SignalFd::SignalFd() {
  sigset_t set = consumed_set();
  fd_ = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
  if (fd_ < 0) throw std::system_error(errno, std::system_category(), "signalfd");
}

SignalFd::~SignalFd() { close(fd_); }

int SignalFd::read_signal() {
  signalfd_siginfo info{};
  for (;;) {
    ssize_t n = read(fd_, &info, sizeof info);
    if (n == static_cast<ssize_t>(sizeof info)) return static_cast<int>(info.ssi_signo);
    if (n < 0 && errno == EINTR) continue;
    return 0;
  }
}

}  // namespace pai::launcher
