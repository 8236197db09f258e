#include "launcher/coordinator/ended_coordinator.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <stdexcept>
#include <vector>

#include "launcher/net/auth.h"
#include "launcher/net/frame.h"

namespace pai::launcher::coordinator {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kMaxOpen = 64;
constexpr std::chrono::seconds kPerConnection{2};
// A hello is far smaller; a peer that sends more without a whole frame is not a launcher.
constexpr std::size_t kMaxHelloBytes = 64 * 1024;
// A launcher that started after the job ended may be of a run of the job begun since, whose
// coordinator (which dismisses us) is about to listen: it hears the end only once it has run
// this long.
constexpr std::int64_t kNewRunGraceMs = 10'000;

// "@pai-ended-coordinator/ADDRESS:PORT" as an abstract socket address (a leading NUL).
sockaddr_un abstract_address(const std::string& address, int port, socklen_t& length) {
  const std::string name =
      std::string(1, '\0') + "pai-ended-coordinator/" + address + ":" + std::to_string(port);
  sockaddr_un sun{};
  sun.sun_family = AF_UNIX;
  const std::size_t n = std::min(name.size(), sizeof sun.sun_path);
  std::memcpy(sun.sun_path, name.data(), n);
  length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + n);
  return sun;
}

std::string error_text(const std::string& what) { return what + ": " + std::strerror(errno); }

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// A non-blocking TCP socket listening on `address`:`port`.
int listen_tcp(const std::string& address, int port, int& bound_port) {
  sockaddr_storage storage{};
  socklen_t length = 0;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&storage);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&storage);
  if (::inet_pton(AF_INET, address.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(static_cast<std::uint16_t>(port));
    length = sizeof *v4;
  } else if (::inet_pton(AF_INET6, address.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<std::uint16_t>(port));
    length = sizeof *v6;
  } else {
    throw std::runtime_error("not a numeric address: " + address);
  }
  const int fd = ::socket(storage.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error(error_text("cannot open a socket"));
  const int on = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&storage), length) != 0 || ::listen(fd, 128) != 0) {
    const std::string why = error_text("cannot listen on " + address + ":" + std::to_string(port));
    ::close(fd);
    throw std::runtime_error(why);
  }
  length = sizeof storage;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&storage), &length);
  bound_port = ntohs(storage.ss_family == AF_INET ? v4->sin_port : v6->sin6_port);
  return fd;
}

// One late peer: its bytes until a whole hello, then its reject.
struct Late {
  int fd = -1;
  Clock::time_point deadline;
  net::FrameDecoder decoder;
  std::size_t received = 0;
  bool answered = false;  // the reject is sent; waiting for the peer to close
};

}  // namespace

struct EndedCoordinator::Impl {
  EndedJob job;
  int listener = -1;
  int dismissal = -1;  // the abstract Unix socket a new coordinator connects to
  int port = 0;
  // When the job ended, about: a launcher that started later is of a new run of the job.
  std::int64_t ended_unix_ms = net::process_started_unix_ms();
  std::deque<Late> open;

  ~Impl() {
    for (Late& late : open) close_fd(late.fd);
    close_fd(listener);
    close_fd(dismissal);
  }

  void accept_all() {
    for (;;) {
      const int fd = ::accept4(listener, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) return;  // EAGAIN, or an error the next poll meets again
      if (open.size() >= kMaxOpen) {
        close_fd(open.front().fd);
        open.pop_front();
      }
      Late& late = open.emplace_back();
      late.fd = fd;
      late.deadline = Clock::now() + kPerConnection;
    }
  }

  // Reads what `late` sent; false when it is done with (closed, answered and gone, garbage).
  bool read(Late& late) {
    char buffer[4096];
    const ssize_t n = ::read(late.fd, buffer, sizeof buffer);
    if (n == 0) return false;
    if (n < 0) return errno == EAGAIN || errno == EINTR;
    if (late.answered) return true;  // unread input would turn our close into a reset
    late.received += static_cast<std::size_t>(n);
    std::string reason;
    try {
      late.decoder.feed(buffer, static_cast<std::size_t>(n));
      net::Frame frame;
      if (!late.decoder.next(frame)) return late.received <= kMaxHelloBytes;
      const net::Hello hello = net::parse_hello(frame, job.job);
      // Maybe not late: a launcher that started after the job ended may be of a run of the job
      // begun since, come before its coordinator listens (which dismisses us). For its first
      // seconds it is closed unanswered and tries again as if nobody listened; then it hears
      // the end. One that started before the end hears it at once, as does a control client
      // (it reads the journals next).
      const std::int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                      std::chrono::system_clock::now().time_since_epoch())
                                      .count();
      if (hello.claim.peer == "launcher" && hello.started_unix_ms > ended_unix_ms &&
          now_ms - hello.started_unix_ms < kNewRunGraceMs) {
        return false;
      }
      reason = late_reject_reason(job, hello.claim.peer, hello.claim.node);
    } catch (const net::ProtocolError& e) {
      reason = e.what();
    }
    const std::string reject = net::ServerHandshake::reject(reason);
    // A few hundred bytes into an empty socket buffer: one write, or the peer is not reading.
    if (::send(late.fd, reject.data(), reject.size(), MSG_NOSIGNAL) < 0) return false;
    ::shutdown(late.fd, SHUT_WR);
    late.answered = true;
    return true;
  }

  // Whether the connection on the dismissal socket is a process of our user (or root).
  static bool may_dismiss(int fd) {
    ucred who{};
    socklen_t length = sizeof who;
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &who, &length) != 0) return false;
    return who.uid == 0 || who.uid == ::getuid();
  }
};

EndedCoordinator::EndedCoordinator(EndedJob job) : impl_(std::make_unique<Impl>()) {
  impl_->job = std::move(job);
  impl_->listener = listen_tcp(impl_->job.listen_address, impl_->job.port, impl_->port);
  impl_->dismissal = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (impl_->dismissal < 0) throw std::runtime_error(error_text("cannot open a Unix socket"));
  socklen_t length = 0;
  const sockaddr_un name = abstract_address(impl_->job.listen_address, impl_->port, length);
  if (::bind(impl_->dismissal, reinterpret_cast<const sockaddr*>(&name), length) != 0 ||
      ::listen(impl_->dismissal, 16) != 0) {
    throw std::runtime_error(error_text("another ended coordinator serves " +
                                        impl_->job.listen_address + ":" +
                                        std::to_string(impl_->port)));
  }
}

EndedCoordinator::~EndedCoordinator() = default;

int EndedCoordinator::port() const { return impl_->port; }

EndedCoordinator::End EndedCoordinator::serve(Clock::time_point until) {
  Impl& s = *impl_;
  for (;;) {
    const auto now = Clock::now();
    if (now >= until) return End::Time;
    // Expired connections go first; they are in order of their deadlines.
    while (!s.open.empty() && s.open.front().deadline <= now) {
      close_fd(s.open.front().fd);
      s.open.pop_front();
    }
    std::vector<pollfd> fds = {{s.listener, POLLIN, 0}, {s.dismissal, POLLIN, 0}};
    for (const Late& late : s.open) fds.push_back({late.fd, POLLIN, 0});
    const auto next = s.open.empty() ? until : std::min(until, s.open.front().deadline);
    const auto wait = std::chrono::ceil<std::chrono::milliseconds>(next - now).count();
    const int ready = ::poll(fds.data(), fds.size(), static_cast<int>(std::max<long>(wait, 0)));
    if (ready <= 0) continue;  // time, or EINTR
    if ((fds[1].revents & POLLIN) != 0) {
      const int asker = ::accept4(s.dismissal, nullptr, nullptr, SOCK_CLOEXEC);
      if (asker >= 0 && Impl::may_dismiss(asker)) {
        // The port first: the asker binds it as soon as it hears from us.
        close_fd(s.listener);
        const char left = '\n';
        [[maybe_unused]] const ssize_t sent = ::send(asker, &left, 1, MSG_NOSIGNAL);
        ::close(asker);
        return End::Dismissed;
      }
      if (asker >= 0) ::close(asker);
    }
    // The connections polled are the first fds.size() - 2 of `open`; accept_all() may close
    // the oldest of them, so they are read before it runs.
    std::vector<int> done;
    for (std::size_t i = 2; i < fds.size(); ++i) {
      if (fds[i].revents == 0) continue;
      Late& late = s.open[i - 2];
      if (!s.read(late)) done.push_back(late.fd);
    }
    for (int fd : done) {
      auto it =
          std::find_if(s.open.begin(), s.open.end(), [&](const Late& l) { return l.fd == fd; });
      close_fd(it->fd);
      s.open.erase(it);
    }
    if ((fds[0].revents & POLLIN) != 0) s.accept_all();
  }
}

std::string late_reject_reason(const EndedJob& job, const std::string& peer,
                               const std::string& node) {
  const std::string who = peer == "launcher" ? "the launcher of " + node : "this request";
  return job.end + " (job " + job.job + " is over: " + who +
         " came after its coordinator ended; run the job again to run it again)";
}

bool dismiss_ended_coordinator(const std::string& address, int port,
                               std::chrono::milliseconds timeout) {
  std::vector<std::string> addresses = {address};
  if (address != "0.0.0.0") addresses.emplace_back("0.0.0.0");
  bool any = false;
  for (const std::string& at : addresses) {
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) continue;
    socklen_t length = 0;
    const sockaddr_un name = abstract_address(at, port, length);
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&name), length) == 0) {
      // It answers once its port is closed (and closes without answering when it refuses).
      pollfd p{fd, POLLIN, 0};
      char answer = 0;
      if (::poll(&p, 1, static_cast<int>(timeout.count())) > 0 && ::read(fd, &answer, 1) == 1) {
        any = true;
      }
    }
    ::close(fd);
  }
  return any;
}

}  // namespace pai::launcher::coordinator
