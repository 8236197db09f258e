#include "compiler/render/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>

#include "libpai/write_all.h"

namespace pai {
namespace {

[[noreturn]] void fail(const char* what, const std::string& path, int err) {
  throw std::runtime_error(std::string(what) + " '" + path + "': " + std::strerror(err));
}

mode_t open_mode(FileAccess access) {
  switch (access) {
    case FileAccess::Public:
      return 0644;
    case FileAccess::Executable:
      return 0755;
    case FileAccess::Private:
      return 0600;
  }
  return 0600;
}

// Creates `path` (O_EXCL) holding `content`, relative to the folder `dir_fd` (AT_FDCWD: the
// working directory); 0 or the errno of the failure, after which nothing is left behind.
// `*mode_whole` (may be null) is true when the umask and the folder's default ACL are known
// to leave the private mode whole, so that it need not be set again; set true when this
// private file came out in that mode.
int create_file(int dir_fd, const char* path, std::string_view content, FileAccess access,
                bool* mode_whole = nullptr) {
  const mode_t mode = open_mode(access);
  const int fd = ::openat(dir_fd, path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) return errno;
  bool ok = true;
  if (access == FileAccess::Private && !(mode_whole && *mode_whole)) {
    // The umask may have taken bits from a private file's mode, never added any: set it
    // exactly.
    struct stat st {};
    if (mode_whole && ::fstat(fd, &st) == 0 && (st.st_mode & 07777) == mode) {
      *mode_whole = true;
    } else {
      ok = ::fchmod(fd, mode) == 0;
    }
  }
  ok = ok && write_all(fd, content);
  int err = ok ? 0 : errno;
  if (::close(fd) != 0 && ok) err = errno;
  if (err != 0) ::unlinkat(dir_fd, path, 0);
  return err;
}

int create_file(const std::string& path, std::string_view content, FileAccess access) {
  return create_file(AT_FDCWD, path.c_str(), content, access);
}

}  // namespace

void write_new_file(const std::string& path, std::string_view content, FileAccess access) {
  if (const int err = create_file(path, content, access)) fail("cannot write", path, err);
}

NewFileFolder::NewFileFolder(const std::string& dir) : dir_(dir) {
  fd_ = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd_ < 0) fail("cannot write into", dir, errno);
}

NewFileFolder::~NewFileFolder() { ::close(fd_); }

void NewFileFolder::write(const std::string& name, std::string_view content, FileAccess access) {
  if (const int err = create_file(fd_, name.c_str(), content, access, &private_mode_whole_)) {
    fail("cannot write", dir_ + "/" + name, err);
  }
}

void write_file_atomic(const std::string& path, std::string_view content, FileAccess access) {
  // Same folder as the target so that rename() replaces it atomically; the pid keeps two
  // concurrent compilers from sharing a temporary.
  std::string tmp;
  const auto slash = path.rfind('/');
  const std::size_t base = slash == std::string::npos ? 0 : slash + 1;
  tmp.reserve(path.size() + 24);
  tmp.append(path, 0, base).append(".").append(path, base).append(".tmp-");
  tmp.append(std::to_string(::getpid()));
  // Left behind by a crashed run of a process that had our pid.
  ::unlink(tmp.c_str());
  if (const int err = create_file(tmp, content, access)) fail("cannot write", path, err);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    fail("cannot write", path, err);
  }
}

void make_directories(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) throw std::runtime_error("cannot create directory '" + path + "': " + ec.message());
  // create_directories() reports success for an existing non-directory in some cases.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) fail("cannot create directory", path, errno);
  if (!S_ISDIR(st.st_mode)) fail("cannot create directory", path, ENOTDIR);
}

void make_private_directory(const std::string& path) {
  make_directories(path);
  if (::chmod(path.c_str(), 0700) != 0) fail("cannot create directory", path, errno);
}

void remove_tree(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
  if (ec) throw std::runtime_error("cannot remove '" + path + "': " + ec.message());
}

std::string read_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail("cannot read", path, errno);
  std::string text;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      fail("cannot read", path, err);
    }
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return text;
}

}  // namespace pai
