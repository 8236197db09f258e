// The launcher's two writers that may block (os/write_behind.h): the terminal (its stdout and
// stderr, whatever they are: a terminal someone pressed Ctrl-S on, a pipe to a pager) and the
// log file system (rank logs and journals). Everything the launcher shows or logs while a job
// runs goes through them, so the threads that keep the job alive never wait on either.
#pragma once

#include <chrono>
#include <cstddef>
#include <string_view>

#include "launcher/os/write_behind.h"

namespace pai::launcher {

/// Bytes of output that may wait for the terminal: beyond, rank output is not shown (the logs
/// keep it) and a marker says how much was not.
inline constexpr std::size_t kTerminalQueueBytes = std::size_t{1} << 20;
/// Bytes of rank output that may wait for the log file system: beyond, they are dropped,
/// counted in the rank's exit record and marked in its log. Journal records have their own
/// bound (kJournalQueueBytes) and are not crowded out by output.
inline constexpr std::size_t kLogQueueBytes = std::size_t{32} << 20;
inline constexpr std::size_t kJournalQueueBytes = std::size_t{8} << 20;
/// The longest the loop waits for the log writer where it must read what was just logged (a
/// rank's exit record, a log followed by `pai-launch logs`): WriteBehind::flush_for.
inline constexpr std::chrono::milliseconds kLogSettle{250};

/// Queues rank output for `fd` (1, 2 or the fd a relay shows on; -1 = nowhere). Dropped,
/// counted and marked when kTerminalQueueBytes wait already.
void terminal_write(int fd, std::string_view bytes);
/// Queues a line of the launcher's own (a warning, an error, the summary): never dropped.
void terminal_say(int fd, std::string_view text);
/// The writer of the log file system.
WriteBehind& log_writer();
/// Waits until everything queued for the terminal and the logs is written: at the end of a
/// run (also registered with atexit), and in tests before reading what was written.
void flush_output();

}  // namespace pai::launcher
