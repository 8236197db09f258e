// TCP figures of a set of processes: a real loopback connection of this test process is found
// through its descriptors and the kernel's sock_diag; processes without one give -1.
#include "launcher/os/tcp_stats.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "support/temp_dir.h"

namespace tcp_stats_test {

using namespace pai::launcher;
using pai::testing::spit;
using pai::testing::TempDir;

namespace {

// An established loopback TCP connection from `from` to `to` (IPv4 addresses in 127/8), both
// ends held by this process.
class LoopbackConnection {
 public:
  explicit LoopbackConnection(const char* from = "127.0.0.1", const char* to = "127.0.0.1") {
    listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    REQUIRE(listener_ >= 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    REQUIRE(::inet_pton(AF_INET, to, &address.sin_addr) == 1);
    REQUIRE(::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
    REQUIRE(::listen(listener_, 1) == 0);
    socklen_t length = sizeof address;
    REQUIRE(::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length) == 0);
    client_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in source{};
    source.sin_family = AF_INET;
    REQUIRE(::inet_pton(AF_INET, from, &source.sin_addr) == 1);
    REQUIRE(::bind(client_, reinterpret_cast<sockaddr*>(&source), sizeof source) == 0);
    REQUIRE(::connect(client_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
    server_ = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    REQUIRE(server_ >= 0);
    // Some traffic, so that the kernel has measured a round trip.
    char byte = 'x';
    REQUIRE(::write(client_, &byte, 1) == 1);
    REQUIRE(::read(server_, &byte, 1) == 1);
    REQUIRE(::write(server_, &byte, 1) == 1);
    REQUIRE(::read(client_, &byte, 1) == 1);
  }
  ~LoopbackConnection() {
    ::close(server_);
    ::close(client_);
    ::close(listener_);
  }
  LoopbackConnection(const LoopbackConnection&) = delete;
  LoopbackConnection& operator=(const LoopbackConnection&) = delete;

  /// The listening end's port.
  int port() const {
    sockaddr_in address{};
    socklen_t length = sizeof address;
    REQUIRE(::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length) == 0);
    return ntohs(address.sin_port);
  }

 private:
  int listener_ = -1;
  int client_ = -1;
  int server_ = -1;
};

// A child holding no descriptor but /dev/null, killed and reaped at the end of the scope.
class QuietChild {
 public:
  QuietChild() {
    int ready[2];
    REQUIRE(::pipe(ready) == 0);
    pid_ = ::fork();
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      const int null = ::open("/dev/null", O_RDWR);
      for (int fd = 0; fd < 3; ++fd) ::dup2(null, fd);
      const auto keep = static_cast<unsigned>(ready[1]);
      ::close_range(3, keep - 1, 0);
      ::close_range(keep + 1, ~0u, 0);
      ::close(static_cast<int>(keep));  // the parent reads EOF: nothing of its is held here
      ::pause();
      ::_exit(0);
    }
    ::close(ready[1]);
    char byte = 0;
    CHECK(::read(ready[0], &byte, 1) == 0);
    ::close(ready[0]);
  }
  ~QuietChild() {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  QuietChild(const QuietChild&) = delete;
  QuietChild& operator=(const QuietChild&) = delete;

  int pid() const { return pid_; }

 private:
  int pid_ = -1;
};

}  // namespace

TEST_CASE("a process's loopback connection gives its RTT and retransmits") {
  const LoopbackConnection connection;
  const std::vector<TcpFigures> figures = tcp_figures({{::getpid()}});
  REQUIRE(figures.size() == 1);
  CHECK(figures[0].rtt_us >= 0);
  CHECK(figures[0].retrans >= 0);
}

TEST_CASE("connections are also summarized per remote address, not between equal addresses") {
  const LoopbackConnection local;                           // 127.0.0.1 to itself: left out
  const LoopbackConnection remote("127.0.0.7", "127.0.0.8");  // one end each way
  const std::vector<TcpFigures> figures = tcp_figures({{::getpid()}});
  REQUIRE(figures.size() == 1);
  std::vector<std::string> peers;
  for (const auto& [peer, rtt] : figures[0].peer_rtt_us) {
    peers.push_back(peer);
    CHECK(rtt >= 0);
  }
  CHECK(peers == std::vector<std::string>{"127.0.0.7", "127.0.0.8"});
}

TEST_CASE("connections that sent data within the spread of the latest send give the figures") {
  const auto peers_of = [](const TcpFigures& figures) {
    std::vector<std::string> peers;
    for (const auto& [peer, rtt] : figures.peer_rtt_us) peers.push_back(peer);
    return peers;
  };
  const LoopbackConnection idle("127.0.0.7", "127.0.0.8");
  ::usleep(600 * 1000);
  {
    // Idle alone: the latest send is its own, it counts.
    const std::vector<TcpFigures> figures = tcp_figures({{::getpid()}}, 0, 200);
    REQUIRE(figures.size() == 1);
    CHECK(peers_of(figures[0]) == std::vector<std::string>{"127.0.0.7", "127.0.0.8"});
  }
  const LoopbackConnection busy("127.0.0.9", "127.0.0.10");
  // 600 ms before the latest send: outside a 200 ms spread, inside the default 2 s one.
  CHECK(peers_of(tcp_figures({{::getpid()}}, 0, 200)[0]) ==
        std::vector<std::string>{"127.0.0.10", "127.0.0.9"});
  CHECK(tcp_figures({{::getpid()}})[0].peer_rtt_us.size() == 4);
}

TEST_CASE("the rendezvous store's connections give no RTT, but still retransmits") {
  {
    const LoopbackConnection store("127.0.0.7", "127.0.0.8");
    const LoopbackConnection ring("127.0.0.9", "127.0.0.10");
    const std::vector<TcpFigures> figures = tcp_figures({{::getpid()}}, store.port());
    REQUIRE(figures.size() == 1);
    std::vector<std::string> peers;
    for (const auto& [peer, rtt] : figures[0].peer_rtt_us) peers.push_back(peer);
    CHECK(peers == std::vector<std::string>{"127.0.0.10", "127.0.0.9"});  // both ends of one
    CHECK(figures[0].rtt_us >= 0);
  }
  // The store's connection alone: held, so its retransmits count, but no RTT.
  const LoopbackConnection store("127.0.0.7", "127.0.0.8");
  const std::vector<TcpFigures> figures = tcp_figures({{::getpid()}}, store.port());
  REQUIRE(figures.size() == 1);
  CHECK(figures[0].retrans >= 0);
  CHECK(figures[0].rtt_us == -1);
  CHECK(figures[0].peer_rtt_us.empty());
  // Without a store port it is a connection like any other.
  CHECK(tcp_figures({{::getpid()}})[0].peer_rtt_us.size() == 2);
}

TEST_CASE("processes without a TCP connection give -1") {
  const LoopbackConnection connection;  // this process's, not the child's
  const QuietChild child;
  const std::vector<TcpFigures> figures = tcp_figures({{child.pid()}, {}, {::getpid()}, {1 << 30}});
  REQUIRE(figures.size() == 4);
  for (const std::size_t quiet : {0, 1, 3}) {
    INFO(quiet);
    CHECK(figures[quiet].rtt_us == -1);
    CHECK(figures[quiet].retrans == -1);
  }
  CHECK(figures[2].rtt_us >= 0);
  CHECK(tcp_figures({}).empty());
}

TEST_CASE("a rank's processes are its cgroup's, or its own pid without one") {
  TempDir cgroup;
  CHECK(rank_processes("", 42) == std::vector<int>{42});
  CHECK(rank_processes(cgroup.path(), 42) == std::vector<int>{42});  // no cgroup.procs
  spit(cgroup / "cgroup.procs", "");
  CHECK(rank_processes(cgroup.path(), 42) == std::vector<int>{42});
  spit(cgroup / "cgroup.procs", "42\n43\n77\n");
  CHECK(rank_processes(cgroup.path(), 42) == std::vector<int>{42, 43, 77});
  std::string many;
  for (int pid = 100; pid < 200; ++pid) many += std::to_string(pid) + "\n";
  spit(cgroup / "cgroup.procs", many);
  CHECK(rank_processes(cgroup.path(), 42).size() == kTcpMaxProcesses);
}

}  // namespace tcp_stats_test
