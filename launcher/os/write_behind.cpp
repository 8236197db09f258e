#include "launcher/os/write_behind.h"

#include <pthread.h>
#include <unistd.h>

#include <csignal>
#include <utility>

namespace pai::launcher {

WriteStream::WriteStream(WriteBehind& owner, WriteStreamOptions options)
    : owner_(owner), options_(std::move(options)), open_done_(!options_.open) {}

bool WriteStream::has_work_locked() const {
  return !open_done_ || !queued_.empty() || (closing_ && !closed_);
}

void WriteStream::queue_locked(std::string_view bytes, bool bounded) {
  queued_.push_back(Piece{std::string(bytes), bounded});
  if (bounded) {
    queued_bytes_ += bytes.size();
    if (options_.shared_bound) owner_.queued_ += bytes.size();
  }
  ++owner_.posted_;
  if (!listed_) {
    listed_ = true;
    owner_.ready_.push_back(shared_from_this());
  }
}

void WriteStream::mark_dropped_locked() {
  if (unmarked_ > 0 && options_.marker) {
    const std::string marker = options_.marker(unmarked_);
    if (!marker.empty()) queue_locked(marker, false);
  }
  unmarked_ = 0;
}

bool WriteStream::write(std::string_view bytes) {
  if (bytes.empty()) return true;
  std::size_t queued = 0;
  {
    std::lock_guard lock(owner_.mutex_);
    if (closing_) return false;
    const bool fits =
        queued_bytes_ + bytes.size() <= options_.max_queued &&
        (!options_.shared_bound || owner_.queued_ + bytes.size() <= owner_.max_queued_);
    if (fits) {
      mark_dropped_locked();
      queue_locked(bytes, true);
      owner_.work_.notify_one();
      return true;
    }
    dropped_ += bytes.size();
    unmarked_ += bytes.size();
    if (owner_.dropping_) return false;
    owner_.dropping_ = true;
    queued = owner_.queued_;
  }
  // A new episode of drops, said without the lock (the callback may queue elsewhere).
  if (owner_.on_drop_) owner_.on_drop_(queued);
  return false;
}

void WriteStream::write_always(std::string_view bytes) {
  if (bytes.empty()) return;
  std::lock_guard lock(owner_.mutex_);
  if (closing_) return;
  queue_locked(bytes, false);
  owner_.work_.notify_one();
}

void WriteStream::close() {
  std::lock_guard lock(owner_.mutex_);
  if (closing_) return;
  // Bytes dropped at the very end are marked too: nothing may follow to carry the marker.
  mark_dropped_locked();
  closing_ = true;
  ++owner_.posted_;
  if (!listed_) {
    listed_ = true;
    owner_.ready_.push_back(shared_from_this());
  }
  owner_.work_.notify_one();
}

std::uint64_t WriteStream::dropped() const {
  std::lock_guard lock(owner_.mutex_);
  return dropped_;
}

bool WriteStream::opened() const {
  std::lock_guard lock(owner_.mutex_);
  return open_done_;
}

WriteBehind::WriteBehind(std::size_t max_queued, std::function<void(std::size_t)> on_drop)
    : max_queued_(max_queued), on_drop_(std::move(on_drop)) {}

WriteBehind::~WriteBehind() {
  std::unique_lock lock(mutex_);
  if (!thread_.joinable()) return;
  if (owner_pid_ != ::getpid()) {
    // A forked child has no writer thread: nothing of its parent's queue is its to write.
    lock.unlock();
    thread_.detach();
    return;
  }
  stopping_ = true;
  lock.unlock();
  work_.notify_one();
  thread_.join();
}

std::shared_ptr<WriteStream> WriteBehind::stream(WriteStreamOptions options) {
  std::shared_ptr<WriteStream> s(new WriteStream(*this, std::move(options)));
  std::lock_guard lock(mutex_);
  start_locked();
  if (!s->open_done_) {
    ++posted_;
    s->listed_ = true;
    ready_.push_back(s);
    work_.notify_one();
  }
  return s;
}

void WriteBehind::start_locked() {
  if (thread_.joinable()) return;
  owner_pid_ = ::getpid();
  thread_ = std::thread([this] { run(); });
}

void WriteBehind::flush() {
  std::unique_lock lock(mutex_);
  const std::uint64_t target = posted_;
  idle_.wait(lock, [&] { return done_ >= target; });
}

bool WriteBehind::flush_for(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  const std::uint64_t target = posted_;
  if (done_ >= target) return true;
  if (stalled_at_ && *stalled_at_ == done_) return false;
  if (idle_.wait_for(lock, timeout, [&] { return done_ >= target; })) return true;
  stalled_at_ = done_;
  return false;
}

std::size_t WriteBehind::queued() const {
  std::lock_guard lock(mutex_);
  return queued_;
}

void WriteBehind::run() {
  // Signals are the loop's: none is ever delivered here (the launcher reads its own from a
  // signalfd, and a stray SIGTERM to this thread would kill the process).
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, nullptr);
  std::unique_lock lock(mutex_);
  for (;;) {
    if (ready_.empty()) {
      if (stopping_) return;
      work_.wait(lock);
      continue;
    }
    std::shared_ptr<WriteStream> s = std::move(ready_.front());
    ready_.pop_front();
    // One step of the stream, without the lock: this is the call that may block.
    enum class Step { kOpen, kWrite, kClose } step = Step::kClose;
    WriteStream::Piece piece;
    if (!s->open_done_) {
      step = Step::kOpen;
    } else if (!s->queued_.empty()) {
      step = Step::kWrite;
      piece = std::move(s->queued_.front());
      s->queued_.pop_front();
    }
    lock.unlock();
    if (step == Step::kOpen) {
      s->options_.open();
    } else if (step == Step::kWrite) {
      s->options_.write(piece.bytes);
    } else if (s->options_.close) {
      s->options_.close();
    }
    lock.lock();
    if (step == Step::kOpen) s->open_done_ = true;
    if (step == Step::kClose) s->closed_ = true;
    if (step == Step::kWrite && piece.bounded) {
      s->queued_bytes_ -= piece.bytes.size();
      if (s->options_.shared_bound) queued_ -= piece.bytes.size();
    }
    if (queued_ == 0) dropping_ = false;
    ++done_;
    // Round robin: a stream with more to do goes to the back.
    if (s->has_work_locked()) {
      ready_.push_back(std::move(s));
    } else {
      s->listed_ = false;
    }
    idle_.notify_all();
  }
}

}  // namespace pai::launcher
