#include "launcher/policy/failure_classifier.h"

#include <sys/wait.h>

#include <algorithm>
#include <cctype>
#include <csignal>
#include <cstring>

namespace pai::launcher {

namespace {

bool contains_nocase(std::string_view haystack, std::string_view needle) {
  if (needle.empty()) return false;
  auto it = std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end(),
                        [](char a, char b) {
                          return std::tolower(static_cast<unsigned char>(a)) ==
                                 std::tolower(static_cast<unsigned char>(b));
                        });
  return it != haystack.end();
}

struct Match {
  std::string pattern;
  std::string line;
};

// The most recent line matching any of `patterns` decides: it is the error closest to the
// failure.
Match last_match(std::string_view tail, const std::vector<std::string>& patterns) {
  std::size_t end = tail.size();
  while (end > 0) {
    std::size_t start = tail.rfind('\n', end - 1);
    start = start == std::string_view::npos ? 0 : start + 1;
    std::string_view line = tail.substr(start, end - start);
    if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    for (const auto& p : patterns) {
      if (contains_nocase(line, p)) return {p, std::string(line)};
    }
    if (start == 0) break;
    end = start - 1;
  }
  return {};
}

const char* known_signal_name(int sig) {
  switch (sig) {
    case SIGHUP:
      return "SIGHUP";
    case SIGINT:
      return "SIGINT";
    case SIGQUIT:
      return "SIGQUIT";
    case SIGILL:
      return "SIGILL";
    case SIGTRAP:
      return "SIGTRAP";
    case SIGABRT:
      return "SIGABRT";
    case SIGBUS:
      return "SIGBUS";
    case SIGFPE:
      return "SIGFPE";
    case SIGKILL:
      return "SIGKILL";
    case SIGUSR1:
      return "SIGUSR1";
    case SIGSEGV:
      return "SIGSEGV";
    case SIGUSR2:
      return "SIGUSR2";
    case SIGPIPE:
      return "SIGPIPE";
    case SIGALRM:
      return "SIGALRM";
    case SIGTERM:
      return "SIGTERM";
    case SIGXCPU:
      return "SIGXCPU";
    case SIGXFSZ:
      return "SIGXFSZ";
    case SIGSYS:
      return "SIGSYS";
    default:
      return nullptr;
  }
}

// Signals that another party (an operator, the OOM killer, a scheduler preempting the
// node) sends; the program itself was not at fault.
bool is_outside_kill(int sig) {
  return sig == SIGKILL || sig == SIGTERM || sig == SIGINT || sig == SIGHUP;
}

// The signal behind a status, counting a shell's "128+N" for a child it ran.
int effective_signal(const ExitStatus& s) {
  if (s.signal != 0) return s.signal;
  if (s.code > 128 && s.code < 128 + 65) return s.code - 128;
  return 0;
}

}  // namespace

ExitStatus ExitStatus::from_wait_status(int status) {
  ExitStatus s;
  if (WIFSIGNALED(status)) {
    s.signal = WTERMSIG(status);
  } else if (WIFEXITED(status)) {
    s.code = WEXITSTATUS(status);
  }
  return s;
}

std::string signal_name(int signal) {
  const char* name = known_signal_name(signal);
  return name != nullptr ? name : "signal " + std::to_string(signal);
}

std::string describe(const ExitStatus& status) {
  if (status.signal == 0) return "exit code " + std::to_string(status.code);
  std::string text = "signal " + std::to_string(status.signal);
  if (const char* name = known_signal_name(status.signal)) text += std::string(" (") + name + ")";
  return text;
}

const std::vector<std::string>& builtin_retryable_patterns() {
  static const std::vector<std::string> patterns = {
      "NCCL error",
      "ncclSystemError",
      "ncclInternalError",
      "ncclRemoteError",
      "NCCL communicator was aborted",
      "Watchdog caught collective operation timeout",
      "NCCL timeout",
      "Connection reset by peer",
      // Gloo's words for a peer that died mid-collective (torch's CPU and gloo jobs).
      "Connection closed by peer",
      "connect timeout",
      "Connection timed out",
      "Connection refused",
      "Address already in use",
      "No route to host",
      "Broken pipe",
      "ECC error",
      "NVRM: Xid",
      "Xid error",
      "GPU is lost",
      "unspecified launch failure",
      "RendezvousTimeoutError",
      "RendezvousConnectionError",
  };
  return patterns;
}

const std::vector<std::string>& builtin_fatal_patterns() {
  static const std::vector<std::string> patterns = {
      "an illegal memory access was encountered",
      "CUDA out of memory",
      "CUDA error: out of memory",
      "torch.cuda.OutOfMemoryError",
      "torch.OutOfMemoryError",
  };
  return patterns;
}

Classification classify_failure(const ExitStatus& status, std::string_view log_tail,
                                RestartPolicy policy,
                                const std::vector<std::string>& retryable_errors) {
  Classification c;
  const std::string what = describe(status);
  const int sig = effective_signal(status);
  c.signature = status.signal != 0 ? "signal:" + std::to_string(status.signal)
                                   : "exit:" + std::to_string(status.code);

  if (status.signal == 0 && (status.code == 126 || status.code == 127)) {
    c.reason = what + (status.code == 127 ? " (command not found)" : " (cannot execute)") +
               ": not retryable";
    return c;
  }
  switch (policy) {
    case RestartPolicy::Never:
      c.reason = what + ": not retryable (policy never)";
      return c;
    case RestartPolicy::OnFailure:
      c.retryable = true;
      c.reason = what + ": retryable (policy onFailure)";
      return c;
    case RestartPolicy::ExitCode:
    case RestartPolicy::ExitCodeAndErrorMsg:
      break;
  }

  if (policy == RestartPolicy::ExitCodeAndErrorMsg) {
    if (log_tail.size() > kLogTailBytes)
      log_tail = log_tail.substr(log_tail.size() - kLogTailBytes);
    Match fatal = last_match(log_tail, builtin_fatal_patterns());
    if (!fatal.pattern.empty()) {
      c.matched_pattern = fatal.pattern;
      c.matched_line = fatal.line;
      c.signature = "pattern:" + fatal.pattern;
      c.reason = what + ": not retryable (\"" + fatal.pattern + "\" in the log)";
      return c;
    }
    std::vector<std::string> patterns = retryable_errors;
    patterns.insert(patterns.end(), builtin_retryable_patterns().begin(),
                    builtin_retryable_patterns().end());
    Match retry = last_match(log_tail, patterns);
    if (!retry.pattern.empty()) {
      c.retryable = true;
      c.matched_pattern = retry.pattern;
      c.matched_line = retry.line;
      c.signature = "pattern:" + retry.pattern;
      c.reason = what + ": retryable (\"" + retry.pattern + "\" in the log)";
      return c;
    }
  }
  if (sig != 0 && is_outside_kill(sig)) {
    c.retryable = true;
    c.reason = what + ": retryable (killed from outside)";
    return c;
  }
  c.reason = what + (policy == RestartPolicy::ExitCodeAndErrorMsg
                         ? ": not retryable (no retryable error in the log)"
                         : ": not retryable (policy exitCode)");
  return c;
}

Classification classify_hang(RestartPolicy policy, std::int64_t seconds, bool while_exiting) {
  Classification c;
  c.signature = "hang";
  c.reason = while_exiting ? "hang: ranks still running " + std::to_string(seconds) +
                                 "s after the first one exited"
                           : "hang: no output and no progress for " + std::to_string(seconds) + "s";
  c.retryable = policy != RestartPolicy::Never;
  c.reason += c.retryable ? ": retryable" : ": not retryable (policy never)";
  return c;
}

Classification classify_oom_kill(const ExitStatus& status) {
  Classification c;
  c.signature = "oom";
  c.reason = describe(status) + ": killed by the OOM killer: not retryable";
  return c;
}

}  // namespace pai::launcher
