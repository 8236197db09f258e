#include "launcher/supervisor/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "libpai/write_all.h"

namespace pai::launcher {
namespace {

[[noreturn]] void throw_error(const std::string& kind, const std::string& path,
                              const std::string& why) {
  throw TelemetryError(kind + " " + path + ": " + why);
}

[[noreturn]] void throw_errno(const std::string& kind, const std::string& path,
                              const std::string& what) {
  throw_error(kind, path, what + ": " + std::strerror(errno));
}

// Closes the descriptor when the scope ends.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

void create_shared_file(const std::string& kind, const std::string& path, std::string_view header,
                        std::uint64_t size) {
  // A new inode for every attempt: a straggler of the previous attempt keeps the old one.
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) throw_errno(kind, path, "cannot remove");
  Fd file;
  file.fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (file.fd < 0) throw_errno(kind, path, "cannot create");
  // Sparse: only the pages the rank writes take memory or disk.
  if (::fchmod(file.fd, 0600) != 0 || ::ftruncate(file.fd, static_cast<off_t>(size)) != 0 ||
      !write_all(file.fd, header)) {
    const int error = errno;
    ::unlink(path.c_str());
    errno = error;
    throw_errno(kind, path, "cannot write");
  }
}

void write_shared_file(const std::string& kind, const std::string& path, std::uint64_t offset,
                       std::string_view bytes) {
  Fd file;
  file.fd = ::open(path.c_str(), O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (file.fd < 0) throw_errno(kind, path, "cannot open");
  struct stat st {};
  if (::fstat(file.fd, &st) != 0) throw_errno(kind, path, "cannot stat");
  if (!S_ISREG(st.st_mode)) throw_error(kind, path, "not a regular file");
  if (offset + bytes.size() > static_cast<std::uint64_t>(st.st_size)) {
    throw_error(kind, path, "too short: " + std::to_string(st.st_size) + " bytes");
  }
  const ssize_t n = ::pwrite(file.fd, bytes.data(), bytes.size(), static_cast<off_t>(offset));
  if (n < 0) throw_errno(kind, path, "cannot write");
  if (static_cast<std::size_t>(n) != bytes.size()) throw_error(kind, path, "short write");
}

MappedFile::MappedFile(std::string kind, std::string path, std::size_t min_size, void* header,
                       std::size_t header_size)
    : kind_(std::move(kind)), path_(std::move(path)) {
  Fd file;
  // O_NONBLOCK: a FIFO put in its place must not block the launcher; it is refused below.
  file.fd = ::open(path_.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (file.fd < 0) throw_errno(kind_, path_, "cannot open");
  struct stat st {};
  if (::fstat(file.fd, &st) != 0) throw_errno(kind_, path_, "cannot stat");
  if (!S_ISREG(st.st_mode)) fail("not a regular file");
  size_ = static_cast<std::uint64_t>(st.st_size);
  if (size_ < min_size) {
    fail("truncated: " + std::to_string(size_) + " bytes, shorter than its " +
         std::to_string(min_size) + "-byte header");
  }
  if (::pread(file.fd, header, header_size, 0) != static_cast<ssize_t>(header_size)) {
    throw_errno(kind_, path_, "cannot read its header");
  }
  fd_ = std::exchange(file.fd, -1);
}

MappedFile::~MappedFile() {
  if (base_ != nullptr) ::munmap(const_cast<void*>(base_), static_cast<std::size_t>(size_));
  if (fd_ >= 0) ::close(fd_);
}

void MappedFile::map() {
  void* base = ::mmap(nullptr, static_cast<std::size_t>(size_), PROT_READ, MAP_SHARED, fd_, 0);
  if (base == MAP_FAILED) throw_errno(kind_, path_, "cannot map");
  base_ = base;
}

void MappedFile::check_size() const {
  struct stat st {};
  if (::fstat(fd_, &st) != 0) throw_errno(kind_, path_, "cannot stat");
  if (static_cast<std::uint64_t>(st.st_size) < size_) {
    fail("truncated to " + std::to_string(st.st_size) + " bytes while mapped");
  }
}

void MappedFile::fail(const std::string& why) const { throw_error(kind_, path_, why); }

}  // namespace pai::launcher
