#include "launcher/logs/output_writers.h"

#include <unistd.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "libpai/write_all.h"

namespace pai::launcher {

namespace {

int g_owner_pid = 0;

// At exit, what is queued is written (in the process that queued it: a forked child that
// calls exit() has no writer threads).
void flush_at_exit() {
  if (::getpid() == g_owner_pid) flush_output();
}

void register_flush_at_exit() {
  static std::once_flag once;
  std::call_once(once, [] {
    g_owner_pid = ::getpid();
    std::atexit(flush_at_exit);
  });
}

// Never destroyed: streams and threads of other static objects may still queue at exit.
WriteBehind& terminal_writer() {
  static WriteBehind* writer = [] {
    register_flush_at_exit();
    return new WriteBehind(kTerminalQueueBytes);
  }();
  return *writer;
}

WriteStream& terminal_stream(int fd) {
  static std::mutex mutex;
  static std::map<int, std::shared_ptr<WriteStream>> streams;
  std::lock_guard lock(mutex);
  std::shared_ptr<WriteStream>& s = streams[fd];
  if (s == nullptr) {
    WriteStreamOptions options;
    // A terminal that fails (closed, hung up) must not stop the job: errors are ignored.
    options.write = [fd](std::string_view bytes) { return write_all(fd, bytes); };
    options.marker = [](std::uint64_t dropped) {
      return "pai-launch: " + std::to_string(dropped) +
             " bytes of output were not shown: this terminal (or pipe) did not read them in "
             "time; the rank logs keep them\n";
    };
    s = terminal_writer().stream(std::move(options));
  }
  return *s;
}

}  // namespace

void terminal_write(int fd, std::string_view bytes) {
  if (fd < 0 || bytes.empty()) return;
  terminal_stream(fd).write(bytes);
}

void terminal_say(int fd, std::string_view text) {
  if (fd < 0 || text.empty()) return;
  terminal_stream(fd).write_always(text);
}

WriteBehind& log_writer() {
  static WriteBehind* writer = [] {
    register_flush_at_exit();
    return new WriteBehind(kLogQueueBytes, [](std::size_t queued) {
      terminal_say(2, "pai-launch: warning: the log file system is not taking writes (" +
                          std::to_string(queued) +
                          " bytes wait): rank output is dropped from the logs, counted and "
                          "marked there, until it does; the job goes on\n");
    });
  }();
  return *writer;
}

void flush_output() {
  // The logs first: a stalled log file system may still have a warning for the terminal.
  log_writer().flush();
  terminal_writer().flush();
}

}  // namespace pai::launcher
