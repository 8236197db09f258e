#include "launcher/checks/port_reservations.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>

namespace port_reservations_test {

using pai::checks::PortReservations;

namespace {

// An address no other test reserves on (the name is per network namespace, like a port).
const std::string kAddress = "127.38.0." + std::to_string(::getpid() % 200 + 1);

}  // namespace

TEST_CASE("a port one launcher reserved is refused to another, naming its pid, until it exits") {
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  const pid_t holder = ::fork();
  REQUIRE(holder >= 0);
  if (holder == 0) {
    // Another launcher: reserves the port, says so, and lives until it is killed.
    ::close(ready[0]);
    PortReservations mine;
    const char byte = mine.reserve(kAddress, 20001).empty() ? 'y' : 'n';
    (void)!::write(ready[1], &byte, 1);
    ::pause();
    ::_exit(0);
  }
  ::close(ready[1]);
  char byte = 0;
  REQUIRE(::read(ready[0], &byte, 1) == 1);
  ::close(ready[0]);
  REQUIRE(byte == 'y');

  PortReservations ours;
  CHECK(ours.reserve(kAddress, 20001) ==
        "reserved by another pai-launch on this host (pid " + std::to_string(holder) + ")");
  // Another port, or the same port on another address of this host, is another reservation.
  CHECK(ours.reserve(kAddress, 20002).empty());
  CHECK(ours.reserve(kAddress + "0", 20001).empty());

  // However the holder ends, the kernel frees the name with it.
  ::kill(holder, SIGKILL);
  ::waitpid(holder, nullptr, 0);
  CHECK(ours.reserve(kAddress, 20001).empty());
}

TEST_CASE("a reservation is held once per launcher and released with it") {
  {
    PortReservations first;
    CHECK(first.reserve(kAddress, 20010).empty());
    // A launcher checking again (a round of checks on the coordinator's request) holds it.
    CHECK(first.reserve(kAddress, 20010).empty());
    PortReservations second;
    CHECK(second.reserve(kAddress, 20010) ==
          "reserved by another pai-launch on this host (pid " + std::to_string(::getpid()) + ")");
  }
  PortReservations after;
  CHECK(after.reserve(kAddress, 20010).empty());
}

}  // namespace port_reservations_test
