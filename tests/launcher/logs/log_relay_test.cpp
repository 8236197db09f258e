#include "launcher/logs/log_relay.h"

#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>

#include "launcher/launcher_harness.h"
#include "launcher/logs/output_writers.h"

namespace log_relay_test {

using namespace pai::launcher;
using pai::testing::slurp;
using pai::testing::TempDir;

namespace {

// A relay writing its terminal side into a file of a temp dir.
struct Fixture {
  TempDir dir;
  int terminal = ::open((dir / "terminal").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  OutputTail tail{16};
  // The terminal's writes are queued (output_writers.h): written before the file is read or
  // its descriptor closed.
  ~Fixture() {
    flush_output();
    ::close(terminal);
  }
  std::string terminal_text() const {
    flush_output();
    return slurp(dir / "terminal");
  }
};

}  // namespace

TEST_CASE("complete lines are prefixed - a partial line waits for its end") {
  Fixture f;
  LogRelay relay("[worker-0/3]", false, 3, f.terminal, &f.tail);
  relay.feed("one\ntw");
  CHECK(f.terminal_text() == "[worker-0/3] one\n");
  relay.feed("o\nthree");
  CHECK(f.terminal_text() == "[worker-0/3] one\n[worker-0/3] two\n");
  relay.finish();
  CHECK(f.terminal_text() == "[worker-0/3] one\n[worker-0/3] two\n[worker-0/3] three\n");
  CHECK(f.tail.text().ends_with("two\nthree"));
}

TEST_CASE("color wraps only the prefix") {
  Fixture f;
  LogRelay relay("[worker-0/0]", true, 0, f.terminal, nullptr);
  relay.feed("hi\n");
  CHECK(f.terminal_text() == "\x1b[32m[worker-0/0]\x1b[0m hi\n");
}

TEST_CASE("binary bytes pass through unchanged") {
  Fixture f;
  LogRelay relay("[w]", false, 0, f.terminal, nullptr);
  const std::string bytes("\x00\xff\x1b[2J\r\x80\n", 9);
  relay.feed(bytes);
  CHECK(f.terminal_text() == "[w] " + bytes);
}

TEST_CASE("a long run without newline is split at 64 KiB on the terminal only") {
  Fixture f;
  LogRelay relay("[w]", false, 0, f.terminal, nullptr);
  const std::string flood(kMaxRelayedLine * 2 + 10, 'x');
  relay.feed(flood.substr(0, 1000));
  relay.feed(flood.substr(1000));
  relay.finish();
  const std::string piece(kMaxRelayedLine, 'x');
  CHECK(f.terminal_text() == "[w] " + piece + "\n[w] " + piece + "\n[w] xxxxxxxxxx\n");
}

TEST_CASE("a feed of many lines between two partial lines relays each line once") {
  Fixture f;
  LogRelay relay("[w]", false, 0, f.terminal, nullptr);
  std::string lines, expected = "[w] head-";
  for (int i = 0; i < 3000; ++i) {
    const std::string line = "line " + std::to_string(i) + "\n";
    lines += line;
    expected += (i == 0 ? "" : "[w] ") + line;
  }
  relay.feed("head-");
  relay.feed(lines + "tail-");
  relay.feed("end\n");
  expected += "[w] tail-end\n";
  CHECK(f.terminal_text() == expected);
}

TEST_CASE("no terminal (-1) or /dev/null - the tail still gets every byte") {
  Fixture f;
  const int null_fd = ::open("/dev/null", O_WRONLY);
  REQUIRE(null_fd >= 0);
  LogRelay relay("[w]", false, 0, null_fd, &f.tail);
  relay.feed("one\ntwo");
  relay.finish();
  flush_output();
  ::close(null_fd);
  CHECK(f.tail.text() == "one\ntwo");
  OutputTail tail(16);
  LogRelay hidden("[w]", false, 0, -1, &tail);
  hidden.feed("three\nfour");
  hidden.finish();
  CHECK(tail.text() == "three\nfour");
  CHECK(f.terminal_text().empty());
}

TEST_CASE("the output tail keeps the last bytes of an append longer than itself") {
  OutputTail tail(4);
  tail.append("ab");
  tail.append("0123456789");
  CHECK(tail.text() == "6789");
  tail.append("x");
  CHECK(tail.text() == "789x");
}

TEST_CASE("the output tail keeps the last bytes and lines") {
  OutputTail tail(10);
  tail.append("0123456789");
  tail.append("abc\nde\n");
  CHECK(tail.text() == "789abc\nde\n");
  CHECK(tail.last_lines(1) == "de");
  CHECK(tail.last_lines(2) == "789abc\nde");
  CHECK(tail.last_lines(5) == "789abc\nde");
  tail.clear();
  CHECK(tail.text().empty());
}

}  // namespace log_relay_test
