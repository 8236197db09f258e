#include "launcher/report/html_text.h"

#include <catch2/catch.hpp>

namespace html_text_test {

using namespace pai::launcher::report;

TEST_CASE("markup characters become entities") {
  CHECK(html_text("<script>alert(\"x\" & 'y')</script>") ==
        "&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;");
  CHECK(html_text("plain text, UTF-8 caf\xC3\xA9 \xE2\x9C\x93") ==
        "plain text, UTF-8 caf\xC3\xA9 \xE2\x9C\x93");
}

TEST_CASE("control characters and bytes that are not UTF-8 are shown, never passed on") {
  CHECK(html_text(std::string("a\0b", 3)) == "a\\x00b");
  CHECK(html_text("tab\tkept, newline\nnot, \x1b[31mred\x7f") ==
        "tab\tkept, newline\\x0anot, \\x1b[31mred\\x7f");
  CHECK(html_text("\xff<\xc3") == "\\xff&lt;\\xc3");
  CHECK(html_text("\xC2\x85") == "\\xc2\\x85");  // C1 control NEL
}

TEST_CASE("html_lines keeps the newlines of a summary") {
  CHECK(html_lines("root cause: <rank 1>\n| a & b\n") ==
        "root cause: &lt;rank 1&gt;\n| a &amp; b\n");
  CHECK(html_lines("") == "");
}

}  // namespace html_text_test
