#include "compiler/render/token.h"

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <stdexcept>
#include <string>

#include "support/temp_dir.h"

namespace token_test {

using pai::testing::slurp;
using pai::testing::spit;
using pai::testing::TempDir;

namespace {

std::string token_error(const std::string& path) {
  try {
    pai::read_token_file(path);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "no exception";
}

}  // namespace

TEST_CASE("generate_token gives 64 lowercase hex digits - different each time") {
  const std::string a = pai::generate_token();
  const std::string b = pai::generate_token();
  REQUIRE(a.size() == 64);
  CHECK(a.find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(a != b);
}

TEST_CASE("write_token_file writes the token alone with mode 0600") {
  TempDir dir;
  const std::string token = pai::generate_token();
  pai::write_token_file(dir / "job.token", token);
  CHECK(slurp(dir / "job.token") == token);
  struct stat st {};
  REQUIRE(::stat((dir / "job.token").c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0600);
}

TEST_CASE("read_token_file returns the token without its trailing newline") {
  TempDir dir;
  spit(dir / "t", "0123456789ABCDEF0123456789abcdef\n");
  CHECK(pai::read_token_file(dir / "t") == "0123456789ABCDEF0123456789abcdef");
  const std::string token = pai::generate_token();
  pai::write_token_file(dir / "u", token);
  CHECK(pai::read_token_file(dir / "u") == token);
}

TEST_CASE("read_token_file rejects bad tokens without echoing them") {
  TempDir dir;
  const std::string path = dir / "t";
  spit(path, "\n");
  CHECK(token_error(path) == "invalid token file '" + path + "': it is empty");
  spit(path, "0123456789abcdef0123456789abcdeg-secret");
  CHECK(token_error(path) == "invalid token file '" + path + "': expected hexadecimal digits only");
  spit(path, "0123456789abcdef0123456789abcde");
  CHECK(token_error(path) ==
        "invalid token file '" + path + "': expected at least 32 hexadecimal digits");
  CHECK(token_error(dir / "missing") ==
        "cannot read token file '" + (dir / "missing") + "': No such file or directory");
}

TEST_CASE("read_token_file takes a regular file of at most 4 KiB") {
  TempDir dir;
  CHECK(token_error("/dev/zero") ==
        "cannot read token file '/dev/zero': it is a character device, not a regular file");
  const std::string path = dir / "t";
  spit(path, std::string(4097, 'a'));
  CHECK(token_error(path) ==
        "cannot read token file '" + path + "': it is larger than 4KiB, the limit");
  spit(path, std::string(4096, 'a'));
  CHECK(pai::read_token_file(path) == std::string(4096, 'a'));
}

}  // namespace token_test
