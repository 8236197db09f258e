#include "launcher/os/write_behind.h"

#include <pthread.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <mutex>
#include <string>
#include <vector>

namespace write_behind_test {

using namespace pai::launcher;
using Clock = std::chrono::steady_clock;

namespace {

// A sink that records what it is given and blocks while its gate is shut, as a terminal under
// Ctrl-S or a frozen file system would.
struct Sink {
  std::mutex mutex;
  std::condition_variable changed;
  bool shut = false;
  bool blocked = false;  // a write waits at the gate now
  std::vector<std::string> written;
  sigset_t mask{};

  WriteStreamOptions options(std::size_t max_queued = SIZE_MAX, bool shared = true) {
    WriteStreamOptions o;
    o.write = [this](std::string_view bytes) {
      std::unique_lock lock(mutex);
      pthread_sigmask(SIG_BLOCK, nullptr, &mask);
      blocked = shut;
      changed.notify_all();
      changed.wait(lock, [&] { return !shut; });
      blocked = false;
      written.emplace_back(bytes);
      return true;
    };
    o.marker = [](std::uint64_t dropped) {
      return "[" + std::to_string(dropped) + " bytes dropped]";
    };
    o.max_queued = max_queued;
    o.shared_bound = shared;
    return o;
  }
  void set_shut(bool value) {
    std::lock_guard lock(mutex);
    shut = value;
    changed.notify_all();
  }
  // Waits until a write is stuck at the shut gate.
  void wait_blocked() {
    std::unique_lock lock(mutex);
    changed.wait(lock, [&] { return blocked; });
  }
  std::vector<std::string> text() {
    std::lock_guard lock(mutex);
    return written;
  }
};

}  // namespace

TEST_CASE("pieces are written in order, by a thread of its own that takes no signals") {
  Sink sink;
  WriteBehind writer(1 << 20);
  auto stream = writer.stream(sink.options());
  CHECK(stream->write("one "));
  CHECK(stream->write("two "));
  stream->write_always("three");
  writer.flush();
  CHECK(sink.text() == std::vector<std::string>{"one ", "two ", "three"});
  // Signals are the loop's: one sent to the process never lands on the writer.
  CHECK(sigismember(&sink.mask, SIGTERM) == 1);
  CHECK(sigismember(&sink.mask, SIGCHLD) == 1);
}

TEST_CASE("a sink that blocks never blocks the writer's callers - beyond the bound pieces drop") {
  Sink sink;
  std::atomic<int> episodes = 0;
  std::atomic<std::size_t> said_queued = 0;
  WriteBehind writer(100, [&](std::size_t queued) {
    ++episodes;
    said_queued = queued;
  });
  auto stream = writer.stream(sink.options());
  sink.set_shut(true);
  CHECK(stream->write(std::string(10, 'a')));  // taken by the writer, which blocks on it
  sink.wait_blocked();
  const auto start = Clock::now();
  int accepted = 0;
  for (int i = 0; i < 1000; ++i) accepted += stream->write(std::string(30, 'b')) ? 1 : 0;
  // 1,000 writes while the sink is stuck: none waited.
  CHECK(Clock::now() - start < std::chrono::seconds(2));
  // The bound counts a piece until it is written: the 10 bytes stuck in the sink, and 3 more.
  CHECK(accepted == 3);
  CHECK(writer.queued() == 100);
  CHECK(stream->dropped() == 997 * 30);
  CHECK(episodes == 1);  // said once, not per drop
  CHECK(said_queued == 100);
  sink.set_shut(false);
  writer.flush();
  // Moving again, the stream says what it dropped before the next piece.
  CHECK(stream->write("c"));
  writer.flush();
  const std::vector<std::string> text = sink.text();
  REQUIRE(text.size() == 6);
  CHECK(text[4] == "[29910 bytes dropped]");
  CHECK(text[5] == "c");
  CHECK(writer.queued() == 0);
  // A new episode is said again.
  sink.set_shut(true);
  CHECK(stream->write(std::string(10, 'd')));
  sink.wait_blocked();
  for (int i = 0; i < 5; ++i) stream->write(std::string(30, 'e'));
  CHECK(episodes == 2);
  sink.set_shut(false);
}

TEST_CASE("a stream of its own bound is not crowded out by the shared one") {
  Sink output;
  Sink journal;
  WriteBehind writer(50);
  auto out = writer.stream(output.options());
  auto records = writer.stream(journal.options(1000, false));
  output.set_shut(true);
  CHECK(out->write(std::string(10, 'x')));
  output.wait_blocked();
  CHECK(out->write(std::string(40, 'y')));
  CHECK_FALSE(out->write(std::string(50, 'z')));  // the shared bound is full
  CHECK(records->write(std::string(500, 'r')));   // its own is not
  CHECK(records->write(std::string(500, 'r')));
  CHECK_FALSE(records->write("r"));  // until it is
  CHECK(records->dropped() == 1);
  output.set_shut(false);
  writer.flush();
  CHECK(journal.text().size() == 2);
}

TEST_CASE("open runs before the first write, close after the last - on the writer's thread") {
  std::vector<std::string> steps;
  std::mutex mutex;
  auto step = [&](std::string what) {
    std::lock_guard lock(mutex);
    steps.push_back(std::move(what));
  };
  WriteBehind writer(1 << 20);
  WriteStreamOptions options;
  options.open = [&] { step("open"); };
  options.write = [&](std::string_view bytes) {
    step(std::string(bytes));
    return true;
  };
  options.close = [&] { step("close"); };
  auto stream = writer.stream(std::move(options));
  stream->write("a");
  stream->write("b");
  stream->close();
  CHECK_FALSE(stream->write("after close"));
  writer.flush();
  CHECK(stream->opened());
  CHECK(steps == std::vector<std::string>{"open", "a", "b", "close"});
}

TEST_CASE("bytes dropped at the very end are marked before the close - nothing else carries it") {
  // A rank whose last lines came while the log file system was frozen: its log must still
  // say that its end is missing.
  Sink sink;
  WriteBehind writer(20);
  auto stream = writer.stream(sink.options());
  sink.set_shut(true);
  CHECK(stream->write(std::string(20, 'a')));
  sink.wait_blocked();
  CHECK_FALSE(stream->write("the last line\n"));
  stream->close();
  sink.set_shut(false);
  writer.flush();
  CHECK(sink.text() == std::vector<std::string>{std::string(20, 'a'), "[14 bytes dropped]"});
  CHECK(stream->dropped() == 14);
}

TEST_CASE("a writer destroyed writes what was queued first") {
  Sink sink;
  {
    WriteBehind writer(1 << 20);
    auto stream = writer.stream(sink.options());
    for (int i = 0; i < 100; ++i) stream->write(std::to_string(i));
  }
  const std::vector<std::string> text = sink.text();
  REQUIRE(text.size() == 100);
  CHECK(text.back() == "99");
}

}  // namespace write_behind_test
