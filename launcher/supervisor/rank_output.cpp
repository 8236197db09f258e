#include "launcher/supervisor/rank_output.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "launcher/logs/output_writers.h"
#include "launcher/os/fd.h"
#include "launcher/policy/failure_classifier.h"

namespace pai::launcher {

namespace {

// Pipe capacity and read size: a process writing fast is then rarely blocked on the relay,
// and each wakeup of the launcher moves up to this much.
constexpr int kPipeBytes = 1 << 20;
// Bounds the final read of a dead process's pipes when a grandchild keeps writing to them.
constexpr int kMaxDrainReads = 64;

// One read buffer for every rank: reads happen one at a time on the supervisor's loop, and a
// buffer per rank would cost 1 MiB each (a launcher of 1,000 ranks then holds 1 GiB).
std::vector<char>& read_buffer() {
  thread_local std::vector<char> buffer(kPipeBytes);
  return buffer;
}

// The log's side on the log writer's thread: created there, written there (a failure said
// once), closed there.
std::shared_ptr<WriteStream> open_log_stream(const std::shared_ptr<BoundedLog>& log,
                                             const std::string& path, const std::string& who) {
  WriteStreamOptions options;
  options.open = [log, who] {
    log->open();
    if (!log->is_open()) {
      terminal_say(2, "pai-launch: warning: " + log->open_error() + "; " + who +
                          " runs with its output on the terminal only\n");
    }
  };
  options.write = [log, path, said = false](std::string_view bytes) mutable {
    if (!log->is_open()) return false;
    if (log->write(bytes)) return true;
    if (!said) {
      said = true;
      terminal_say(2, "pai-launch: error: cannot write the log " + path + ": " +
                          std::strerror(errno) + "; the rank's output goes on to the terminal\n");
    }
    return false;
  };
  options.close = [log] { log->close(); };
  options.marker = [](std::uint64_t dropped) {
    return "pai-launch: " + std::to_string(dropped) +
           " bytes of this rank's output were dropped here: the log file system did not take "
           "them in time\n";
  };
  return log_writer().stream(std::move(options));
}

}  // namespace

RankOutput::RankOutput(std::string log_path, const std::string& prefix, const std::string& who,
                       int color_index, const Terminal& terminal, std::uint64_t max_log_bytes)
    : log_path_(std::move(log_path)),
      log_(std::make_shared<BoundedLog>(log_path_, max_log_bytes)),
      log_stream_(open_log_stream(log_, log_path_, who)),
      tail_(kLogTailBytes) {
  for (Stream* s : {&out_, &err_}) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
      const int error = errno;
      close();
      errno = error;
      throw_fd_error("cannot create pipes");
    }
    s->read_fd = fds[0];
    s->write_fd = fds[1];
    set_nonblocking(s->read_fd);
    fcntl(s->read_fd, F_SETPIPE_SZ, kPipeBytes);  // best effort: capped by pipe-max-size
  }
  out_.relay = std::make_unique<LogRelay>(prefix, terminal.color_stdout, color_index,
                                          terminal.stdout_fd, &tail_);
  err_.relay = std::make_unique<LogRelay>(prefix, terminal.color_stderr, color_index,
                                          terminal.stderr_fd, &tail_);
}

RankOutput::~RankOutput() { close(); }

void RankOutput::close_child_ends() {
  close_fd(out_.write_fd);
  close_fd(err_.write_fd);
}

void RankOutput::watch(EventLoop& loop, std::function<void()> on_output) {
  loop_ = &loop;
  on_output_ = std::move(on_output);
  for (Stream* s : {&out_, &err_}) {
    loop.watch(s->read_fd, [this, s] { read_stream(*s, 16, true); });
  }
}

void RankOutput::read_stream(Stream& s, int max_reads, bool until_short_read) {
  std::vector<char>& buffer = read_buffer();
  for (int n = 0; n < max_reads && s.read_fd >= 0; ++n) {
    const ssize_t got = ::read(s.read_fd, buffer.data(), buffer.size());
    if (got > 0) {
      const std::string_view bytes(buffer.data(), static_cast<std::size_t>(got));
      log_stream_->write(bytes);
      s.relay->feed(bytes);
      if (on_output_) on_output_();
      // A short read emptied the pipe: the (level-triggered) loop calls again when more
      // comes, so a read that would only say EAGAIN is saved.
      if (until_short_read && static_cast<std::size_t>(got) < buffer.size()) return;
    } else if (got < 0 && errno == EINTR) {
      continue;
    } else if (got < 0 && errno == EAGAIN) {
      return;
    } else {
      close_stream(s);
    }
  }
}

void RankOutput::close_stream(Stream& s) {
  if (s.read_fd >= 0) {
    if (s.relay) s.relay->finish();
    if (loop_ != nullptr) loop_->unwatch(s.read_fd);
  }
  close_fd(s.read_fd);
  close_fd(s.write_fd);
}

void RankOutput::drain() {
  for (Stream* s : {&out_, &err_}) read_stream(*s, kMaxDrainReads, false);
  log_writer().flush_for(kLogSettle);
}

void RankOutput::close() {
  close_stream(out_);
  close_stream(err_);
  log_stream_->close();
}

void RankOutput::note(const std::string& text) {
  tail_.append(text);
  log_stream_->write_always(text);
}

std::string RankOutput::log_error() const {
  // The writer sets it before it says the stream opened.
  return log_stream_->opened() ? log_->open_error() : std::string();
}

}  // namespace pai::launcher
