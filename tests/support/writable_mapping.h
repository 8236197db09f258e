// A file mapped writable and shared, whole, as a rank maps its telemetry files.
#pragma once

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace pai::testing {

/// The file at `path` mapped writable and shared for the object's life.
class WritableMapping {
 public:
  /// Throws std::runtime_error when the file cannot be opened or mapped.
  explicit WritableMapping(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) throw std::runtime_error("cannot open " + path);
    struct stat st {};
    if (::fstat(fd, &st) == 0) {
      size_ = static_cast<std::size_t>(st.st_size);
      base_ = ::mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    }
    ::close(fd);
    if (base_ == MAP_FAILED || base_ == nullptr) throw std::runtime_error("cannot map " + path);
  }
  ~WritableMapping() { ::munmap(base_, size_); }
  WritableMapping(const WritableMapping&) = delete;
  WritableMapping& operator=(const WritableMapping&) = delete;

  void* base() const { return base_; }

 private:
  void* base_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace pai::testing
