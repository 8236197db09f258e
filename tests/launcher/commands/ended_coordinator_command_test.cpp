#include "launcher/commands/ended_coordinator_command.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <future>
#include <string>
#include <vector>

namespace ended_coordinator_command_test {

using pai::launcher::ended_coordinator_command;

constexpr const char* kAddress = "127.186.0.1";

TEST_CASE("ended-coordinator refuses malformed arguments with 2") {
  const std::string end = "the job ended: succeeded";
  CHECK(ended_coordinator_command({}) == 2);
  CHECK(ended_coordinator_command({"job", kAddress, "20000", "60"}) == 2);
  CHECK(ended_coordinator_command({"job", kAddress, "70000", "60", end}) == 2);
  CHECK(ended_coordinator_command({"job", kAddress, "2x", "60", end}) == 2);
  CHECK(ended_coordinator_command({"job", kAddress, "20000", "-1", end}) == 2);
  CHECK(ended_coordinator_command({"job", kAddress, "20000", "86401", end}) == 2);
  CHECK(ended_coordinator_command({"job", kAddress, "20000", "60", end, "2"}) == 2);
  CHECK(ended_coordinator_command({"job", kAddress, "20000", "60", end, "x"}) == 2);
}

TEST_CASE("ended-coordinator gives up quietly with 1 when the port is taken") {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in sin{};
  sin.sin_family = AF_INET;
  ::inet_pton(AF_INET, kAddress, &sin.sin_addr);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&sin), sizeof sin) == 0);
  REQUIRE(::listen(fd, 1) == 0);
  socklen_t length = sizeof sin;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&sin), &length);
  const std::string port = std::to_string(ntohs(sin.sin_port));
  CHECK(ended_coordinator_command({"job", kAddress, port, "60", "the job ended: succeeded"}) == 1);
  ::close(fd);
}

TEST_CASE("ended-coordinator serves for the seconds it is given") {
  const auto t = std::chrono::steady_clock::now();
  CHECK(ended_coordinator_command({"job", kAddress, "0", "1", "the job ended: succeeded"}) == 0);
  const auto took = std::chrono::steady_clock::now() - t;
  CHECK(took >= std::chrono::milliseconds(900));
  CHECK(took < std::chrono::seconds(3));
}

TEST_CASE("ended-coordinator says on READY_FD once it listens") {
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  auto served = std::async(std::launch::async, [&] {
    return ended_coordinator_command(
        {"job", kAddress, "0", "1", "the job ended: succeeded", std::to_string(ready[1])});
  });
  char byte = 0;
  CHECK(::read(ready[0], &byte, 1) == 1);
  CHECK(byte == '1');
  // And closes it: nothing more comes.
  CHECK(::read(ready[0], &byte, 1) == 0);
  CHECK(served.get() == 0);
  ::close(ready[0]);
}

}  // namespace ended_coordinator_command_test
