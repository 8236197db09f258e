#include "launcher/checks/fabric_tcp.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

namespace pai::checks {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::array<char, 8> kMagic{'P', 'A', 'I', 'F', 'A', 'B', '0', '1'};
constexpr std::size_t kKeyBytes = 32;
constexpr std::size_t kGreetingBytes = 16 + kKeyBytes;
constexpr std::size_t kPingBytes = 9;
constexpr std::size_t kReportBytes = 25;
constexpr std::size_t kChunkBytes = 128 * 1024;
// A sender's queue drains after its window ends; a bounded buffer keeps that short even on a
// slow (rate-limited) path, where an autotuned one could hold seconds of data.
constexpr int kSendBufferBytes = 512 * 1024;
constexpr int kMaxStreams = 64;
constexpr int kMaxPings = 1000;

/// A socket closed when it goes out of scope.
class Socket {
 public:
  Socket() = default;
  explicit Socket(int fd) : fd_(fd) {}
  ~Socket() {
    if (fd_ >= 0) ::close(fd_);
  }
  Socket(Socket&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Socket& operator=(Socket&& other) noexcept {
    if (this != &other) {
      if (fd_ >= 0) ::close(fd_);
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  int get() const { return fd_; }
  /// Gives the descriptor up: the caller closes it.
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_ = -1;
};

std::string duration_text(std::chrono::milliseconds d) {
  if (d.count() % 1000 == 0) return std::to_string(d.count() / 1000) + "s";
  return std::to_string(d.count()) + "ms";
}

[[noreturn]] void fail(const std::string& what) { throw FabricTcpError(what); }

[[noreturn]] void timed_out(const FabricTcpSettings& s, const std::string& waiting_for) {
  fail("timed out after " + duration_text(s.timeout) + " waiting for " + waiting_for);
}

void validate(const FabricTcpSettings& s) {
  if (s.streams < 1 || s.streams > kMaxStreams) {
    fail("streams must be 1.." + std::to_string(kMaxStreams) + ", not " +
         std::to_string(s.streams));
  }
  if (s.pings < 1 || s.pings > kMaxPings) {
    fail("pings must be 1.." + std::to_string(kMaxPings) + ", not " + std::to_string(s.pings));
  }
  if (s.key.size() > kKeyBytes) fail("the pair key is longer than 32 bytes");
  if (s.duration.count() <= 0 || s.timeout.count() <= 0) {
    fail("duration and timeout must be positive");
  }
}

int ms_until(Clock::time_point deadline) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return static_cast<int>(std::clamp<long long>(left, 0, 1 << 30));
}

/// Waits for `events` on `fd`; false when the deadline passed first.
bool wait_for(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    pollfd p{fd, events, 0};
    const int n = ::poll(&p, 1, ms_until(deadline));
    if (n > 0) return true;
    if (n == 0) return false;
    if (errno != EINTR) fail(std::string("poll: ") + std::strerror(errno));
  }
}

void send_all(int fd, const char* data, std::size_t size, Clock::time_point deadline,
              const FabricTcpSettings& s, const std::string& what) {
  while (size > 0) {
    const ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
    if (n > 0) {
      data += n;
      size -= static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (!wait_for(fd, POLLOUT, deadline)) timed_out(s, what);
      continue;
    }
    fail("sending " + what + ": " + std::strerror(errno));
  }
}

void recv_all(int fd, char* data, std::size_t size, Clock::time_point deadline,
              const FabricTcpSettings& s, const std::string& what) {
  while (size > 0) {
    const ssize_t n = ::recv(fd, data, size, 0);
    if (n > 0) {
      data += n;
      size -= static_cast<std::size_t>(n);
      continue;
    }
    if (n == 0) fail("the partner closed the connection before " + what);
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      if (!wait_for(fd, POLLIN, deadline)) timed_out(s, what);
      continue;
    }
    fail("receiving " + what + ": " + std::strerror(errno));
  }
}

void put_u64(char* out, std::uint64_t v) {
  for (int k = 7; k >= 0; --k) {
    out[k] = static_cast<char>(v & 0xff);
    v >>= 8;
  }
}

std::uint64_t get_u64(const char* in) {
  std::uint64_t v = 0;
  for (int k = 0; k < 8; ++k) v = (v << 8) | static_cast<unsigned char>(in[k]);
  return v;
}

std::array<char, kGreetingBytes> greeting(char kind, int index, const std::string& key) {
  std::array<char, kGreetingBytes> g{};
  std::copy(kMagic.begin(), kMagic.end(), g.begin());
  g[8] = kind;
  g[9] = static_cast<char>(index);
  std::copy(key.begin(), key.end(), g.begin() + 16);
  return g;
}

/// A sockaddr for a numeric address.
struct Address {
  sockaddr_storage storage{};
  socklen_t size = 0;
  int family() const { return storage.ss_family; }
};

Address numeric(const std::string& address, int port, bool any_when_empty) {
  Address a;
  if (address.empty() && any_when_empty) {
    auto* in = reinterpret_cast<sockaddr_in*>(&a.storage);
    in->sin_family = AF_INET;
    in->sin_addr.s_addr = htonl(INADDR_ANY);
    in->sin_port = htons(static_cast<std::uint16_t>(port));
    a.size = sizeof(sockaddr_in);
    return a;
  }
  auto* in = reinterpret_cast<sockaddr_in*>(&a.storage);
  if (::inet_pton(AF_INET, address.c_str(), &in->sin_addr) == 1) {
    in->sin_family = AF_INET;
    in->sin_port = htons(static_cast<std::uint16_t>(port));
    a.size = sizeof(sockaddr_in);
    return a;
  }
  auto* in6 = reinterpret_cast<sockaddr_in6*>(&a.storage);
  if (::inet_pton(AF_INET6, address.c_str(), &in6->sin6_addr) == 1) {
    in6->sin6_family = AF_INET6;
    in6->sin6_port = htons(static_cast<std::uint16_t>(port));
    a.size = sizeof(sockaddr_in6);
    return a;
  }
  fail("\"" + address + "\" is not a numeric IPv4 or IPv6 address");
}

std::string endpoint(const std::string& address, int port) {
  return (address.find(':') != std::string::npos ? "[" + address + "]" : address) + ":" +
         std::to_string(port);
}

Socket connect_to(const Address& to, const std::string& where, const Address* from,
                  Clock::time_point deadline, const FabricTcpSettings& s) {
  Socket sock(::socket(to.family(), SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (sock.get() < 0) fail(std::string("socket: ") + std::strerror(errno));
  if (from != nullptr &&
      ::bind(sock.get(), reinterpret_cast<const sockaddr*>(&from->storage), from->size) != 0) {
    fail("binding the source address for " + where + ": " + std::strerror(errno));
  }
  if (::connect(sock.get(), reinterpret_cast<const sockaddr*>(&to.storage), to.size) != 0) {
    if (errno != EINPROGRESS) fail("connect to " + where + ": " + std::strerror(errno));
    if (!wait_for(sock.get(), POLLOUT, deadline)) timed_out(s, "a connection to " + where);
    int error = 0;
    socklen_t size = sizeof error;
    ::getsockopt(sock.get(), SOL_SOCKET, SO_ERROR, &error, &size);
    if (error != 0) fail("connect to " + where + ": " + std::strerror(error));
  }
  const int one = 1;
  ::setsockopt(sock.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return sock;
}

/// What one side received in its window.
struct Received {
  std::int64_t bytes = 0;
  std::int64_t micros = 0;
};

/// Sends on every stream for the duration (or up to the cap) while reading from every one;
/// counts what arrives within the window; then shuts the sending side and reads every stream
/// to its end, so the partner's last writes do not fail.
Received exchange_data(std::vector<Socket>& streams, const FabricTcpSettings& s,
                       Clock::time_point deadline) {
  static const std::vector<char> out(kChunkBytes, '\x5a');
  std::vector<char> in(kChunkBytes);
  const Clock::time_point start = Clock::now();
  const Clock::time_point window_end = start + s.duration;
  struct Stream {
    std::int64_t sent = 0;
    bool shut = false;
    bool eof = false;
  };
  std::vector<Stream> state(streams.size());
  Received got;
  std::vector<pollfd> polls(streams.size());
  for (;;) {
    const Clock::time_point now = Clock::now();
    bool open = false;
    for (std::size_t k = 0; k < streams.size(); ++k) {
      Stream& st = state[k];
      const bool capped = s.max_bytes > 0 && st.sent >= s.max_bytes;
      if (!st.shut && (now >= window_end || capped)) {
        ::shutdown(streams[k].get(), SHUT_WR);
        st.shut = true;
      }
      polls[k] = {streams[k].get(), 0, 0};
      if (!st.eof) polls[k].events |= POLLIN;
      if (!st.shut) polls[k].events |= POLLOUT;
      if (!st.eof || !st.shut) open = true;
    }
    if (!open) break;
    if (now >= deadline) timed_out(s, "the partner to finish sending");
    const Clock::time_point wake = now < window_end ? std::min(window_end, deadline) : deadline;
    const int n = ::poll(polls.data(), polls.size(), std::max(1, ms_until(wake)));
    if (n < 0 && errno != EINTR) fail(std::string("poll: ") + std::strerror(errno));
    if (n <= 0) continue;
    for (std::size_t k = 0; k < streams.size(); ++k) {
      Stream& st = state[k];
      const short ready = polls[k].revents;
      if ((ready & (POLLIN | POLLHUP | POLLERR)) != 0 && !st.eof) {
        const ssize_t r = ::recv(streams[k].get(), in.data(), in.size(), 0);
        if (r > 0) {
          if (Clock::now() <= window_end) got.bytes += r;
        } else if (r == 0) {
          st.eof = true;
        } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
          fail("data stream " + std::to_string(k) + ": " + std::strerror(errno));
        }
      }
      if ((ready & POLLOUT) != 0 && !st.shut) {
        std::size_t size = out.size();
        if (s.max_bytes > 0) size = std::min<std::int64_t>(size, s.max_bytes - st.sent);
        const ssize_t w = ::send(streams[k].get(), out.data(), size, MSG_NOSIGNAL);
        if (w > 0) {
          st.sent += w;
        } else if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
          fail("data stream " + std::to_string(k) + ": " + std::strerror(errno));
        }
      }
    }
  }
  got.micros = std::chrono::duration_cast<std::chrono::microseconds>(s.duration).count();
  return got;
}

double gbps_of(std::int64_t bytes, std::int64_t micros) {
  return micros <= 0 ? 0 : static_cast<double>(bytes) * 8 / (static_cast<double>(micros) * 1000);
}

/// Sends this side's report and reads the partner's; fills the figures.
FabricTcpFigures trade_reports(int control, const Received& mine, double latency_us,
                               Clock::time_point deadline, const FabricTcpSettings& s) {
  std::array<char, kReportBytes> report{};
  report[0] = 'R';
  put_u64(report.data() + 1, static_cast<std::uint64_t>(mine.bytes));
  put_u64(report.data() + 9, static_cast<std::uint64_t>(mine.micros));
  put_u64(report.data() + 17, static_cast<std::uint64_t>(latency_us * 1000));
  send_all(control, report.data(), report.size(), deadline, s, "the report");
  std::array<char, kReportBytes> theirs{};
  recv_all(control, theirs.data(), theirs.size(), deadline, s, "the partner's report");
  if (theirs[0] != 'R') fail("the partner sent garbage instead of its report");
  const std::uint64_t bytes = get_u64(theirs.data() + 1);
  const std::uint64_t micros = get_u64(theirs.data() + 9);
  const std::uint64_t latency_ns = get_u64(theirs.data() + 17);
  constexpr std::uint64_t kLimit = std::uint64_t{1} << 62;
  if (bytes >= kLimit || micros >= kLimit || latency_ns >= kLimit) {
    fail("the partner sent garbage instead of its report");
  }
  FabricTcpFigures f;
  f.bytes_in = mine.bytes;
  f.in_gbps = gbps_of(mine.bytes, mine.micros);
  f.bytes_out = static_cast<std::int64_t>(bytes);
  f.out_gbps = gbps_of(f.bytes_out, static_cast<std::int64_t>(micros));
  f.latency_us = latency_us > 0 ? latency_us : static_cast<double>(latency_ns) / 1000;
  return f;
}

void limit_send_buffer(int fd) {
  ::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &kSendBufferBytes, sizeof kSendBufferBytes);
}

}  // namespace

FabricTcpListener::FabricTcpListener(const std::string& address, int port_min, int port_max) {
  std::string last_error = "no port in the range";
  for (int port = port_max; port >= port_min && port >= 0; --port) {
    const Address at = numeric(address, port, true);
    Socket sock(::socket(at.family(), SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    if (sock.get() < 0) fail(std::string("socket: ") + std::strerror(errno));
    const int one = 1;
    ::setsockopt(sock.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(sock.get(), reinterpret_cast<const sockaddr*>(&at.storage), at.size) != 0 ||
        ::listen(sock.get(), kMaxStreams + 4) != 0) {
      last_error = std::strerror(errno);
      continue;
    }
    sockaddr_storage bound{};
    socklen_t size = sizeof bound;
    ::getsockname(sock.get(), reinterpret_cast<sockaddr*>(&bound), &size);
    port_ =
        ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<const sockaddr_in6*>(&bound)->sin6_port
                                          : reinterpret_cast<const sockaddr_in*>(&bound)->sin_port);
    fd_ = sock.release();
    return;
  }
  fail("no free port to listen on in " + std::to_string(port_min) + "-" + std::to_string(port_max) +
       " at " + (address.empty() ? "*" : address) + ": " + last_error);
}

FabricTcpListener::~FabricTcpListener() {
  if (fd_ >= 0) ::close(fd_);
}

FabricTcpFigures FabricTcpListener::serve(const FabricTcpSettings& s) {
  validate(s);
  const Clock::time_point deadline = Clock::now() + s.timeout;
  const std::array<char, kGreetingBytes> expected_key = greeting(0, 0, s.key);

  // Accept until the partner's control and data connections have greeted; other connections
  // (a port scanner, a stale partner with another key) are closed and do not count.
  struct Pending {
    Socket sock;
    std::array<char, kGreetingBytes> bytes{};
    std::size_t have = 0;
  };
  std::vector<Pending> pending;
  Socket control;
  std::vector<Socket> data(static_cast<std::size_t>(s.streams));
  int connected_data = 0;
  int strangers = 0;
  while (control.get() < 0 || connected_data < s.streams) {
    std::vector<pollfd> polls{{fd_, POLLIN, 0}};
    for (const Pending& p : pending) polls.push_back({p.sock.get(), POLLIN, 0});
    const int n = ::poll(polls.data(), polls.size(), ms_until(deadline));
    if (n < 0 && errno != EINTR) fail(std::string("poll: ") + std::strerror(errno));
    if (n == 0) {
      timed_out(s, "the partner to connect (" + std::to_string(connected_data) + " of " +
                       std::to_string(s.streams) + " data streams" +
                       (control.get() >= 0 ? ", control connected" : ", no control connection") +
                       (strangers > 0 ? ", " + std::to_string(strangers) +
                                            " connection(s) without the pair's greeting closed"
                                      : "") +
                       ")");
    }
    if (n <= 0) continue;
    for (std::size_t k = pending.size(); k-- > 0;) {
      if (polls[k + 1].revents == 0) continue;
      Pending& p = pending[k];
      const ssize_t r = ::recv(p.sock.get(), p.bytes.data() + p.have, p.bytes.size() - p.have, 0);
      if (r < 0 && (errno == EAGAIN || errno == EINTR)) continue;
      if (r > 0) p.have += static_cast<std::size_t>(r);
      bool keep = r > 0;
      if (keep && p.have == kGreetingBytes) {
        const bool magic = std::equal(kMagic.begin(), kMagic.end(), p.bytes.begin());
        const bool key =
            std::equal(expected_key.begin() + 16, expected_key.end(), p.bytes.begin() + 16);
        const char kind = p.bytes[8];
        const int index = static_cast<unsigned char>(p.bytes[9]);
        keep = false;
        if (magic && key && kind == 'C' && control.get() < 0) {
          control = std::move(p.sock);
        } else if (magic && key && kind == 'D' && index < s.streams &&
                   data[static_cast<std::size_t>(index)].get() < 0) {
          limit_send_buffer(p.sock.get());
          data[static_cast<std::size_t>(index)] = std::move(p.sock);
          ++connected_data;
        } else {
          ++strangers;
        }
        pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(k));
        continue;
      }
      if (!keep) {
        ++strangers;
        pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(k));
      }
    }
    if ((polls[0].revents & POLLIN) != 0) {
      for (;;) {
        const int fd = ::accept4(fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) break;
        const int one = 1;
        ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        pending.push_back(Pending{Socket(fd)});
      }
    }
  }
  pending.clear();

  // Echo pings until the partner says go.
  for (int count = 0;; ++count) {
    std::array<char, kPingBytes> ping{};
    recv_all(control.get(), ping.data(), ping.size(), deadline, s, "the partner's pings");
    if (ping[0] == 'G') break;
    if (ping[0] != 'P' || count >= kMaxPings) {
      fail("the partner sent garbage on the control connection");
    }
    send_all(control.get(), ping.data(), ping.size(), deadline, s, "a ping's echo");
  }
  const Received got = exchange_data(data, s, deadline);
  return trade_reports(control.get(), got, 0, deadline, s);
}

FabricTcpFigures measure_fabric_tcp(const std::string& address, int port,
                                    const FabricTcpSettings& s, const std::string& source) {
  validate(s);
  const Clock::time_point deadline = Clock::now() + s.timeout;
  const std::string where = endpoint(address, port);
  const Address to = numeric(address, port, false);
  Address from_storage;
  const Address* from = nullptr;
  if (!source.empty()) {
    from_storage = numeric(source, 0, false);
    from = &from_storage;
  }
  try {
    Socket control = connect_to(to, where, from, deadline, s);
    const auto hello = greeting('C', 0, s.key);
    send_all(control.get(), hello.data(), hello.size(), deadline, s, "the greeting");
    std::vector<Socket> data;
    for (int k = 0; k < s.streams; ++k) {
      data.push_back(connect_to(to, where, from, deadline, s));
      limit_send_buffer(data.back().get());
      const auto g = greeting('D', k, s.key);
      send_all(data.back().get(), g.data(), g.size(), deadline, s, "the greeting");
    }
    std::vector<double> rtts;
    for (int k = 0; k < s.pings; ++k) {
      std::array<char, kPingBytes> ping{};
      ping[0] = 'P';
      put_u64(ping.data() + 1, static_cast<std::uint64_t>(k) * 0x9e3779b97f4a7c15ull);
      const Clock::time_point sent = Clock::now();
      send_all(control.get(), ping.data(), ping.size(), deadline, s, "a ping");
      std::array<char, kPingBytes> echo{};
      recv_all(control.get(), echo.data(), echo.size(), deadline, s, "a ping's echo");
      if (echo != ping) fail("the partner answered a ping with garbage");
      rtts.push_back(std::chrono::duration<double, std::micro>(Clock::now() - sent).count());
    }
    std::sort(rtts.begin(), rtts.end());
    const double latency = rtts[rtts.size() / 2];
    std::array<char, kPingBytes> go{};
    go[0] = 'G';
    send_all(control.get(), go.data(), go.size(), deadline, s, "the start");
    const Received got = exchange_data(data, s, deadline);
    return trade_reports(control.get(), got, latency, deadline, s);
  } catch (const FabricTcpError& e) {
    const std::string what = e.what();
    if (what.find(where) != std::string::npos) throw;
    throw FabricTcpError(where + ": " + what);
  }
}

}  // namespace pai::checks
