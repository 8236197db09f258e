// libFuzzer harness over what a rank hands its launcher: control-socket request lines
// (control_socket.h) and the bytes of its telemetry ring (include/pai/telemetry.h), both
// written by training code the launcher does not trust. A line either parses or is refused
// with a reason; a ring either opens and polls or is refused with TelemetryError. Nothing
// else may happen: no crash, no sanitizer report, no hang.
//
// Input layout: byte 0 picks the target (even: request lines, one per '\n'; odd: a ring file
// of the remaining bytes); the rest is the data.
#include <fcntl.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "launcher/supervisor/control_socket.h"
#include "launcher/supervisor/telemetry_ring.h"

namespace {

void parse_lines(std::string_view data) {
  while (!data.empty()) {
    const std::size_t end = data.find('\n');
    const std::string_view line = data.substr(0, end);
    std::string error;
    const auto request = pai::launcher::parse_control_line(line, &error);
    // A refusal always says why.
    if (!request && error.empty()) std::abort();
    if (end == std::string_view::npos) break;
    data.remove_prefix(end + 1);
  }
}

// The ring file the inputs are written to, removed when the fuzzer exits.
struct RingFile {
  std::string path = "/tmp/rank_input_fuzz." + std::to_string(::getpid());
  ~RingFile() { ::unlink(path.c_str()); }
};

void read_ring(std::string_view data) {
  static const RingFile file;
  const std::string& path = file.path;
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) std::abort();
  if (::write(fd, data.data(), data.size()) != static_cast<ssize_t>(data.size())) std::abort();
  ::close(fd);
  try {
    pai::launcher::TelemetryReader reader(path);
    for (int i = 0; i < 2; ++i) {
      const auto poll = reader.poll();
      // Every record handed out is one whose seq says it is the next one.
      std::uint64_t expected = 0;
      for (const auto& record : poll.records) {
        if (expected != 0 && record.seq <= expected) std::abort();
        expected = record.seq;
      }
    }
  } catch (const pai::launcher::TelemetryError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view data(reinterpret_cast<const char*>(bytes) + 1, size - 1);
  if (bytes[0] % 2 == 0) {
    parse_lines(data);
  } else {
    read_ring(data);
  }
  return 0;
}
