#include "launcher/os/event_loop.h"

#include <unistd.h>

#include <catch2/catch.hpp>

namespace event_loop_test {

using pai::launcher::EventLoop;

TEST_CASE("ready descriptors run their handlers - a timeout runs none") {
  EventLoop loop;
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  int calls = 0;
  loop.watch(fds[0], [&] {
    char c;
    CHECK(read(fds[0], &c, 1) == 1);
    ++calls;
  });
  CHECK(loop.wait_once(0) == 0);
  REQUIRE(write(fds[1], "x", 1) == 1);
  CHECK(loop.wait_once(1000) == 1);
  CHECK(calls == 1);
  loop.unwatch(fds[0]);
  REQUIRE(write(fds[1], "y", 1) == 1);
  CHECK(loop.wait_once(0) == 0);
  close(fds[0]);
  close(fds[1]);
}

TEST_CASE("a handler may unwatch another ready descriptor in the same round") {
  EventLoop loop;
  int a[2], b[2];
  REQUIRE(pipe(a) == 0);
  REQUIRE(pipe(b) == 0);
  int ran = 0;
  loop.watch(a[0], [&] {
    ++ran;
    loop.unwatch(b[0]);
    loop.unwatch(a[0]);
  });
  loop.watch(b[0], [&] {
    ++ran;
    loop.unwatch(a[0]);
    loop.unwatch(b[0]);
  });
  REQUIRE(write(a[1], "x", 1) == 1);
  REQUIRE(write(b[1], "x", 1) == 1);
  CHECK(loop.wait_once(1000) == 1);
  CHECK(ran == 1);
  for (int fd : {a[0], a[1], b[0], b[1]}) close(fd);
}

}  // namespace event_loop_test
