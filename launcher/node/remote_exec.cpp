#include "launcher/node/remote_exec.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "launcher/os/fd.h"
#include "launcher/os/process.h"
#include "launcher/policy/failure_classifier.h"
#include "libpai/write_all.h"

namespace pai::launcher {

struct RemoteExec::Command {
  int pid = 0;
  int out = -1;
  int err = -1;
  int in = -1;
  bool exited = false;
  int code = 0;
};

namespace {

// A pipe whose read end (for us) is non-blocking; both ends close-on-exec.
void make_pipe(int fds[2]) {
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    throw std::runtime_error(std::string("cannot create pipes: ") + std::strerror(errno));
  }
}

}  // namespace

RemoteExec::RemoteExec(EventLoop& loop, OnOutput on_output, OnExit on_exit)
    : loop_(loop), on_output_(std::move(on_output)), on_exit_(std::move(on_exit)) {}

RemoteExec::~RemoteExec() {
  kill_all();
  for (auto& [id, c] : commands_) {
    for (int* fd : {&c->out, &c->err}) {
      if (*fd >= 0) loop_.unwatch(*fd);
      close_fd(*fd);
    }
    close_fd(c->in);
  }
}

void RemoteExec::start(std::int64_t id, const std::vector<std::string>& argv, const EnvList& env,
                       bool with_stdin) {
  if (commands_.count(id) != 0) {
    on_output_(id, net::Stream::Stderr, "pai-launch: duplicate command id\n");
    on_exit_(id, 126);
    return;
  }
  int out[2], err[2], in[2] = {-1, -1};
  make_pipe(out);
  make_pipe(err);
  if (with_stdin) make_pipe(in);
  SpawnRequest request;
  request.argv = argv;
  request.env = env;
  request.stdout_fd = out[1];
  request.stderr_fd = err[1];
  request.stdin_fd = in[0];
  int pid = 0;
  std::string problem;
  int code = 0;
  try {
    pid = spawn_process(request);
  } catch (const SpawnError& e) {
    problem = e.what();
    code = e.exit_code();
  }
  ::close(out[1]);
  ::close(err[1]);
  if (in[0] >= 0) ::close(in[0]);
  if (pid == 0) {
    ::close(out[0]);
    ::close(err[0]);
    if (in[1] >= 0) ::close(in[1]);
    on_output_(id, net::Stream::Stderr, "pai-launch: " + problem + "\n");
    on_exit_(id, code);
    return;
  }
  auto command = std::make_unique<Command>();
  command->pid = pid;
  command->out = out[0];
  command->err = err[0];
  command->in = in[1];
  Command* c = command.get();
  commands_[id] = std::move(command);
  for (int fd : {c->out, c->err}) set_nonblocking(fd);
  loop_.watch(c->out, [this, id, c] {
    read_pipe(id, c->out, net::Stream::Stdout);
    maybe_done(id);
  });
  loop_.watch(c->err, [this, id, c] {
    read_pipe(id, c->err, net::Stream::Stderr);
    maybe_done(id);
  });
}

void RemoteExec::read_pipe(std::int64_t id, int& fd, net::Stream stream) {
  char buffer[64 * 1024];
  for (int round = 0; round < 16 && fd >= 0; ++round) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n > 0) {
      on_output_(id, stream, std::string_view(buffer, static_cast<std::size_t>(n)));
      continue;
    }
    if (n < 0 && (errno == EINTR)) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    loop_.unwatch(fd);
    close_fd(fd);
  }
}

void RemoteExec::write_stdin(std::int64_t id, std::string_view data, bool eof) {
  auto it = commands_.find(id);
  if (it == commands_.end() || it->second->in < 0) return;
  Command& c = *it->second;
  // A command that stopped reading must not stall the launcher's loop forever: a broken or
  // full pipe drops its stdin.
  if (!data.empty() && !write_all(c.in, data)) close_fd(c.in);
  if (eof) close_fd(c.in);
}

void RemoteExec::kill(std::int64_t id) {
  auto it = commands_.find(id);
  if (it != commands_.end() && !it->second->exited) ::kill(-it->second->pid, SIGKILL);
}

void RemoteExec::kill_all() {
  for (auto& [id, c] : commands_) {
    if (!c->exited) ::kill(-c->pid, SIGKILL);
  }
  for (int group : leftover_groups_) ::kill(-group, SIGKILL);
  leftover_groups_.clear();
}

bool RemoteExec::on_child_exit(int pid, int wait_status) {
  for (auto& [id, c] : commands_) {
    if (c->pid != pid || c->exited) continue;
    c->exited = true;
    c->code = ExitStatus::from_wait_status(wait_status).shell_code();
    close_fd(c->in);
    // What it left running in its group (a daemon it started, such as Open MPI's orted) is
    // left alone until the job ends: kill_all() takes it then.
    leftover_groups_.push_back(pid);
    const std::int64_t key = id;
    maybe_done(key);
    return true;
  }
  return false;
}

void RemoteExec::maybe_done(std::int64_t id) {
  auto it = commands_.find(id);
  if (it == commands_.end()) return;
  Command& c = *it->second;
  if (!c.exited) return;
  // Drain what the pipes still hold (a killed group closes them).
  if (c.out >= 0) read_pipe(id, c.out, net::Stream::Stdout);
  if (c.err >= 0) read_pipe(id, c.err, net::Stream::Stderr);
  if (c.out >= 0 || c.err >= 0) return;
  const int code = c.code;
  commands_.erase(it);
  on_exit_(id, code);
}

}  // namespace pai::launcher
