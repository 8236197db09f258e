#include "libpai/shell_quote.h"

#include <catch2/catch.hpp>

namespace shell_quote_test {

TEST_CASE("shell_quote leaves safe words alone") {
  CHECK(pai::shell_quote("abc") == "abc");
  CHECK(pai::shell_quote("/usr/bin/python3") == "/usr/bin/python3");
  CHECK(pai::shell_quote("a=b,c:d@e%f+g_h.i-j") == "a=b,c:d@e%f+g_h.i-j");
  CHECK(pai::shell_quote("10.0.0.1") == "10.0.0.1");
}

TEST_CASE("shell_quote single-quotes everything else") {
  CHECK(pai::shell_quote("") == "''");
  CHECK(pai::shell_quote("-rf") == "'-rf'");
  CHECK(pai::shell_quote("a b") == "'a b'");
  CHECK(pai::shell_quote("$HOME") == "'$HOME'");
  CHECK(pai::shell_quote("`id`") == "'`id`'");
  CHECK(pai::shell_quote("it's") == "'it'\"'\"'s'");
  CHECK(pai::shell_quote("'") == "''\"'\"''");
  CHECK(pai::shell_quote("a\nb") == "'a\nb'");
  CHECK(pai::shell_quote("\\") == "'\\'");
  CHECK(pai::shell_quote("*") == "'*'");
  CHECK(pai::shell_quote("caf\xc3\xa9") == "'caf\xc3\xa9'");
}

TEST_CASE("append_shell_quoted appends what shell_quote returns") {
  std::string out = "x=";
  pai::append_shell_quoted(out, "safe");
  CHECK(out == "x=safe");
  pai::append_shell_quoted(out, " it's");
  CHECK(out == "x=safe' it'\"'\"'s'");
  pai::append_shell_quoted(out, "");
  CHECK(out == "x=safe' it'\"'\"'s'''");
}

TEST_CASE("shell_join quotes each word and joins with spaces") {
  CHECK(pai::shell_join({}) == "");
  CHECK(pai::shell_join({"echo"}) == "echo");
  CHECK(pai::shell_join({"sh", "-c", "echo $X"}) == "sh '-c' 'echo $X'");
  CHECK(pai::shell_join({"", "a"}) == "'' a");
}

}  // namespace shell_quote_test
