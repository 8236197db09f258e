#include "libpai/node_history.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "libpai/write_all.h"

namespace pai {
namespace {

using nlohmann::json;

std::string cut(const std::string& text, std::size_t limit) {
  if (text.size() <= limit) return text;
  std::size_t end = limit;
  // Back off UTF-8 continuation bytes so a character is not split.
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end);
}

std::string system_error(const std::string& what, const std::string& path) {
  return "cannot " + what + " " + path + ": " + std::strerror(errno);
}

bool read_record(const std::string& line, HistoryRecord* record, std::string* why) {
  json o = json::parse(line, nullptr, false);
  if (o.is_discarded()) {
    *why = "not JSON";
    return false;
  }
  auto text = [&](const char* key, std::string* out) {
    auto it = o.find(key);
    if (it == o.end() || !it->is_string()) return false;
    *out = it->get<std::string>();
    return true;
  };
  if (!o.is_object() || !text("time", &record->time) || !text("node", &record->node) ||
      !o.contains("passed") || !o["passed"].is_boolean()) {
    *why = "not a history record";
    return false;
  }
  record->passed = o["passed"].get<bool>();
  if (auto it = o.find("failed"); it != o.end() && it->is_array()) {
    for (const auto& name : *it)
      if (name.is_string()) record->failed.push_back(name.get<std::string>());
  }
  text("summary", &record->summary);
  return true;
}

// Reads up to the last `limit` bytes of `path`; `*cut_front` tells whether it started mid-file.
// Only a regular file is read: a FIFO put in its place (opened without waiting for a writer)
// or a device would block or never end.
bool read_tail(const std::string& path, std::size_t limit, std::string* text, bool* cut_front) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return false;
  }
  auto size = static_cast<std::size_t>(st.st_size);
  std::size_t from = size > limit ? size - limit : 0;
  *cut_front = from > 0;
  text->assign(size - from, '\0');
  std::size_t got = 0;
  while (got < text->size()) {
    ssize_t n = pread(fd, text->data() + got, text->size() - got, static_cast<off_t>(from + got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  text->resize(got);
  ::close(fd);
  return true;
}

// Replaces `path` by its last kHistoryKeptRecords records, atomically.
void compact(const std::string& path, const std::string& node) {
  std::string text;
  bool cut_front = false;
  if (!read_tail(path, kMaxHistoryBytes, &text, &cut_front)) return;
  if (cut_front) {
    auto newline = text.find('\n');
    text = newline == std::string::npos ? "" : text.substr(newline + 1);
  }
  std::vector<HistoryRecord> records = parse_history(text, node, path).records;
  std::size_t first =
      records.size() > kHistoryKeptRecords ? records.size() - kHistoryKeptRecords : 0;
  std::string kept;
  for (std::size_t i = first; i < records.size(); ++i) kept += history_line(records[i]);
  std::string temporary = path + ".tmp." + std::to_string(getpid());
  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw HistoryError(system_error("create", temporary));
  try {
    if (!write_all(fd, kept)) throw HistoryError(system_error("write", temporary));
    if (fsync(fd) != 0) throw HistoryError(system_error("sync", temporary));
  } catch (const HistoryError&) {
    ::close(fd);
    ::unlink(temporary.c_str());
    throw;
  }
  ::close(fd);
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::string error = system_error("replace", path);
    ::unlink(temporary.c_str());
    throw HistoryError(error);
  }
}

}  // namespace

std::string history_path(const std::string& dir, const std::string& node) {
  return (std::filesystem::path(dir) / (node + ".jsonl")).string();
}

std::string history_line(const HistoryRecord& record) {
  json o = {{"time", record.time},
            {"node", record.node},
            {"passed", record.passed},
            {"failed", record.failed},
            {"summary", cut(record.summary, kMaxHistorySummary)}};
  return o.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

HistoryRead parse_history(const std::string& text, const std::string& node,
                          const std::string& where) {
  HistoryRead read;
  std::size_t start = 0, number = 0;
  while (start < text.size()) {
    ++number;
    std::size_t end = text.find('\n', start);
    std::string at = where + ":" + std::to_string(number);
    if (end == std::string::npos) {
      read.warnings.push_back(at + ": ignored: a torn last line (an interrupted write)");
      break;
    }
    std::string line = text.substr(start, end - start);
    start = end + 1;
    if (line.empty()) continue;
    HistoryRecord record;
    std::string why;
    if (!read_record(line, &record, &why)) {
      read.warnings.push_back(at + ": ignored: " + why);
    } else if (record.node != node) {
      read.warnings.push_back(at + ": ignored: a record of node \"" + record.node + "\"");
    } else {
      read.records.push_back(std::move(record));
    }
  }
  return read;
}

Quarantine decide_quarantine(const std::vector<HistoryRecord>& records,
                             const QuarantinePolicy& policy) {
  Quarantine q;
  std::size_t window = policy.window > 0 ? static_cast<std::size_t>(policy.window) : 0;
  std::size_t first = records.size() > window ? records.size() - window : 0;
  std::string failures;
  for (std::size_t i = first; i < records.size(); ++i) {
    ++q.considered;
    if (records[i].passed) continue;
    ++q.failed;
    std::string what;
    for (const auto& name : records[i].failed) what += (what.empty() ? "" : "+") + name;
    failures += (failures.empty() ? "" : ", ") + (what.empty() ? "failed" : what) + " at " +
                records[i].time;
  }
  q.quarantined = policy.max_failures > 0 && q.failed >= policy.max_failures;
  if (q.quarantined)
    q.reason = "failed " + std::to_string(q.failed) + " of its last " +
               std::to_string(q.considered) + " checks (" + failures + ")";
  return q;
}

HistoryRead read_history(const std::string& dir, const std::string& node) {
  std::string path = history_path(dir, node);
  std::string text;
  bool cut_front = false;
  if (!read_tail(path, kMaxHistoryBytes, &text, &cut_front)) return {};
  if (cut_front) {
    // The first line read is most likely the end of an older record.
    auto newline = text.find('\n');
    text = newline == std::string::npos ? "" : text.substr(newline + 1);
  }
  return parse_history(text, node, path);
}

void append_history(const std::string& dir, const HistoryRecord& record) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw HistoryError("cannot create " + dir + ": " + ec.message());
  std::string path = history_path(dir, record.node);
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && static_cast<std::size_t>(st.st_size) > kMaxHistoryBytes)
    compact(path, record.node);

  int fd = ::open(path.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw HistoryError(system_error("open", path));
  std::string line = history_line(record);
  off_t before = 0;
  if (fstat(fd, &st) == 0 && st.st_size > 0) {
    before = st.st_size;
    char last = '\n';
    // After a torn line, start a new one: the torn one stays a garbage line on its own.
    if (pread(fd, &last, 1, st.st_size - 1) == 1 && last != '\n') line.insert(0, "\n");
  }
  ssize_t n;
  do {
    n = ::write(fd, line.data(), line.size());
  } while (n < 0 && errno == EINTR);
  if (n != static_cast<ssize_t>(line.size())) {
    if (n >= 0) errno = ENOSPC;
    std::string error = system_error("append to", path);
    // Cut a partial record back off; if that fails too, readers skip it as a torn line.
    if (n > 0) {
      int ignored = ftruncate(fd, before);
      (void)ignored;
    }
    ::close(fd);
    throw HistoryError(error);
  }
  ::close(fd);
}

Quarantine is_quarantined(const std::string& dir, const std::string& node,
                          const QuarantinePolicy& policy, std::vector<std::string>* warnings) {
  HistoryRead read = read_history(dir, node);
  if (warnings) *warnings = read.warnings;
  return decide_quarantine(read.records, policy);
}

}  // namespace pai
