#include "launcher/supervisor/nccl_profiler_library.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace nccl_profiler_library_test {

namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    char dir[] = "/tmp/pai-nccl-library-XXXXXX";
    REQUIRE(::mkdtemp(dir) != nullptr);
    path = dir;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  fs::path path;
};

void touch(const fs::path& p) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << "ELF";
}

}  // namespace

using pai::launcher::find_nccl_profiler;

// Install layout first, then the build tree, then beside the executable.
TEST_CASE("the NCCL profiler is searched for relative to the executable") {
  TempDir root;
  const std::string exe = (root.path / "bin" / "pai-launch").string();
  CHECK(find_nccl_profiler(exe, "") == "");

  touch(root.path / "bin" / "libpai-nccl-profiler.so");
  CHECK(find_nccl_profiler(exe, "") == (root.path / "bin" / "libpai-nccl-profiler.so").string());
  touch(root.path / "nccl_profiler" / "libpai-nccl-profiler.so");
  CHECK(find_nccl_profiler(exe, "") ==
        (root.path / "nccl_profiler" / "libpai-nccl-profiler.so").string());
  touch(root.path / "lib" / "pai" / "libpai-nccl-profiler.so");
  CHECK(find_nccl_profiler(exe, "") ==
        (root.path / "lib" / "pai" / "libpai-nccl-profiler.so").string());
}

TEST_CASE("PAI_NCCL_PROFILER's path replaces the search - and must name a file") {
  TempDir root;
  touch(root.path / "lib" / "pai" / "libpai-nccl-profiler.so");
  const std::string exe = (root.path / "bin" / "pai-launch").string();
  touch(root.path / "elsewhere" / "plugin.so");
  CHECK(find_nccl_profiler(exe, (root.path / "elsewhere" / "plugin.so").string()) ==
        (root.path / "elsewhere" / "plugin.so").string());
  CHECK(find_nccl_profiler(exe, (root.path / "missing.so").string()) == "");
  CHECK(find_nccl_profiler(exe, (root.path / "elsewhere").string()) == "");
}

TEST_CASE("the build tree's pai-launch finds the plugin built beside it") {
  CHECK(find_nccl_profiler(PAI_BINARY_DIR "/launcher/pai-launch", "") ==
        fs::path(PAI_BINARY_DIR "/nccl_profiler/libpai-nccl-profiler.so")
            .lexically_normal()
            .string());
}

}  // namespace nccl_profiler_library_test
