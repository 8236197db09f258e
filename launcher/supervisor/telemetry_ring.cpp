#include "launcher/supervisor/telemetry_ring.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>
#include <utility>

#include "libpai/write_all.h"

namespace pai::launcher {
namespace {

bool power_of_two(std::uint64_t n) { return n != 0 && (n & (n - 1)) == 0; }

[[noreturn]] void fail(const std::string& path, const std::string& why) {
  throw TelemetryError("telemetry ring " + path + ": " + why);
}

[[noreturn]] void fail_errno(const std::string& path, const std::string& what) {
  fail(path, what + ": " + std::strerror(errno));
}

// Closes the descriptor when the scope ends.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

void create_telemetry_ring(const std::string& path, int rank, std::uint32_t capacity) {
  if (!power_of_two(capacity) || capacity > PAI_TELEMETRY_MAX_CAPACITY) {
    fail(path, "capacity " + std::to_string(capacity) + " is not a power of two up to " +
                   std::to_string(PAI_TELEMETRY_MAX_CAPACITY));
  }
  // A new inode for every attempt: a straggler of the previous attempt keeps the old one.
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) fail_errno(path, "cannot remove");
  Fd file;
  file.fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (file.fd < 0) fail_errno(path, "cannot create");
  pai_telemetry_header header;
  pai_telemetry_header_init(&header, capacity, rank);
  // Sparse: only the pages the rank writes take memory or disk.
  if (::fchmod(file.fd, 0600) != 0 ||
      ::ftruncate(file.fd, static_cast<off_t>(PAI_TELEMETRY_FILE_SIZE(capacity))) != 0 ||
      !write_all(file.fd,
                 std::string_view(reinterpret_cast<const char*>(&header), sizeof header))) {
    const int error = errno;
    ::unlink(path.c_str());
    errno = error;
    fail_errno(path, "cannot write");
  }
}

TelemetryReader::TelemetryReader(const std::string& path) : path_(path) {
  Fd file;
  // O_NONBLOCK: a FIFO put in its place must not block the launcher; it is refused below.
  file.fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (file.fd < 0) fail_errno(path, "cannot open");
  struct stat st {};
  if (::fstat(file.fd, &st) != 0) fail_errno(path, "cannot stat");
  if (!S_ISREG(st.st_mode)) fail(path, "not a regular file");
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size < PAI_TELEMETRY_RECORDS_OFFSET) {
    fail(path, "truncated: " + std::to_string(size) + " bytes, shorter than its " +
                   std::to_string(PAI_TELEMETRY_RECORDS_OFFSET) + "-byte header");
  }
  pai_telemetry_header header;
  if (::pread(file.fd, &header, sizeof header, 0) != static_cast<ssize_t>(sizeof header)) {
    fail_errno(path, "cannot read its header");
  }
  if (header.magic != PAI_TELEMETRY_MAGIC) fail(path, "not a telemetry ring (bad magic)");
  if (header.version != PAI_TELEMETRY_VERSION) {
    fail(path, "version " + std::to_string(header.version) + ", this launcher reads version " +
                   std::to_string(PAI_TELEMETRY_VERSION));
  }
  if (header.record_size != PAI_TELEMETRY_RECORD_SIZE) {
    fail(path, "record size " + std::to_string(header.record_size) + ", expected " +
                   std::to_string(PAI_TELEMETRY_RECORD_SIZE));
  }
  if (!power_of_two(header.capacity) || header.capacity > PAI_TELEMETRY_MAX_CAPACITY) {
    fail(path, "capacity " + std::to_string(header.capacity) + " is not a power of two up to " +
                   std::to_string(PAI_TELEMETRY_MAX_CAPACITY));
  }
  if (size != PAI_TELEMETRY_FILE_SIZE(header.capacity)) {
    fail(path, std::to_string(size) + " bytes, but a ring of " + std::to_string(header.capacity) +
                   " records has " + std::to_string(PAI_TELEMETRY_FILE_SIZE(header.capacity)));
  }
  size_ = static_cast<std::size_t>(size);
  void* base = ::mmap(nullptr, size_, PROT_READ, MAP_SHARED, file.fd, 0);
  if (base == MAP_FAILED) fail_errno(path, "cannot map");
  base_ = base;
  rank_ = header.rank;
  capacity_ = header.capacity;
  fd_ = std::exchange(file.fd, -1);
}

TelemetryReader::~TelemetryReader() {
  if (base_ != nullptr) ::munmap(const_cast<void*>(base_), size_);
  if (fd_ >= 0) ::close(fd_);
}

int TelemetryReader::writer_pid() const {
  const auto* header = static_cast<const pai_telemetry_header*>(base_);
  return __atomic_load_n(&header->writer_pid, __ATOMIC_RELAXED);
}

std::uint64_t TelemetryReader::written() const { return pai_telemetry_load_head(base_); }

TelemetryPoll TelemetryReader::poll() {
  // Reading a page the file no longer has would kill the launcher with SIGBUS.
  struct stat st {};
  if (::fstat(fd_, &st) != 0) fail_errno(path_, "cannot stat");
  if (static_cast<std::uint64_t>(st.st_size) < size_) {
    fail(path_, "truncated to " + std::to_string(st.st_size) + " bytes while mapped");
  }
  TelemetryPoll out;
  const std::uint64_t head = pai_telemetry_load_head(base_);
  // Only a writer that broke the protocol moves the head back: start over from there.
  if (head < next_) next_ = head;
  std::uint64_t first = next_;
  if (head - first > capacity_) {
    out.lost += head - capacity_ - first;
    first = head - capacity_;
  }
  out.records.reserve(static_cast<std::size_t>(head - first));
  for (std::uint64_t n = first; n < head; ++n) {
    pai_telemetry_record record;
    if (pai_telemetry_read(base_, capacity_, n, &record)) {
      out.records.push_back(record);
    } else {
      ++out.lost;
    }
  }
  next_ = head;
  return out;
}

}  // namespace pai::launcher
