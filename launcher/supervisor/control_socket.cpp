#include "launcher/supervisor/control_socket.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <stdexcept>

#include "libpai/duration.h"

namespace pai::launcher {

namespace {

// Enough for one request and its newline; more pending means a too-long line.
constexpr std::size_t kReadChunk = 8192;
// A misbehaving client cannot exhaust the launcher's descriptors.
constexpr std::size_t kMaxClients = 64;

sockaddr_un socket_address(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path) {
    throw std::runtime_error("control socket path is too long (" + std::to_string(path.size()) +
                             " bytes, at most " + std::to_string(sizeof addr.sun_path - 1) +
                             "): " + path);
  }
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  return addr;
}

std::string errno_text() { return std::strerror(errno); }

// A step number: a whole number >= 0, nothing else.
std::optional<std::int64_t> parse_step(std::string_view text) {
  std::int64_t step = -1;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), step);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || step < 0) {
    return std::nullopt;
  }
  return step;
}

// `verb`'s duration argument: seconds, 0 for "default", -1 for "off" where `off_allowed`.
std::optional<std::int64_t> parse_interval(std::string_view verb, std::string_view arg,
                                           bool off_allowed, std::string* error) {
  if (arg == "default") return 0;
  if (off_allowed && arg == "off") return -1;
  std::string why;
  auto seconds = parse_duration(arg, &why);
  if (seconds && *seconds > 0) return *seconds;
  *error = std::string(verb) + " needs a duration from 1s to " +
           format_duration(kMaxDurationSeconds) + " (90, 90s, 30m, 2h), 'default'" +
           (off_allowed ? " or 'off'" : "") + ", got '" + std::string(arg) + "'";
  return std::nullopt;
}

void reply(int fd, const std::string& text) {
  std::string line = text + "\n";
  // Non-blocking: a client that does not read its replies loses them, nobody waits.
  (void)::send(fd, line.data(), line.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
}

}  // namespace

std::optional<ControlRequest> parse_control_line(std::string_view line, std::string* error) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  const std::size_t space = line.find(' ');
  const std::string_view verb = line.substr(0, space);
  const std::string_view arg = space == std::string_view::npos ? "" : line.substr(space + 1);
  if (verb == "notify") {
    if (arg.empty()) {
      *error = "notify needs a message";
      return std::nullopt;
    }
    return NotifyRequest{std::string(arg)};
  }
  if (verb == "progress") {
    auto step = parse_step(arg);
    if (!step) {
      *error = "progress needs a step number >= 0, got '" + std::string(arg) + "'";
      return std::nullopt;
    }
    return ProgressRequest{*step};
  }
  if (verb == "checkpoint-begin" || verb == "checkpoint-resumed" || verb == "checkpoint-done" ||
      verb == "checkpoint-failed") {
    using Phase = CheckpointRequest::Phase;
    const Phase phase = verb == "checkpoint-begin"     ? Phase::Begin
                        : verb == "checkpoint-resumed" ? Phase::Resumed
                        : verb == "checkpoint-done"    ? Phase::Done
                                                       : Phase::Failed;
    // Begin and resumed: a step only; done and failed: a step, then a text.
    const bool step_only = phase == Phase::Begin || phase == Phase::Resumed;
    const std::size_t gap = arg.find(' ');
    const std::string_view number = step_only ? arg : arg.substr(0, gap);
    const std::string_view text = gap == std::string_view::npos ? "" : arg.substr(gap + 1);
    auto step = parse_step(number);
    if (!step || (!step_only && text.empty())) {
      *error = std::string(verb) + " needs " +
               (step_only              ? "a step number >= 0"
                : phase == Phase::Done ? "a step number >= 0 and the checkpoint's path"
                                       : "a step number >= 0 and why it failed") +
               ", got '" + std::string(arg) + "'";
      return std::nullopt;
    }
    return CheckpointRequest{phase, *step, std::string(text)};
  }
  if (verb == "hang-interval") {
    auto seconds = parse_interval(verb, arg, true, error);
    if (!seconds) return std::nullopt;
    return HangIntervalRequest{*seconds};
  }
  if (verb == "exit-hang-interval") {
    auto seconds = parse_interval(verb, arg, false, error);
    if (!seconds) return std::nullopt;
    return ExitHangIntervalRequest{*seconds};
  }
  if (verb == "retryable-error") {
    if (arg.empty()) {
      *error = "retryable-error needs the text to look for";
      return std::nullopt;
    }
    return RetryableErrorRequest{std::string(arg)};
  }
  if (verb == "checkpoint-advice") {
    if (!arg.empty()) {
      *error = "checkpoint-advice takes no argument, got '" + std::string(arg.substr(0, 64)) + "'";
      return std::nullopt;
    }
    return CheckpointAdviceRequest{};
  }
  std::string shown(verb.substr(0, 64));
  for (char& c : shown) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  }
  *error = "unknown request '" + shown +
           "' (expected notify, progress, hang-interval, exit-hang-interval, "
           "retryable-error, checkpoint-begin, checkpoint-resumed, checkpoint-done, "
           "checkpoint-failed or "
           "checkpoint-advice)";
  return std::nullopt;
}

ControlServer::ControlServer(std::string path, EventLoop& loop, RequestHandler handler)
    : path_(std::move(path)), loop_(loop), handler_(std::move(handler)) {
  const sockaddr_un addr = socket_address(path_);
  listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) throw std::runtime_error("cannot create control socket: " + errno_text());
  const auto* sa = reinterpret_cast<const sockaddr*>(&addr);
  int rc = ::bind(listen_fd_, sa, sizeof addr);
  if (rc != 0 && errno == EADDRINUSE) {
    int probe = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const bool alive = probe >= 0 && ::connect(probe, sa, sizeof addr) == 0;
    if (probe >= 0) ::close(probe);
    if (alive) {
      ::close(listen_fd_);
      throw std::runtime_error("another pai-launch serves the control socket " + path_);
    }
    ::unlink(path_.c_str());
    rc = ::bind(listen_fd_, sa, sizeof addr);
  }
  if (rc != 0 || ::listen(listen_fd_, 16) != 0) {
    const std::string why = errno_text();
    ::close(listen_fd_);
    throw std::runtime_error("cannot listen on control socket " + path_ + ": " + why);
  }
  loop_.watch(listen_fd_, [this] { accept_clients(); });
}

ControlServer::~ControlServer() {
  for (auto& [fd, buffer] : clients_) {
    loop_.unwatch(fd);
    ::close(fd);
  }
  loop_.unwatch(listen_fd_);
  ::close(listen_fd_);
  ::unlink(path_.c_str());
}

void ControlServer::accept_clients() {
  for (;;) {
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    if (clients_.size() >= kMaxClients) {
      reply(fd, "error too many connections");
      ::close(fd);
      continue;
    }
    ucred peer{};
    socklen_t length = sizeof peer;
    clients_[fd].pid = ::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &length) == 0 ? peer.pid : 0;
    loop_.watch(fd, [this, fd] { read_client(fd); });
  }
}

void ControlServer::drop(int fd) {
  loop_.unwatch(fd);
  ::close(fd);
  clients_.erase(fd);
}

void ControlServer::read_client(int fd) {
  char chunk[kReadChunk];
  ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
  if (n <= 0) {
    drop(fd);
    return;
  }
  Client& client = clients_[fd];
  std::string& buffer = client.buffer;
  buffer.append(chunk, static_cast<std::size_t>(n));
  std::size_t start = 0;
  for (std::size_t nl; (nl = buffer.find('\n', start)) != std::string::npos; start = nl + 1) {
    std::string_view line(buffer.data() + start, nl - start);
    if (line.size() > kMaxControlLine) break;
    std::string error;
    auto request = parse_control_line(line, &error);
    ControlReply answer = request ? handler_(*request, client.pid) : ControlReply::error(error);
    const std::string& text = answer.text;
    reply(fd, (answer.ok ? "ok" : "error") + (text.empty() ? "" : " " + text));
  }
  buffer.erase(0, start);
  if (buffer.size() > kMaxControlLine) {
    reply(fd, "error line too long (limit " + std::to_string(kMaxControlLine) + " bytes)");
    drop(fd);
  }
}

std::string send_control_request(const std::string& path, const std::string& line, int timeout_ms) {
  const sockaddr_un addr = socket_address(path);
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error("cannot create socket: " + errno_text());
  timeval tv{timeout_ms / 1000, (timeout_ms % 1000) * 1000};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    const std::string why = errno_text();
    ::close(fd);
    throw std::runtime_error("cannot connect to control socket " + path + ": " + why);
  }
  const std::string request = line + "\n";
  if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) !=
      static_cast<ssize_t>(request.size())) {
    const std::string why = errno_text();
    ::close(fd);
    throw std::runtime_error("cannot send to control socket " + path + ": " + why);
  }
  std::string reply_line;
  char c;
  for (;;) {
    ssize_t n = ::recv(fd, &c, 1, 0);
    if (n == 1 && c != '\n') {
      reply_line += c;
      continue;
    }
    if (n == 1) break;
    if (n < 0 && errno == EINTR) continue;
    ::close(fd);
    throw std::runtime_error(n == 0 ? "control socket " + path + " closed without a reply"
                                    : "no reply from control socket " + path);
  }
  ::close(fd);
  return reply_line;
}

}  // namespace pai::launcher
