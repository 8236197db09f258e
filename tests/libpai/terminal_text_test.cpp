#include "libpai/terminal_text.h"

#include <catch2/catch.hpp>

namespace terminal_text_test {

using pai::terminal_safe;

TEST_CASE("plain text, tabs and UTF-8 pass unchanged") {
  CHECK(terminal_safe("loss=0.25\tstep 10 \\ done") == "loss=0.25\tstep 10 \\ done");
  CHECK(terminal_safe("Schritt \xc3\xbc \xe2\x9c\x93 \xf0\x9f\x9a\x80") ==
        "Schritt \xc3\xbc \xe2\x9c\x93 \xf0\x9f\x9a\x80");
  CHECK(terminal_safe("\xc2\xa0nbsp") == "\xc2\xa0nbsp");
}

TEST_CASE("what a terminal acts on is escaped") {
  CHECK(terminal_safe("\x1b[2J\x1b[Hclear") == "\\x1b[2J\\x1b[Hclear");
  CHECK(terminal_safe("a\nb\rc") == "a\\x0ab\\x0dc");
  CHECK(terminal_safe(std::string_view("nul\0bel\a", 8)) == "nul\\x00bel\\x07");
  CHECK(terminal_safe("del\x7f") == "del\\x7f");
  // C1 CSI (U+009B) acts like ESC [ on some terminals.
  CHECK(terminal_safe("\xc2\x9b"
                      "2J") == "\\xc2\\x9b2J");
  // Not UTF-8: a stray continuation byte and a truncated sequence.
  CHECK(terminal_safe("\x80x\xe2\x9c") == "\\x80x\\xe2\\x9c");
}

}  // namespace terminal_text_test
