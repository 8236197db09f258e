#include "launcher/supervisor/rank_output.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "launcher/os/fd.h"
#include "launcher/policy/failure_classifier.h"
#include "libpai/write_all.h"

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

}  // namespace

RankOutput::RankOutput(std::string log_path, const std::string& prefix, int color_index,
                       const Terminal& terminal, std::uint64_t max_log_bytes)
    : log_path_(std::move(log_path)), log_(log_path_, max_log_bytes), tail_(kLogTailBytes) {
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
      write_log(bytes);
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
}

void RankOutput::close() {
  close_stream(out_);
  close_stream(err_);
  log_.close();
}

void RankOutput::note(const std::string& text) {
  tail_.append(text);
  write_log(text);
}

void RankOutput::write_log(std::string_view bytes) {
  if (!log_.is_open() || log_.write(bytes) || log_error_said_) return;
  log_error_said_ = true;
  write_all(2, "pai-launch: error: cannot write the log " + log_path_ + ": " +
                   std::strerror(errno) + "; the rank's output goes on to the terminal\n");
}

}  // namespace pai::launcher
