#include "launcher/os/signals.h"

#include <signal.h>
#include <unistd.h>

#include <catch2/catch.hpp>

namespace signals_test {

using namespace pai::launcher;

TEST_CASE("consumed signals are blocked and read from the signalfd - not delivered") {
  block_consumed_signals();
  SignalFd signals;
  CHECK(signals.read_signal() == 0);
  kill(getpid(), SIGTERM);
  kill(getpid(), SIGHUP);
  int first = signals.read_signal();
  int second = signals.read_signal();
  CHECK(((first == SIGTERM && second == SIGHUP) || (first == SIGHUP && second == SIGTERM)));
  CHECK(signals.read_signal() == 0);
  CHECK(consumed_signals() == std::vector<int>{SIGCHLD, SIGTERM, SIGINT, SIGHUP});
}

}  // namespace signals_test
