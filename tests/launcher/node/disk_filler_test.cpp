#include "launcher/node/disk_filler.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "support/new_namespace.h"
#include "support/temp_dir.h"

namespace disk_filler_test {

using pai::launcher::DiskFiller;
using pai::launcher::kDiskFillerName;
using pai::launcher::kUndoMarginSeconds;
using pai::launcher::shared_file_system;
using pai::testing::in_new_namespace;

namespace {

// Free blocks of the file system at `path`, for root (-1 when it cannot be read).
long long free_blocks(const std::string& path) {
  struct statvfs vfs {};
  return ::statvfs(path.c_str(), &vfs) == 0 ? static_cast<long long>(vfs.f_bfree) : -1;
}

// Whether a new file of 4 KiB can be written into `dir`.
bool writable(const std::string& dir) {
  const std::string path = dir + "/probe";
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  const std::string data(4096, 'x');
  const bool wrote = ::write(fd, data.data(), data.size()) == static_cast<ssize_t>(data.size());
  ::close(fd);
  ::unlink(path.c_str());
  return wrote;
}

// Runs `body(output)` in a mount namespace of its own, an 8 MiB tmpfs mounted on the folder
// `output`, and returns what it returned ("no tmpfs" when it could not be mounted).
template <class Body>
std::string on_own_tmpfs(Body body) {
  pai::testing::TempDir dir;
  return in_new_namespace(CLONE_NEWNS, [&] {
    const std::string output = dir.path();
    if (::mount("pai-drill", output.c_str(), "tmpfs", 0, "size=8m") != 0) {
      return std::string("no tmpfs");
    }
    return body(output);
  });
}

}  // namespace

TEST_CASE("shared file systems are known by their magic") {
  CHECK(std::string(shared_file_system(0x6969)) == "nfs");
  CHECK(std::string(shared_file_system(0x0BD00BD0)) == "lustre");
  CHECK(std::string(shared_file_system(0x65735546)) == "fuse");
  CHECK(shared_file_system(0xEF53) == nullptr);      // ext4
  CHECK(shared_file_system(0x01021994) == nullptr);  // tmpfs
  CHECK(shared_file_system(0x58465342) == nullptr);  // xfs
}

TEST_CASE("no disk is filled without an output folder of its own") {
  CHECK(DiskFiller("").fill(10).find("the job has no output folder") != std::string::npos);
  pai::testing::TempDir dir;
  CHECK(DiskFiller(dir / "gone").fill(10).find("cannot read the output folder") !=
        std::string::npos);
  DiskFiller root("/");
  CHECK(root.fill(10).find("is on the root file system") != std::string::npos);
  CHECK(root.file().empty());
  CHECK(root.empty().empty());  // nothing was filled
}

TEST_CASE("a full disk leaves no block free for its seconds, and frees all again") {
  if (::geteuid() != 0) {
    WARN("skipped: needs root to mount a file system in a namespace of its own");
    return;
  }
  const std::string out = on_own_tmpfs([](const std::string& output) {
    std::string said;
    const long long before = free_blocks(output);
    {
      DiskFiller disk(output);
      const std::string refused = disk.fill(30);
      said += refused.empty() ? "filled " : "refused: " + refused + " ";
      said += disk.file() == output + "/" + kDiskFillerName ? "file " : "no-file ";
      said += free_blocks(output) == 0 ? "full " : "free " + std::to_string(free_blocks(output));
      said += writable(output) ? "writable " : "enospc ";
      said += disk.fill(30).empty() && free_blocks(output) == 0 ? "again " : "not-again ";
      said += disk.empty().empty() && free_blocks(output) == before ? "emptied " : "not-emptied ";
      said += writable(output) ? "writable " : "enospc ";
      disk.fill(30);
    }  // destroyed with its file there
    said += free_blocks(output) == before ? "freed" : "left";
    return said;
  });
  CHECK(out == "filled file full enospc again emptied writable freed");
}

TEST_CASE("a full disk is freed by itself when its launcher is SIGKILLed") {
  if (::geteuid() != 0) {
    WARN("skipped: needs root to mount a file system in a namespace of its own");
    return;
  }
  const std::string out = on_own_tmpfs([](const std::string& output) {
    const pid_t launcher = ::fork();
    if (launcher == 0) {
      DiskFiller disk(output);
      if (!disk.fill(1).empty()) ::_exit(1);
      ::kill(::getpid(), SIGKILL);  // no destructor, no empty()
    }
    int status = 0;
    ::waitpid(launcher, &status, 0);
    if (!WIFSIGNALED(status)) return std::string("the launcher could not fill");
    const std::string file = output + "/" + kDiskFillerName;
    std::string said = std::filesystem::exists(file) ? "full " : "never-full ";
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::seconds(1 + kUndoMarginSeconds + 5);
    while (std::filesystem::exists(file) && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    said += std::filesystem::exists(file) ? "still-full" : "freed";
    return said;
  });
  CHECK(out == "full freed");
}

}  // namespace disk_filler_test
