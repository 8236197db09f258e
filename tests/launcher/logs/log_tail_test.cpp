#include "launcher/logs/log_tail.h"

#include <catch2/catch.hpp>
#include <string>

namespace log_tail_test {

using namespace pai::launcher;

namespace {

// The text a tail of `lines` sends from `file` when only its last `cap` bytes are looked at.
std::string tail_of(const std::string& file, std::size_t cap, int lines) {
  const std::size_t from = file.size() > cap ? file.size() - cap : 0;
  const TailStart start = tail_start(std::string_view(file).substr(from),
                                     static_cast<std::int64_t>(from), lines);
  return (start.cut ? std::string(kCutLineMarker) : std::string()) +
         file.substr(static_cast<std::size_t>(start.offset));
}

}  // namespace

TEST_CASE("a tail is the last N lines - a last line still being written counts") {
  const std::string file = "one\ntwo\nthree\n";
  CHECK(tail_of(file, 1024, 1) == "three\n");
  CHECK(tail_of(file, 1024, 2) == "two\nthree\n");
  CHECK(tail_of(file, 1024, 3) == file);
  CHECK(tail_of(file, 1024, 10) == file);
  CHECK(tail_of(file, 1024, -1) == file);
  CHECK(tail_of(file, 1024, 0).empty());
  CHECK(tail_of("one\ntwo\nthr", 1024, 1) == "thr");
  CHECK(tail_of("one\ntwo\nthr", 1024, 2) == "two\nthr");
  CHECK(tail_of("", 1024, 5).empty());
  CHECK(tail_of("\n\n", 1024, 1) == "\n");
}

TEST_CASE("a tail never starts inside a line - the cap drops a line it would cut") {
  // The last 10 bytes are "o\nthree\nf\n": "o" is the end of "two".
  const std::string file = "one\ntwo\nthree\nf\n";
  CHECK(tail_of(file, 10, 5) == "three\nf\n");
  CHECK(tail_of(file, 10, -1) == "three\nf\n");
  CHECK(tail_of(file, 10, 2) == "three\nf\n");
  CHECK(tail_of(file, 10, 1) == "f\n");
  // A window that starts right after a newline cannot tell that it does: the window of a
  // 12-byte cap drops "two". Readers look one byte further back (LogStream does).
  CHECK(tail_of(file, 12, 5) == "three\nf\n");
  CHECK(tail_of(file, 13, 5) == "two\nthree\nf\n");
}

TEST_CASE("a last line longer than the cap is sent cut behind a marker") {
  const std::string file = "short\n" + std::string(100, 'x') + "\n";
  CHECK(tail_of(file, 20, 3) == std::string(kCutLineMarker) + std::string(19, 'x') + "\n");
  const TailStart start = tail_start(std::string(20, 'y'), 80, 1);
  CHECK(start == TailStart{80, true});
  // Not cut when the window is the whole file.
  CHECK(tail_start(std::string(20, 'y'), 0, 1) == TailStart{0, false});
}

}  // namespace log_tail_test
