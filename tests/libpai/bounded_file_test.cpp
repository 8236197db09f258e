// read_bounded_regular_file: regular files whole, everything else refused at once.
#include "libpai/bounded_file.h"

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "support/temp_dir.h"

namespace bounded_file_test {

using pai::BoundedFileError;
using pai::read_bounded_regular_file;
using pai::testing::spit;
using pai::testing::TempDir;

namespace {

// The message read_bounded_regular_file() throws; fails the test when it throws nothing.
std::string read_error(const std::string& path, std::size_t max_bytes) {
  try {
    read_bounded_regular_file(path, max_bytes, "test file");
  } catch (const BoundedFileError& e) {
    CHECK(e.path() == path);
    CHECK(std::string(e.what()) == "cannot read test file '" + path + "': " + e.reason());
    return e.what();
  }
  FAIL("read_bounded_regular_file(" << path << ") succeeded where it should have failed");
  return {};
}

}  // namespace

TEST_CASE("read_bounded_regular_file reads a regular file byte for byte") {
  TempDir dir;
  const std::string bytes("a\0b\r\n\xff", 6);
  spit(dir / "f", bytes);
  CHECK(read_bounded_regular_file(dir / "f", 1024, "test file") == bytes);
  spit(dir / "empty", "");
  CHECK(read_bounded_regular_file(dir / "empty", 1024, "test file").empty());
  std::filesystem::create_symlink(dir / "f", dir / "link");
  CHECK(read_bounded_regular_file(dir / "link", 1024, "test file") == bytes);
}

TEST_CASE("read_bounded_regular_file takes a file of exactly the limit - not a byte more") {
  TempDir dir;
  spit(dir / "f", std::string(4096, 'x'));
  CHECK(read_bounded_regular_file(dir / "f", 4096, "test file").size() == 4096);
  CHECK(read_error(dir / "f", 4095) ==
        "cannot read test file '" + dir / "f" + "': it is larger than 4095 bytes, the limit");
  CHECK(read_error(dir / "f", 2048) ==
        "cannot read test file '" + dir / "f" + "': it is larger than 2KiB, the limit");
}

TEST_CASE("read_bounded_regular_file stops a file that grows past the limit while read") {
  // /proc files claim a size of 0 and then deliver more.
  REQUIRE(std::filesystem::file_size("/proc/self/status") == 0);
  CHECK(read_error("/proc/self/status", 16) ==
        "cannot read test file '/proc/self/status': it is larger than 16 bytes, the limit");
}

TEST_CASE("read_bounded_regular_file refuses devices - FIFOs and folders at once") {
  TempDir dir;
  CHECK(read_error("/dev/zero", 1 << 20) ==
        "cannot read test file '/dev/zero': it is a character device, not a regular file");
  // No writer: a blocking open() would wait forever.
  REQUIRE(::mkfifo((dir / "fifo").c_str(), 0600) == 0);
  CHECK(read_error(dir / "fifo", 1 << 20) ==
        "cannot read test file '" + dir / "fifo" + "': it is a FIFO, not a regular file");
  CHECK(read_error(dir.path(), 1 << 20) ==
        "cannot read test file '" + dir.path() + "': it is a directory, not a regular file");
}

TEST_CASE("read_bounded_regular_file names a missing file and the reason") {
  TempDir dir;
  CHECK(read_error(dir / "missing", 1024) ==
        "cannot read test file '" + dir / "missing" + "': No such file or directory");
}

}  // namespace bounded_file_test
