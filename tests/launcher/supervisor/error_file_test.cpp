#include "launcher/supervisor/error_file.h"

#include <catch2/catch.hpp>
#include <fstream>

#include "support/temp_dir.h"

namespace error_file_test {

using pai::launcher::read_error_file;

namespace {

std::string write(const pai::testing::TempDir& dir, const std::string& text) {
  const std::string path = dir / "error.json";
  std::ofstream(path) << text;
  return path;
}

}  // namespace

TEST_CASE("torchelastic's record: the exception and its traceback") {
  pai::testing::TempDir dir;
  // What torch.distributed.elastic.multiprocessing.errors.ErrorHandler.record_exception writes.
  const auto error = read_error_file(write(
      dir,
      R"({"message": {"message": "ValueError: bad batch", "extraInfo": {"py_callstack": )"
      R"("Traceback (most recent call last):\n  File \"t.py\", line 3\nValueError: bad batch\n", )"
      R"("timestamp": "1700000000"}}})"));
  REQUIRE(error.has_value());
  CHECK(error->message == "ValueError: bad batch");
  CHECK(error->traceback ==
        "Traceback (most recent call last):\n  File \"t.py\", line 3\nValueError: bad batch\n");
}

TEST_CASE("a plain message, and nothing for what is not an error file") {
  pai::testing::TempDir dir;
  const auto plain = read_error_file(write(dir, R"({"message": "killed by the agent"})"));
  REQUIRE(plain.has_value());
  CHECK(plain->message == "killed by the agent");
  CHECK(plain->traceback.empty());
  CHECK_FALSE(read_error_file(dir / "absent.json").has_value());
  CHECK_FALSE(read_error_file(write(dir, "")).has_value());
  CHECK_FALSE(read_error_file(write(dir, "{not json")).has_value());
  CHECK_FALSE(read_error_file(write(dir, R"({"error": "x"})")).has_value());
  CHECK_FALSE(read_error_file(write(dir, R"({"message": 7})")).has_value());
  CHECK_FALSE(read_error_file(dir.path()).has_value());
}

}  // namespace error_file_test
