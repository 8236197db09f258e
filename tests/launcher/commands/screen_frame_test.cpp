#include "launcher/commands/screen_frame.h"

#include <catch2/catch.hpp>

namespace screen_frame_test {

using pai::launcher::in_place_frame;

TEST_CASE("a frame goes home, clears each line's end and what is below it") {
  CHECK(in_place_frame("job x: running\nNODE  STATE\n") ==
        "\x1b[Hjob x: running\x1b[K\nNODE  STATE\x1b[K\n\x1b[J");
}

TEST_CASE("a frame's last line without a newline is drawn whole - an empty frame clears") {
  CHECK(in_place_frame("a\nb") == "\x1b[Ha\x1b[K\nb\x1b[K\n\x1b[J");
  CHECK(in_place_frame("") == "\x1b[H\x1b[J");
  CHECK(in_place_frame("\n\n") == "\x1b[H\x1b[K\n\x1b[K\n\x1b[J");
}

}  // namespace screen_frame_test
