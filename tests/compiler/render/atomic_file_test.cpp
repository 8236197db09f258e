#include "compiler/render/atomic_file.h"

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "support/temp_dir.h"

namespace atomic_file_test {

namespace fs = std::filesystem;
using pai::FileAccess;
using pai::testing::slurp;
using pai::testing::spit;
using pai::testing::TempDir;

namespace {

unsigned mode_of(const std::string& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

struct Umask {
  explicit Umask(mode_t m) : old(::umask(m)) {}
  ~Umask() { ::umask(old); }
  mode_t old;
};

}  // namespace

TEST_CASE("write_file_atomic writes and replaces without leaving temporaries") {
  TempDir dir;
  const std::string path = dir / "a.txt";
  pai::write_file_atomic(path, "first", FileAccess::Public);
  pai::write_file_atomic(path, "second\n", FileAccess::Public);
  CHECK(slurp(path) == "second\n");
  int entries = 0;
  for (const auto& e : fs::directory_iterator(dir.path())) {
    (void)e;
    ++entries;
  }
  CHECK(entries == 1);
}

TEST_CASE("write_file_atomic modes: public and executable follow the umask - private is 0600") {
  TempDir dir;
  Umask mask(022);
  pai::write_file_atomic(dir / "pub", "x", FileAccess::Public);
  pai::write_file_atomic(dir / "exe", "x", FileAccess::Executable);
  CHECK(mode_of(dir / "pub") == 0644);
  CHECK(mode_of(dir / "exe") == 0755);
  {
    Umask open_mask(0);
    spit(dir / "secret", "old");
    ::chmod((dir / "secret").c_str(), 0666);
    pai::write_file_atomic(dir / "secret", "x", FileAccess::Private);
  }
  CHECK(mode_of(dir / "secret") == 0600);
  Umask closed_mask(0777);
  pai::write_file_atomic(dir / "secret2", "x", FileAccess::Private);
  CHECK(mode_of(dir / "secret2") == 0600);
}

TEST_CASE("write_file_atomic names the path when the folder is missing") {
  TempDir dir;
  const std::string path = dir / "missing/a.txt";
  try {
    pai::write_file_atomic(path, "x", FileAccess::Public);
    FAIL("no exception");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()) == "cannot write '" + path + "': No such file or directory");
  }
}

TEST_CASE("write_file_atomic onto a directory fails and removes its temporary") {
  TempDir dir;
  fs::create_directory(dir / "d");
  try {
    pai::write_file_atomic(dir / "d", "x", FileAccess::Public);
    FAIL("no exception");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()) == "cannot write '" + (dir / "d") + "': Is a directory");
  }
  int entries = 0;
  for (const auto& e : fs::directory_iterator(dir.path())) {
    (void)e;
    ++entries;
  }
  CHECK(entries == 1);
}

TEST_CASE("make_directories creates parents and accepts an existing folder") {
  TempDir dir;
  pai::make_directories(dir / "a/b/c");
  pai::make_directories(dir / "a/b/c");
  CHECK(fs::is_directory(dir / "a/b/c"));
}

TEST_CASE("make_directories refuses a path that is a file") {
  TempDir dir;
  spit(dir / "file", "x");
  try {
    pai::make_directories(dir / "file");
    FAIL("no exception");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()) ==
          "cannot create directory '" + (dir / "file") + "': Not a directory");
  }
  try {
    pai::make_directories(dir / "file/sub");
    FAIL("no exception");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()) ==
          "cannot create directory '" + (dir / "file/sub") + "': Not a directory");
  }
}

TEST_CASE("read_file reads bytes exactly and names a missing file") {
  TempDir dir;
  const std::string bytes("a\0b\n\xff", 5);
  spit(dir / "f", bytes);
  CHECK(pai::read_file(dir / "f") == bytes);
  try {
    pai::read_file(dir / "nope");
    FAIL("no exception");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()) ==
          "cannot read '" + (dir / "nope") + "': No such file or directory");
  }
}

TEST_CASE("write_new_file creates a file and refuses an existing one") {
  TempDir dir;
  pai::write_new_file(dir / "n", "new", FileAccess::Public);
  CHECK(slurp(dir / "n") == "new");
  try {
    pai::write_new_file(dir / "n", "again", FileAccess::Public);
    FAIL("no exception");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()) == "cannot write '" + (dir / "n") + "': File exists");
  }
  CHECK(slurp(dir / "n") == "new");
}

TEST_CASE(
    "a NewFileFolder writes new files in their modes - private ones 0600 whatever the umask") {
  for (const mode_t mask : {022, 0, 0277, 0777}) {
    INFO("umask " << mask);
    TempDir dir;
    Umask umask(mask);
    pai::NewFileFolder folder(dir.path());
    for (const std::string name : {"a.sh", "b.sh", "c.sh"}) {
      folder.write(name, "content of " + name, FileAccess::Private);
      CHECK(slurp(dir / name) == "content of " + name);
      CHECK(mode_of(dir / name) == 0600);
    }
    folder.write("pub", "x", FileAccess::Public);
    CHECK(mode_of(dir / "pub") == (0644 & ~mask));
  }
}

TEST_CASE("a NewFileFolder refuses an existing file and names a missing folder") {
  TempDir dir;
  pai::NewFileFolder folder(dir.path());
  folder.write("n", "new", FileAccess::Private);
  try {
    folder.write("n", "again", FileAccess::Private);
    FAIL("no exception");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()) == "cannot write '" + (dir / "n") + "': File exists");
  }
  CHECK(slurp(dir / "n") == "new");
  try {
    pai::NewFileFolder missing(dir / "missing");
    FAIL("no exception");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()) ==
          "cannot write into '" + (dir / "missing") + "': No such file or directory");
  }
}

TEST_CASE("remove_tree removes folders - removes links without following them") {
  TempDir dir;
  fs::create_directories(dir / "a/b");
  spit(dir / "a/b/f", "x");
  spit(dir / "target", "keep");
  fs::create_symlink(dir / "target", dir / "a/link");
  pai::remove_tree(dir / "a");
  CHECK_FALSE(fs::exists(dir / "a"));
  CHECK(slurp(dir / "target") == "keep");
  pai::remove_tree(dir / "a");
}

}  // namespace atomic_file_test
