// Writes that may block, done behind the loop's back. A terminal under Ctrl-S, a pipe whose
// reader stopped (`pai-launch run | less` left on a page) or a log file system that froze (a
// stalled NFS, `fsfreeze`) blocks write(2) for as long as it likes; a launcher that wrote on
// the thread that sends heartbeats lost its node after 5 s. A WriteBehind owns one thread that
// does the writes of its streams, in order; the loop only queues bytes (a copy under a mutex).
// Bytes that would take the queue past its bound are dropped whole and counted, and the
// stream's marker says so in the stream when it moves again.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

namespace pai::launcher {

class WriteBehind;

/// How one stream of a WriteBehind behaves.
struct WriteStreamOptions {
  /// Runs on the writer thread for each queued piece, in order; false when the write failed
  /// (the sink says so itself: the bytes are not retried).
  std::function<bool(std::string_view)> write;
  /// Runs on the writer thread before the first write (opening a file on the stalled file
  /// system must not block the loop either); none = nothing to open.
  std::function<void()> open;
  /// Runs on the writer thread after the last write, once close() was called.
  std::function<void()> close;
  /// The text written before the next piece after `dropped` bytes were dropped ("" = none).
  std::function<std::string(std::uint64_t dropped)> marker;
  /// Bytes of this stream that may wait, at most (its pieces beyond are dropped).
  std::size_t max_queued = SIZE_MAX;
  /// Whether its bytes also count against the WriteBehind's bound. A journal's records do not:
  /// its own bound keeps them from crowding out, and rank output cannot crowd them out.
  bool shared_bound = true;
};

/// One ordered stream of bytes written by a WriteBehind's thread. Thread-safe.
class WriteStream : public std::enable_shared_from_this<WriteStream> {
 public:
  /// Queues a copy of `bytes` (one piece, written whole or dropped whole); false when it was
  /// dropped for a bound (counted). Never waits for a write.
  bool write(std::string_view bytes);
  /// Queues `bytes` whatever the bounds (markers, the launcher's own notes: small and rare).
  void write_always(std::string_view bytes);
  /// The stream ends: its close runs after what is queued, and after the marker of bytes
  /// dropped since the last piece, if any.
  void close();
  /// Bytes dropped for a bound so far.
  std::uint64_t dropped() const;
  /// Whether open (if any) ran.
  bool opened() const;

 private:
  friend class WriteBehind;
  WriteStream(WriteBehind& owner, WriteStreamOptions options);
  struct Piece {
    std::string bytes;
    bool bounded = true;  // counts against the bounds while it waits
  };
  // Queues a piece and lists the stream as ready; with owner_.mutex_ held.
  void queue_locked(std::string_view bytes, bool bounded);
  // Queues the marker for what was dropped since the last one, if any; with the lock held.
  void mark_dropped_locked();
  bool has_work_locked() const;

  WriteBehind& owner_;
  WriteStreamOptions options_;
  // All below are guarded by owner_.mutex_.
  std::deque<Piece> queued_;
  std::size_t queued_bytes_ = 0;  // of bounded pieces
  std::uint64_t dropped_ = 0;
  std::uint64_t unmarked_ = 0;  // dropped since the last marker
  bool open_done_ = false;
  bool closing_ = false;
  bool closed_ = false;
  bool listed_ = false;  // in owner_.ready_, or being worked on
};

/// The thread and the bound shared by its streams.
class WriteBehind {
 public:
  /// `max_queued`: bytes of all shared-bound streams that may wait. `on_drop`, when given, is
  /// called (on the queuing thread, without locks held) when a drop begins an episode: the
  /// first drop after the queue last ran empty.
  explicit WriteBehind(std::size_t max_queued,
                       std::function<void(std::size_t queued)> on_drop = {});
  /// Writes what is queued, then stops the thread (in the process that started it).
  ~WriteBehind();
  WriteBehind(const WriteBehind&) = delete;
  WriteBehind& operator=(const WriteBehind&) = delete;

  /// A new stream; it lives while the caller or the queue holds it.
  std::shared_ptr<WriteStream> stream(WriteStreamOptions options);
  /// Waits until everything queued before the call was written (the end of a run; tests).
  void flush();
  /// The same for at most `timeout`; false when not all was written. A writer that let such a
  /// wait time out and has finished nothing since is taken as stalled: the next waits return
  /// false at once, until it moves again (a frozen file system costs one timeout, not one
  /// per wait).
  bool flush_for(std::chrono::milliseconds timeout);
  /// Bytes waiting in shared-bound streams now.
  std::size_t queued() const;

 private:
  friend class WriteStream;
  void run();
  void start_locked();

  std::size_t max_queued_;
  std::function<void(std::size_t)> on_drop_;
  mutable std::mutex mutex_;
  std::condition_variable work_;                    // the writer waits for work
  std::condition_variable idle_;                    // flush() waits for progress
  std::deque<std::shared_ptr<WriteStream>> ready_;  // streams with work, round robin
  std::size_t queued_ = 0;
  bool dropping_ = false;
  bool stopping_ = false;
  std::uint64_t done_ = 0;                   // pieces of work finished
  std::uint64_t posted_ = 0;                 // pieces of work queued
  std::optional<std::uint64_t> stalled_at_;  // done_ when a flush_for timed out
  std::thread thread_;
  int owner_pid_ = 0;
};

}  // namespace pai::launcher
