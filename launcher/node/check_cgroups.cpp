#include "launcher/node/check_cgroups.h"

#include <unistd.h>

#include <stdexcept>
#include <utility>

#include "launcher/os/cgroup.h"

namespace pai::launcher {
namespace {

// One child's cgroup: a leaf of the checks' tree, joined through its cgroup.procs.
class CheckCgroup final : public checks::ContainedChild {
 public:
  CheckCgroup(Containment& containment, std::string name, int procs_fd)
      : containment_(containment), name_(std::move(name)), procs_fd_(procs_fd) {}
  ~CheckCgroup() override {
    ::close(procs_fd_);
    containment_.remove_leaf(name_);
  }
  CheckCgroup(const CheckCgroup&) = delete;
  CheckCgroup& operator=(const CheckCgroup&) = delete;

  bool enter() noexcept override { return join_cgroup(procs_fd_); }
  void kill() noexcept override { containment_.kill(name_); }

 private:
  Containment& containment_;
  std::string name_;
  int procs_fd_;
};

}  // namespace

std::string check_cgroups_name(const std::string& job, const std::string& node) {
  return "pai_checks-" + job + "." + node;
}

CheckCgroups::CheckCgroups(const std::string& name,
                           const std::function<void(const std::string&)>& say)
    : say_([say](const std::string& text) { say("sanity checks: " + text); }),
      containment_(name, say_) {}

std::unique_ptr<checks::ContainedChild> CheckCgroups::contain() {
  if (!containment_.cgroups()) return nullptr;
  const std::string name = "check-" + std::to_string(next_++);
  try {
    const int fd = containment_.open_leaf(name);
    return std::make_unique<CheckCgroup>(containment_, name, fd);
  } catch (const std::runtime_error& e) {  // CgroupError; out of descriptors
    containment_.remove_leaf(name);
    say_(std::string("warning: ") + e.what() +
         ": this check's processes are held by its "
         "process group only");
    return nullptr;
  }
}

}  // namespace pai::launcher
