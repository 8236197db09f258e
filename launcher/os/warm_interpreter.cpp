#include "launcher/os/warm_interpreter.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

#include "launcher/os/fd.h"
#include "libpai/python_command.h"

namespace pai::launcher {

namespace {

using Clock = std::chrono::steady_clock;

/// The interpreter refuses larger requests (MAX_REQUEST of warm_interpreter.py).
constexpr std::size_t kMaxRequest = 64U << 20;

std::string request_fields(const SpawnRequest& request) {
  std::string out;
  auto field = [&out](const std::string& s) {
    out += s;
    out += '\0';
  };
  field("1");
  field(request.working_dir);
  field(std::to_string(request.process_group));
  field(std::to_string(::getpid()));
  field(std::to_string(request.argv.size()));
  for (const std::string& a : request.argv) field(a);
  for (const auto& [name, value] : request.env) field(name + "=" + value);
  return out;
}

/// The variables of `env` an interpreter reads when it starts (the last of duplicates):
/// PYTHON* but the two a rank honours itself (-u, -B), the dynamic loader's LD_*, the locale.
std::map<std::string, std::string> startup_variables(
    const std::vector<std::pair<std::string, std::string>>& env) {
  std::map<std::string, std::string> out;
  for (const auto& [name, value] : env) {
    if (name == "PYTHONUNBUFFERED" || name == "PYTHONDONTWRITEBYTECODE") continue;
    if (name.rfind("PYTHON", 0) == 0 || name.rfind("LD_", 0) == 0 || name == "LANG" ||
        name.rfind("LC_", 0) == 0) {
      out[name] = value;
    }
  }
  return out;
}

/// The first variable whose value differs between `a` and `b` (set in one only, or set to
/// another value), or "".
std::string first_difference(const std::map<std::string, std::string>& a,
                             const std::map<std::string, std::string>& b) {
  for (const auto& [name, value] : a) {
    auto it = b.find(name);
    if (it == b.end() || it->second != value) return name;
  }
  for (const auto& [name, value] : b) {
    if (a.find(name) == a.end()) return name;
  }
  return "";
}

/// Waits until `fd` is ready for `events` or `deadline` passes; false on the deadline.
bool wait_for(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    pollfd p{fd, events, 0};
    const int n = ::poll(&p, 1, static_cast<int>(left));
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) return false;
  }
}

}  // namespace

WarmInterpreter::WarmInterpreter(const std::string& interpreter,
                                 const std::vector<std::string>& preload,
                                 std::vector<std::pair<std::string, std::string>> env,
                                 const std::string& working_dir, int log_fd) {
  int ends[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) {
    throw_fd_error("cannot start a warm interpreter: socketpair");
  }
  startup_ = startup_variables(env);
  SpawnRequest request;
  request.argv = {interpreter, "-c", kWarmInterpreterSource};
  request.argv.insert(request.argv.end(), preload.begin(), preload.end());
  request.env = std::move(env);
  request.working_dir = working_dir;
  request.stdout_fd = log_fd;
  request.stderr_fd = log_fd;
  request.channel_fd = ends[1];
  try {
    pid_ = spawn_process(request);
  } catch (...) {
    ::close(ends[0]);
    ::close(ends[1]);
    throw;
  }
  ::close(ends[1]);
  channel_ = ends[0];
  set_nonblocking(channel_);
  started_ = Clock::now();
}

WarmInterpreter::~WarmInterpreter() {
  kill_group();
  close_fd(channel_);
}

// The interpreter leads a process group (spawn_process); its ranks move to groups of their
// own as they are forked, so the group holds the interpreter and whatever its imports
// started, which would otherwise outlive it holding the log descriptors it inherited.
void WarmInterpreter::kill_group() {
  if (pid_ > 0) ::kill(-pid_, SIGKILL);
}

void WarmInterpreter::fail(const std::string& why) {
  state_ = State::Failed;
  failure_ = why;
  kill_group();
  close_fd(channel_);
}

void WarmInterpreter::exited(const std::string& status) {
  pid_ = -1;
  if (state_ != State::Failed) fail("its warm interpreter exited (" + status + ")");
}

bool WarmInterpreter::read_line(std::string* line) {
  for (;;) {
    const std::size_t end = pending_.find('\n');
    if (end != std::string::npos) {
      *line = pending_.substr(0, end);
      pending_.erase(0, end + 1);
      return true;
    }
    if (channel_ < 0) return false;
    char buf[4096];
    const ssize_t n = ::read(channel_, buf, sizeof buf);
    if (n > 0) {
      pending_.append(buf, static_cast<std::size_t>(n));
      // Its lines are short; a flood is not an interpreter of ours talking.
      if (pending_.size() > 65536) {
        fail("its warm interpreter sent an unreadable answer");
        return false;
      }
      continue;
    }
    if (n == 0) {
      fail(state_ == State::Importing ? "its warm interpreter exited while importing"
                                      : "its warm interpreter closed its channel");
      return false;
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN) fail(std::string("reading its warm interpreter: ") + std::strerror(errno));
    return false;
  }
}

WarmInterpreter::State WarmInterpreter::poll() {
  std::string line;
  while (state_ != State::Failed && read_line(&line)) {
    if (line == "ready" && state_ == State::Importing) {
      state_ = State::Ready;
      import_time_ = Clock::now() - started_;
    } else if (line.rfind("error ", 0) == 0 && state_ == State::Importing) {
      preload_failed_ = true;
      fail(line.substr(6));
    } else {
      fail("its warm interpreter said something unexpected: " + line.substr(0, 200));
    }
  }
  return state_;
}

std::optional<int> WarmInterpreter::start(const SpawnRequest& request,
                                          std::chrono::milliseconds timeout, std::string* why) {
  poll();
  if (state_ == State::Importing) {
    const double seconds = std::chrono::duration<double>(Clock::now() - started_).count();
    char buf[128];
    std::snprintf(buf, sizeof buf, "its warm interpreter is still importing (for %.1f s)", seconds);
    *why = buf;
    return std::nullopt;
  }
  if (state_ == State::Failed) {
    *why = failure_;
    return std::nullopt;
  }
  std::string problem;
  if (!parse_python_command(request.argv, &problem)) {
    *why = problem;
    return std::nullopt;
  }
  const std::string differs = first_difference(startup_, startup_variables(request.env));
  if (!differs.empty()) {
    // Another interpreter, started with the new values, can serve the next start.
    fail(differs + " differs from the warm interpreter's");
    *why = failure_;
    return std::nullopt;
  }
  const std::string fields = request_fields(request);
  if (fields.size() > kMaxRequest) {
    *why = "its command and environment exceed the warm interpreter's 64 MiB";
    return std::nullopt;
  }
  const auto deadline = Clock::now() + timeout;
  int devnull = -1;
  if (request.stdin_fd < 0) {
    devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (devnull < 0) throw_fd_error("cannot open /dev/null");
  }
  std::vector<int> fds = {request.stdin_fd >= 0 ? request.stdin_fd : devnull,
                          request.stdout_fd >= 0 ? request.stdout_fd : 1,
                          request.stderr_fd >= 0 ? request.stderr_fd : 2};
  if (request.cgroup_procs_fd >= 0) fds.push_back(request.cgroup_procs_fd);

  const auto size = static_cast<std::uint32_t>(fields.size());
  unsigned char header[4] = {
      static_cast<unsigned char>(size >> 24), static_cast<unsigned char>(size >> 16),
      static_cast<unsigned char>(size >> 8), static_cast<unsigned char>(size)};
  iovec io{header, sizeof header};
  alignas(cmsghdr) char control[CMSG_SPACE(4 * sizeof(int))] = {};
  msghdr msg{};
  msg.msg_iov = &io;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = CMSG_SPACE(fds.size() * sizeof(int));
  cmsghdr* cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(fds.size() * sizeof(int));
  std::memcpy(CMSG_DATA(cmsg), fds.data(), fds.size() * sizeof(int));
  // The socket's buffer is empty between requests: the 4 bytes and the descriptors go at once.
  ssize_t sent = -1;
  while (sent < 0 && wait_for(channel_, POLLOUT, deadline)) {
    sent = ::sendmsg(channel_, &msg, MSG_NOSIGNAL);
    if (sent < 0 && errno != EINTR && errno != EAGAIN) break;
  }
  if (devnull >= 0) ::close(devnull);
  if (sent != static_cast<ssize_t>(sizeof header)) {
    fail(sent < 0 && errno != EAGAIN && errno != EINTR
             ? std::string("its warm interpreter's channel failed: ") + std::strerror(errno)
             : "its warm interpreter did not take a request");
    *why = failure_;
    return std::nullopt;
  }
  std::size_t done = 0;
  while (done < fields.size()) {
    if (!wait_for(channel_, POLLOUT, deadline)) {
      fail("its warm interpreter did not read its request");
      *why = failure_;
      return std::nullopt;
    }
    const ssize_t n = ::send(channel_, fields.data() + done, fields.size() - done, MSG_NOSIGNAL);
    if (n > 0) {
      done += static_cast<std::size_t>(n);
    } else if (n < 0 && errno != EINTR && errno != EAGAIN) {
      fail(std::string("its warm interpreter's channel failed: ") + std::strerror(errno));
      *why = failure_;
      return std::nullopt;
    }
  }
  std::string line;
  while (!read_line(&line)) {
    if (state_ == State::Failed) {
      *why = failure_;
      return std::nullopt;
    }
    if (!wait_for(channel_, POLLIN, deadline)) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "its warm interpreter did not answer within %.1f s",
                    std::chrono::duration<double>(timeout).count());
      fail(buf);
      *why = failure_;
      return std::nullopt;
    }
  }
  if (line.rfind("pid ", 0) == 0) {
    char* end = nullptr;
    const long pid = std::strtol(line.c_str() + 4, &end, 10);
    if (end != nullptr && *end == '\0' && pid > 1) return static_cast<int>(pid);
  }
  if (line.rfind("cold ", 0) == 0) {
    fail(line.substr(5));
  } else {
    fail("its warm interpreter said something unexpected: " + line.substr(0, 200));
  }
  *why = failure_;
  return std::nullopt;
}

}  // namespace pai::launcher
