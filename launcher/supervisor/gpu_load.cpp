#include "launcher/supervisor/gpu_load.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "launcher/os/fd.h"
#include "launcher/os/process.h"
#include "launcher/policy/failure_classifier.h"

namespace pai::launcher {
namespace {

// What is kept of the burner's output: its last lines, for the reason it ended.
constexpr std::size_t kOutputCap = 4096;

// The last non-empty line of `text`.
std::string last_line(const std::string& text) {
  std::size_t end = text.find_last_not_of("\r\n");
  if (end == std::string::npos) return "";
  const std::size_t start = text.rfind('\n', end);
  return text.substr(start == std::string::npos ? 0 : start + 1,
                     end + 1 - (start == std::string::npos ? 0 : start + 1));
}

}  // namespace

GpuLoad::GpuLoad(EventLoop& loop, const std::vector<std::string>& burner, int gpu, int seconds,
                 const std::vector<std::pair<std::string, std::string>>& env,
                 std::function<void()> on_burning)
    : loop_(loop), gpu_(gpu), on_burning_(std::move(on_burning)) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw_fd_error("cannot make the pipe of the GPU burn");
  std::vector<std::string> argv = burner;
  argv.push_back(std::to_string(gpu));
  argv.push_back(std::to_string(seconds));
  try {
    SpawnRequest request;
    request.argv = std::move(argv);
    request.env = env;
    request.working_dir = "/";
    request.stdout_fd = fds[1];
    request.stderr_fd = fds[1];
    pid_ = spawn_process(request);
  } catch (...) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw;
  }
  ::close(fds[1]);
  fd_ = fds[0];
  set_nonblocking(fd_);
  loop_.watch(fd_, [this] { read(); });
}

GpuLoad::~GpuLoad() {
  if (pid_ > 0) ::kill(-pid_, SIGKILL);
  if (fd_ >= 0) loop_.unwatch(fd_);
  close_fd(fd_);
}

std::string GpuLoad::described() const {
  return described_.empty() ? "GPU " + std::to_string(gpu_) : described_;
}

void GpuLoad::exited(int wait_status) {
  pid_ = 0;
  if (fd_ >= 0) read();  // what it wrote before it ended; on_burning_ is not called now
  const std::string line = last_line(output_);
  ending_ = describe(ExitStatus::from_wait_status(wait_status)) + (line.empty() ? "" : ": " + line);
}

void GpuLoad::read() {
  char buffer[1024];
  bool closed = false;
  for (;;) {
    const ssize_t n = ::read(fd_, buffer, sizeof buffer);
    if (n > 0) {
      output_.append(buffer, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    closed = n == 0 || errno != EAGAIN;
    break;
  }
  if (closed) {
    loop_.unwatch(fd_);
    close_fd(fd_);
  }
  const std::size_t said = burning_ ? std::string::npos : output_.find(kGpuBurningLine);
  const std::size_t said_end = said == std::string::npos ? said : output_.find('\n', said);
  if (said_end != std::string::npos) {
    // "burning GPU 1 (NAME) for 9 s": what lies between "burning " and " for ".
    const std::string line = output_.substr(said, said_end - said);
    const std::size_t from = sizeof "burning " - 1;
    const std::size_t to = line.rfind(" for ");
    if (to != std::string::npos && to > from) described_ = line.substr(from, to - from);
  }
  if (output_.size() > kOutputCap) output_.erase(0, output_.size() - kOutputCap);
  if (said_end == std::string::npos) return;
  burning_ = true;
  // Last: the callback may destroy this object.
  if (pid_ > 0 && on_burning_) on_burning_();
}

}  // namespace pai::launcher
