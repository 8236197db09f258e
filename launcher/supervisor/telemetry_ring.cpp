#include "launcher/supervisor/telemetry_ring.h"

#include <cstring>
#include <string_view>

namespace pai::launcher {
namespace {

constexpr const char* kKind = "telemetry ring";

bool power_of_two(std::uint64_t n) { return n != 0 && (n & (n - 1)) == 0; }

std::string bad_capacity(std::uint32_t capacity) {
  return "capacity " + std::to_string(capacity) + " is not a power of two up to " +
         std::to_string(PAI_TELEMETRY_MAX_CAPACITY);
}

}  // namespace

void create_telemetry_ring(const std::string& path, int rank, std::uint32_t capacity) {
  if (!power_of_two(capacity) || capacity > PAI_TELEMETRY_MAX_CAPACITY) {
    throw TelemetryError(std::string(kKind) + " " + path + ": " + bad_capacity(capacity));
  }
  pai_telemetry_header header;
  pai_telemetry_header_init(&header, capacity, rank);
  create_shared_file(kKind, path,
                     std::string_view(reinterpret_cast<const char*>(&header), sizeof header),
                     PAI_TELEMETRY_FILE_SIZE(capacity));
}

void set_drill_hold(const std::string& path, std::uint64_t until_ns) {
  char bytes[sizeof until_ns];  // little-endian, as the ring is (pai/telemetry.h checks)
  std::memcpy(bytes, &until_ns, sizeof bytes);
  write_shared_file(kKind, path, PAI_TELEMETRY_DRILL_UNTIL_OFFSET,
                    std::string_view(bytes, sizeof bytes));
}

TelemetryReader::TelemetryReader(const std::string& path)
    : file_(kKind, path, PAI_TELEMETRY_RECORDS_OFFSET, &header_, sizeof header_) {
  if (header_.magic != PAI_TELEMETRY_MAGIC) file_.fail("not a telemetry ring (bad magic)");
  if (header_.version != PAI_TELEMETRY_VERSION) {
    file_.fail("version " + std::to_string(header_.version) + ", this launcher reads version " +
               std::to_string(PAI_TELEMETRY_VERSION));
  }
  if (header_.record_size != PAI_TELEMETRY_RECORD_SIZE) {
    file_.fail("record size " + std::to_string(header_.record_size) + ", expected " +
               std::to_string(PAI_TELEMETRY_RECORD_SIZE));
  }
  if (!power_of_two(header_.capacity) || header_.capacity > PAI_TELEMETRY_MAX_CAPACITY) {
    file_.fail(bad_capacity(header_.capacity));
  }
  if (file_.size() != PAI_TELEMETRY_FILE_SIZE(header_.capacity)) {
    file_.fail(std::to_string(file_.size()) + " bytes, but a ring of " +
               std::to_string(header_.capacity) + " records has " +
               std::to_string(PAI_TELEMETRY_FILE_SIZE(header_.capacity)));
  }
  file_.map();
}

int TelemetryReader::writer_pid() const {
  const auto* header = static_cast<const pai_telemetry_header*>(file_.base());
  return __atomic_load_n(&header->writer_pid, __ATOMIC_RELAXED);
}

std::uint64_t TelemetryReader::written() const { return pai_telemetry_load_head(file_.base()); }

TelemetryPoll TelemetryReader::poll() {
  file_.check_size();
  TelemetryPoll out;
  const std::uint32_t capacity = header_.capacity;
  const std::uint64_t head = pai_telemetry_load_head(file_.base());
  // Only a writer that broke the protocol moves the head back: start over from there.
  if (head < next_) next_ = head;
  std::uint64_t first = next_;
  if (head - first > capacity) {
    out.lost += head - capacity - first;
    first = head - capacity;
  }
  out.records.reserve(static_cast<std::size_t>(head - first));
  for (std::uint64_t n = first; n < head; ++n) {
    pai_telemetry_record record;
    if (pai_telemetry_read(file_.base(), capacity, n, &record)) {
      out.records.push_back(record);
    } else {
      ++out.lost;
    }
  }
  next_ = head;
  return out;
}

}  // namespace pai::launcher
