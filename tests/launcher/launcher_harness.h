// Runs the real pai-launch binary on small /bin/sh jobs, tini-style, and checks that no
// process of a test outlives it.
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "libpai/placement.h"
#include "libpai/plan.h"
#include "libpai/plan_json.h"
#include "support/temp_dir.h"

namespace pai::testing {

/// Path of the pai-launch binary under test.
inline const std::string kLauncher = PAI_BINARY_DIR "/launcher/pai-launch";

/// A job for one localhost instance of role "worker" running `script` with /bin/sh in
/// `nproc` processes; fast fault-tolerance settings (backoff 0, grace 1 s, hang off).
/// `name` must be unique per test: it names the control-socket directory and is how
/// leftover processes are found.
inline Plan local_plan(const std::string& name, const std::string& script, int nproc = 1) {
  Plan plan;
  plan.compiler = "pai-compile test";
  plan.name = name;
  Role role;
  role.name = "worker";
  role.instances = 1;
  role.nproc_per_node = nproc;
  role.env_convention = nproc > 1 ? EnvConvention::PerProcess : EnvConvention::PerNode;
  role.command = {"/bin/sh", "-c", script};
  role.launch_argv = role.command;
  plan.roles = {role};
  plan.master_role = "worker";
  plan.hosts = {Host{"localhost", "127.0.0.1", 0}};
  plan.fault_tolerance.backoff_seconds = 0;
  plan.fault_tolerance.grace_period_seconds = 1;
  plan.fault_tolerance.hang.enabled = false;
  plan.sanity_check.enabled = false;
  place(plan, plan.hosts);
  return plan;
}

/// Writes `plan` as `<dir>/plan.json` with an unkeyed seal (a plan without a job token, which
/// a one-node job runs) and returns its path.
inline std::string write_plan(const TempDir& dir, const Plan& plan) {
  const std::string path = dir / "plan.json";
  spit(path, plan_to_json_unkeyed(plan));
  return path;
}

/// Writes `plan` as `<dir>/plan.json` sealed with `token`, as pai-compile does, and the token
/// as `<dir>/job.token` (mode 0600); returns the plan's path.
inline std::string write_sealed_plan(const TempDir& dir, const Plan& plan,
                                     const std::string& token) {
  const std::string path = dir / "plan.json";
  spit(path, plan_to_json(plan, token));
  spit(dir / "job.token", token + "\n");
  ::chmod((dir / "job.token").c_str(), 0600);
  return path;
}

/// A running pai-launch with stdout and stderr captured in files.
class Launcher {
 public:
  /// Starts `pai-launch <args>`, its stdout and stderr into files of `dir`, or both to
  /// `terminal` when one is given (a pty, a pipe: out() and err() are then empty).
  Launcher(const TempDir& dir, std::vector<std::string> args, int terminal = -1)
      : out_path_(dir / "launcher.out"), err_path_(dir / "launcher.err") {
    // Orphans of the job come back to this test, so the leftover check can see them.
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    start_ = std::chrono::steady_clock::now();
    pid_ = fork();
    if (pid_ == 0) {
      int out =
          terminal >= 0 ? terminal : open(out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      int err =
          terminal >= 0 ? terminal : open(err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(out, 1);
      dup2(err, 2);
      sigset_t none;
      sigemptyset(&none);
      sigprocmask(SIG_SETMASK, &none, nullptr);
      std::vector<char*> argv;
      argv.push_back(const_cast<char*>(kLauncher.c_str()));
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(kLauncher.c_str(), argv.data());
      _exit(99);
    }
  }
  ~Launcher() {
    if (pid_ > 0 && !exited_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  Launcher(const Launcher&) = delete;
  Launcher& operator=(const Launcher&) = delete;

  int pid() const { return pid_; }

  /// Waits up to `timeout_s` for the launcher; returns its shell-style exit code, or -1
  /// after killing it on timeout.
  int wait(double timeout_s = 20) {
    const auto deadline = start_ + std::chrono::duration<double>(timeout_s);
    while (std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        exited_ = true;
        elapsed_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
        return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    exited_ = true;
    return -1;
  }
  /// Seconds from start to exit (after wait()).
  double elapsed() const { return elapsed_; }
  std::string out() const { return slurp(out_path_); }
  std::string err() const { return slurp(err_path_); }

 private:
  std::string out_path_, err_path_;
  int pid_ = -1;
  bool exited_ = false;
  double elapsed_ = 0;
  std::chrono::steady_clock::time_point start_;
};

/// Runs pai-launch to completion.
struct RunResult {
  int code;
  std::string out;
  std::string err;
  double seconds;
};
inline RunResult run_launcher(const TempDir& dir, std::vector<std::string> args,
                              double timeout_s = 20) {
  Launcher launcher(dir, std::move(args));
  const int code = launcher.wait(timeout_s);
  return RunResult{code, launcher.out(), launcher.err(), launcher.elapsed()};
}

/// Polls `check` every `period` for up to `timeout_s`; true once it holds.
inline bool eventually(const std::function<bool()>& check, double timeout_s = 20,
                       std::chrono::milliseconds period = std::chrono::milliseconds(50)) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (std::chrono::steady_clock::now() < deadline) {
    if (check()) return true;
    std::this_thread::sleep_for(period);
  }
  return false;
}

/// Waits until `path` exists (a job's "I am ready" marker); false after `timeout_s`.
inline bool wait_for_file(const std::string& path, double timeout_s = 10) {
  return eventually([&] { return access(path.c_str(), F_OK) == 0; }, timeout_s,
                    std::chrono::milliseconds(10));
}

/// The pid a process wrote to `path` as one line ("echo $$ > path"), once the line is whole;
/// -1 after `timeout_s`.
inline pid_t wait_for_pid_in(const std::string& path, double timeout_s = 10) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (std::chrono::steady_clock::now() < deadline) {
    const std::string text = slurp(path);
    if (!text.empty() && text.back() == '\n') return std::stoi(text);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return -1;
}

/// Pids of live processes whose environment holds PAI_JOB_NAME=`job` (the job's processes
/// and their descendants). Reaps zombies that came back to this test as subreaper, and
/// gives dying processes up to `settle_s` to go.
inline std::vector<int> leftover_processes(const std::string& job, double settle_s = 3) {
  const std::string marker = "PAI_JOB_NAME=" + job;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(settle_s);
  for (;;) {
    while (waitpid(-1, nullptr, WNOHANG) > 0) {
    }
    std::vector<int> found;
    if (DIR* proc = opendir("/proc")) {
      while (dirent* e = readdir(proc)) {
        const int pid = std::atoi(e->d_name);
        if (pid <= 0 || pid == getpid()) continue;
        std::string env = slurp("/proc/" + std::to_string(pid) + "/environ");
        std::size_t at = 0;
        while ((at = env.find(marker, at)) != std::string::npos) {
          const bool starts = at == 0 || env[at - 1] == '\0';
          const std::size_t end = at + marker.size();
          if (starts && (end == env.size() || env[end] == '\0')) {
            found.push_back(pid);
            break;
          }
          at = end;
        }
      }
      closedir(proc);
    }
    if (found.empty() || std::chrono::steady_clock::now() >= deadline) return found;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

/// Whether `pid` runs; a zombie (dead, not yet reaped) counts as gone.
inline bool process_alive(pid_t pid) {
  const std::string stat = slurp("/proc/" + std::to_string(pid) + "/stat");
  const std::size_t paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] != 'Z';
}

/// Whether `pid` is gone within `seconds` (reaped when it is this process's child).
inline bool process_gone_within(pid_t pid, double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    waitpid(pid, nullptr, WNOHANG);
    if (!process_alive(pid)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

/// process_gone_within(), and a SIGKILL for `pid` when it is not gone, so that a failing test
/// leaves nothing running.
inline bool process_gone_or_killed(pid_t pid, double seconds) {
  if (process_gone_within(pid, seconds)) return true;
  kill(pid, SIGKILL);
  return false;
}

/// Number of lines of `text` holding `needle`.
inline int count_lines_with(const std::string& text, const std::string& needle) {
  int n = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) n += line.find(needle) != std::string::npos;
  return n;
}

}  // namespace pai::testing
