#include "launcher/report/journal_reader.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>
#include <variant>

namespace pai::launcher::report {

std::string exit_status_text(const journal::ExitStatus& status, bool* failed) {
  if (failed != nullptr) *failed = status.signal != 0 || status.code != 0;
  return status.signal > 0 ? "signal " + std::to_string(status.signal)
                           : "exit code " + std::to_string(status.code);
}

JournalStats read_journal(const std::string& path,
                          const std::function<void(const journal::Entry&)>& on_record) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::system_error(errno, std::system_category(), "cannot read " + path);
  JournalStats stats;
  journal::ReadTally tally;
  std::string line;
  bool skipping = false;  // inside a line past kMaxRecordBytes
  auto finish_line = [&] {
    if (skipping) {
      ++stats.oversized;
    } else if (auto entry = journal::parse_record(line, tally)) {
      if (const auto* header = std::get_if<journal::Header>(&entry->event)) {
        stats.format = header->format;
      } else {
        ++stats.records;
        on_record(*entry);
      }
    }
    line.clear();
    skipping = false;
  };
  std::string buffer(256 * 1024, '\0');
  for (;;) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      throw std::system_error(error, std::system_category(), "cannot read " + path);
    }
    if (n == 0) break;
    stats.bytes += n;
    std::string_view chunk(buffer.data(), static_cast<std::size_t>(n));
    while (!chunk.empty()) {
      const std::size_t nl = chunk.find('\n');
      const std::string_view part = chunk.substr(0, nl);
      if (!skipping) {
        if (line.size() + part.size() > kMaxRecordBytes) {
          skipping = true;
          line.clear();
        } else {
          line.append(part);
        }
      }
      if (nl == std::string_view::npos) break;
      finish_line();
      chunk.remove_prefix(nl + 1);
    }
  }
  ::close(fd);
  if (skipping || !line.empty()) {
    // A record being written, or cut off by a kill: whatever it says is not whole.
    stats.partial_last_line = true;
    if (skipping) ++stats.oversized;
  }
  stats.malformed = tally.malformed;
  stats.unknown = tally.unknown;
  stats.mistyped = tally.mistyped;
  return stats;
}

}  // namespace pai::launcher::report
