#include "launcher/coordinator/ended_coordinator.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "launcher/net/auth.h"
#include "launcher/net/client.h"
#include "launcher/net/frame.h"

namespace ended_coordinator_test {

using pai::launcher::coordinator::dismiss_ended_coordinator;
using pai::launcher::coordinator::EndedCoordinator;
using pai::launcher::coordinator::EndedJob;
using Clock = std::chrono::steady_clock;

// Loopback addresses of this test alone (tests isolate by 127.<subnet>.0.x).
constexpr const char* kAddress = "127.183.0.1";
constexpr const char* kEnd = "the job ended: failed, exit code 1: node-2 never joined";

EndedJob job(int port = 0) {
  return EndedJob{.job = "late", .listen_address = kAddress, .port = port, .end = kEnd};
}

// What a launcher of `job_name` hears when it tries to join on `port`.
std::string join(int port, const std::string& job_name, const std::string& peer = "launcher") {
  pai::net::ClientOptions options;
  options.address = kAddress;
  options.port = port;
  options.token = "any-token-0123456789";
  options.job = job_name;
  options.claim = {peer, "node-2"};
  options.connect_timeout = std::chrono::milliseconds(3000);
  try {
    pai::net::Client client(options);
  } catch (const pai::net::ConnectionError& e) {
    return e.what();
  }
  return "joined";
}

// Whether a fresh TCP socket can listen on kAddress:`port`.
bool port_free(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in sin{};
  sin.sin_family = AF_INET;
  sin.sin_port = htons(static_cast<std::uint16_t>(port));
  ::inet_pton(AF_INET, kAddress, &sin.sin_addr);
  const int on = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&sin), sizeof sin) == 0;
  ::close(fd);
  return ok;
}

TEST_CASE("a launcher that comes after the end hears how the job ended, at once") {
  EndedCoordinator ended(job());
  const int port = ended.port();
  auto served = std::async(std::launch::async,
                           [&] { return ended.serve(Clock::now() + std::chrono::seconds(20)); });
  const auto t = Clock::now();
  const std::string answer = join(port, "late");
  CHECK(Clock::now() - t < std::chrono::seconds(2));
  CHECK_THAT(answer, Catch::Contains("rejected by the coordinator: " + std::string(kEnd)));
  CHECK_THAT(answer, Catch::Contains("the launcher of node-2 came after its coordinator ended"));
  // A control client (pai-launch status) is told the same; it then reads the journals.
  CHECK_THAT(join(port, "late", "control"), Catch::Contains(kEnd));
  // Another job's launcher is not told this job's end.
  const std::string other = join(port, "other");
  CHECK_THAT(other, Catch::Contains("is not this coordinator's job"));
  CHECK_THAT(other, !Catch::Contains(kEnd));

  CHECK(dismiss_ended_coordinator(kAddress, port));
  REQUIRE(served.wait_for(std::chrono::seconds(5)) == std::future_status::ready);
  CHECK(served.get() == EndedCoordinator::End::Dismissed);
}

TEST_CASE("a launcher of a run begun since the end is not told the end, and tries again") {
  EndedCoordinator ended(job());
  const int port = ended.port();
  auto served = std::async(std::launch::async,
                           [&] { return ended.serve(Clock::now() + std::chrono::seconds(20)); });
  // A hello of the same job from a process that started a minute after this one: closed
  // without a reject, as if nobody listened (the launcher tries again until its coordinator
  // listens).
  const auto hello = [&](std::int64_t started, const std::string& peer) {
    const nlohmann::json body = {{"job", "late"},
                                 {"peer", peer},
                                 {"node", "node-2"},
                                 {"nonce", std::string(64, 'a')},
                                 {"started", started}};
    const std::string frame = pai::net::encode_frame(pai::net::FrameKind::Hello, 0, body.dump());
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in sin{};
    sin.sin_family = AF_INET;
    sin.sin_port = htons(static_cast<std::uint16_t>(port));
    ::inet_pton(AF_INET, kAddress, &sin.sin_addr);
    REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&sin), sizeof sin) == 0);
    REQUIRE(::send(fd, frame.data(), frame.size(), MSG_NOSIGNAL) ==
            static_cast<ssize_t>(frame.size()));
    std::string answer;
    char buffer[4096];
    for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;) answer.append(buffer, n);
    ::close(fd);
    return answer;
  };
  const std::int64_t later = pai::net::process_started_unix_ms() + 60'000;
  CHECK(hello(later, "launcher").empty());
  // One that started before the end is late, and a control client always hears the end.
  CHECK_THAT(hello(pai::net::process_started_unix_ms() - 60'000, "launcher"),
             Catch::Contains(kEnd));
  CHECK_THAT(hello(later, "control"), Catch::Contains(kEnd));
  CHECK(dismiss_ended_coordinator(kAddress, port));
  REQUIRE(served.wait_for(std::chrono::seconds(5)) == std::future_status::ready);
}

TEST_CASE("garbage and idle connections do not keep a late launcher waiting") {
  EndedCoordinator ended(job());
  const int port = ended.port();
  auto served = std::async(std::launch::async,
                           [&] { return ended.serve(Clock::now() + std::chrono::seconds(30)); });
  std::vector<int> idle;
  sockaddr_in sin{};
  sin.sin_family = AF_INET;
  sin.sin_port = htons(static_cast<std::uint16_t>(port));
  ::inet_pton(AF_INET, kAddress, &sin.sin_addr);
  // More idle connections than it keeps open, and one that sends a frame header announcing
  // a body over the cap.
  for (int i = 0; i < 80; ++i) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&sin), sizeof sin) == 0);
    idle.push_back(fd);
  }
  const std::string garbage(16, '\xff');
  REQUIRE(::send(idle.back(), garbage.data(), garbage.size(), MSG_NOSIGNAL) ==
          static_cast<ssize_t>(garbage.size()));
  const auto t = Clock::now();
  CHECK_THAT(join(port, "late"), Catch::Contains(kEnd));
  CHECK(Clock::now() - t < std::chrono::seconds(3));
  for (int fd : idle) ::close(fd);
  CHECK(dismiss_ended_coordinator(kAddress, port));
  REQUIRE(served.wait_for(std::chrono::seconds(5)) == std::future_status::ready);
}

TEST_CASE("a dismissed ended coordinator has given its port up before the asker hears back") {
  EndedCoordinator ended(job());
  const int port = ended.port();
  auto served = std::async(std::launch::async,
                           [&] { return ended.serve(Clock::now() + std::chrono::seconds(20)); });
  CHECK_FALSE(port_free(port));
  REQUIRE(dismiss_ended_coordinator(kAddress, port));
  CHECK(port_free(port));
  REQUIRE(served.wait_for(std::chrono::seconds(5)) == std::future_status::ready);
  // Nobody left to dismiss.
  CHECK_FALSE(dismiss_ended_coordinator(kAddress, port));
}

TEST_CASE("an ended coordinator goes when its time is up") {
  EndedCoordinator ended(job());
  const auto t = Clock::now();
  CHECK(ended.serve(t + std::chrono::milliseconds(300)) == EndedCoordinator::End::Time);
  CHECK(Clock::now() - t < std::chrono::seconds(2));
}

TEST_CASE("an ended coordinator cannot take a port another holds") {
  EndedCoordinator first(job());
  // Taken by the first, as it would be by a new coordinator of the job.
  CHECK_THROWS_WITH(EndedCoordinator(job(first.port())), Catch::Contains("cannot listen on"));
}

}  // namespace ended_coordinator_test
