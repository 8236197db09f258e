#include "launcher/node/delayed_undo.h"

#include <signal.h>

#include "launcher/os/process.h"

namespace pai::launcher {

namespace {

constexpr char kSystemPath[] = "/usr/sbin:/usr/bin:/sbin:/bin";

}  // namespace

DelayedUndo::~DelayedUndo() { cancel(); }

void DelayedUndo::start(const std::vector<std::string>& argv, int seconds) {
  cancel();
  const int delay = seconds + kUndoMarginSeconds;
  std::vector<std::string> command{"/bin/sh", "-c", "sleep \"$1\" && shift && exec \"$@\"",
                                   "pai-drill-undo", std::to_string(delay)};
  command.insert(command.end(), argv.begin(), argv.end());
  pid_ = spawn_process(SpawnRequest{
      .argv = command, .env = {{"PATH", kSystemPath}}, .working_dir = "/", .detach = true});
  acts_at_ = std::chrono::steady_clock::now() + std::chrono::seconds(delay);
}

void DelayedUndo::cancel() {
  // The session's whole group: the shell's `sleep` too, which would otherwise sleep on with
  // the launcher's stdout and stderr open (a pipe the launcher writes into would stay open
  // for the fault's seconds after the launcher ended).
  if (pid_ > 0 && std::chrono::steady_clock::now() + std::chrono::seconds(1) < acts_at_) {
    ::kill(-pid_, SIGKILL);
  }
  pid_ = 0;
}

}  // namespace pai::launcher
