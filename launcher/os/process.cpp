#include "launcher/os/process.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/process/args.hpp>
#include <boost/process/child.hpp>
#include <boost/process/env.hpp>
#include <boost/process/environment.hpp>
#include <boost/process/exe.hpp>
#include <boost/process/extend.hpp>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <system_error>

#include "launcher/os/cgroup.h"
#include "launcher/os/fd.h"
#include "libpai/inherited_fds.h"

namespace bp = boost::process;

namespace pai::launcher {

namespace {

// Runs in the forked child, before execve: only async-signal-safe calls.
struct ChildSetup : bp::extend::handler {
  int process_group;
  int stdout_fd;
  int stderr_fd;
  int stdin_fd;
  int cgroup_procs_fd;
  int channel_fd;
  bool detach;
  pid_t parent;
  const char* working_dir;

  template <class Executor>
  void on_exec_setup(Executor& exec) const {
    // Into the rank's cgroup before anything else, so that nothing it starts escapes it.
    if (cgroup_procs_fd >= 0 && !join_cgroup(cgroup_procs_fd)) fail(exec, "cannot join its cgroup");
    if (detach) {
      setsid();
    } else {
      setpgid(0, process_group);
    }
    // The launcher blocks the signals it consumes through signalfd and ignores SIGPIPE (it
    // installs no handlers); a child must start with the defaults it would get from a shell.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    signal(SIGPIPE, SIG_DFL);
    signal(SIGXFSZ, SIG_DFL);
    if (!detach) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      // The launcher may have died between fork and prctl; then nobody would kill us.
      if (getppid() != parent) _exit(EXIT_FAILURE);
    }
    if (dup2(stdin_fd, 0) < 0 || (stdout_fd >= 0 && dup2(stdout_fd, 1) < 0) ||
        (stderr_fd >= 0 && dup2(stderr_fd, 2) < 0)) {
      fail(exec, "dup2 failed");
    }
    if (working_dir[0] != '\0' && chdir(working_dir) != 0) fail(exec, "chdir failed");
    close_on_exec_above_stderr();
    // dup2 clears close-on-exec on the copy; a channel already at 3 is cleared by hand.
    if (channel_fd == 3 && fcntl(3, F_SETFD, 0) != 0) fail(exec, "cannot keep its channel");
    if (channel_fd >= 0 && channel_fd != 3 && dup2(channel_fd, 3) < 0) {
      fail(exec, "cannot keep its channel");
    }
    restore_descriptor_limit();
  }

  template <class Executor>
  static void fail(Executor& exec, const char* what) {
    exec.set_error(std::error_code(errno, std::system_category()), what);
    _exit(EXIT_FAILURE);
  }
};

std::string env_value(const std::vector<std::pair<std::string, std::string>>& env,
                      const std::string& name) {
  std::string value;
  bool found = false;
  for (const auto& [k, v] : env) {
    if (k == name) {
      value = v;
      found = true;
    }
  }
  if (!found) {
    const char* own = std::getenv(name.c_str());
    if (own != nullptr) value = own;
  }
  return value;
}

}  // namespace

std::string search_path(const std::string& name, const std::string& path_list) {
  if (name.find('/') != std::string::npos) return name;
  if (name.empty()) return "";
  std::size_t start = 0;
  while (start <= path_list.size()) {
    std::size_t end = path_list.find(':', start);
    if (end == std::string::npos) end = path_list.size();
    std::string dir = path_list.substr(start, end - start);
    if (dir.empty()) dir = ".";
    std::string candidate = dir + "/" + name;
    struct stat st {};
    if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
    start = end + 1;
  }
  return "";
}

int spawn_process(const SpawnRequest& request) {
  if (request.argv.empty()) throw SpawnError(127, "cannot run an empty command");
  const std::string& program = request.argv[0];
  std::string path = search_path(program, env_value(request.env, "PATH"));
  if (path.empty()) throw SpawnError(127, "cannot run '" + program + "': command not found");
  if (program.find('/') != std::string::npos) {
    std::string resolved = path;
    if (path[0] != '/' && !request.working_dir.empty()) resolved = request.working_dir + "/" + path;
    struct stat st {};
    if (stat(resolved.c_str(), &st) != 0) {
      throw SpawnError(127, "cannot run '" + program + "': " + std::strerror(errno));
    }
    if (S_ISDIR(st.st_mode) || access(resolved.c_str(), X_OK) != 0) {
      throw SpawnError(126,
                       "cannot run '" + program + "': permission denied (not an executable file)");
    }
  }
  if (!request.working_dir.empty()) {
    struct stat st {};
    if (stat(request.working_dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      throw SpawnError(127, "cannot run '" + program + "': working directory '" +
                                request.working_dir + "' does not exist");
    }
  }

  int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (devnull < 0) throw_fd_error("cannot open /dev/null");
  // Boost.Process needs a pipe of its own to report a failed exec, and fails without an error
  // code when it cannot have one: make sure two descriptors are free first.
  int probe[2];
  if (::pipe2(probe, O_CLOEXEC) != 0) {
    const int error = errno;
    ::close(devnull);
    errno = error;
    throw_fd_error("cannot start '" + program + "'");
  }
  ::close(probe[0]);
  ::close(probe[1]);
  bp::environment env;
  for (const auto& [name, value] : request.env) env[name] = value;
  std::vector<std::string> args(request.argv.begin() + 1, request.argv.end());
  ChildSetup setup;
  setup.process_group = request.process_group;
  setup.stdout_fd = request.stdout_fd;
  setup.stderr_fd = request.stderr_fd;
  setup.stdin_fd = request.stdin_fd >= 0 ? request.stdin_fd : devnull;
  setup.cgroup_procs_fd = request.cgroup_procs_fd;
  setup.channel_fd = request.channel_fd;
  setup.detach = request.detach;
  setup.parent = getpid();
  setup.working_dir = request.working_dir.c_str();

  std::error_code ec;
  bp::child child(bp::exe = path, bp::args = args, bp::env = env, setup, ec);
  close(devnull);
  if (ec && (ec.value() == EMFILE || ec.value() == ENFILE)) {
    errno = ec.value();
    throw_fd_error("cannot start '" + program + "'");
  }
  if (ec) {
    // Boost already tried a WNOHANG waitpid on the failed child; whatever is left of it is
    // reaped by the supervisor's loop like any unknown pid.
    throw SpawnError(ec.value() == ENOENT ? 127 : 126,
                     "cannot run '" + program + "': " + ec.message());
  }
  const int pid = child.id();
  if (pid <= 0) {
    // Boost fails without an error code when it cannot have its pipe: another thread (the log
    // writer, creating rank logs) may have taken the descriptors the probe above found free.
    if (::pipe2(probe, O_CLOEXEC) != 0) throw_fd_error("cannot start '" + program + "'");
    ::close(probe[0]);
    ::close(probe[1]);
    throw SpawnError(126, "cannot run '" + program + "': the process was not created");
  }
  // The parent sets the group too, so it is in place before anyone signals it (a session
  // leader's is its own already).
  if (!request.detach) setpgid(pid, request.process_group == 0 ? pid : request.process_group);
  // Detached: a bp::child would otherwise terminate the process or wait for it.
  child.detach();
  return pid;
}

}  // namespace pai::launcher
