#include "launcher/supervisor/containment.h"

namespace pai::launcher {

Containment::Containment(const std::string& name,
                         const std::function<void(const std::string&)>& say) {
  if (name.empty()) return;
  const CgroupSupport support = cgroup_support();
  if (!support.unavailable.empty()) {
    say("warning: no cgroup v2 containment (" + support.unavailable +
        "): processes are held by process groups only, and a launcher killed with SIGKILL may "
        "leave processes that left their group running");
    return;
  }
  try {
    tree_ = std::make_unique<CgroupTree>(support.own_dir, name);
    watchdog_ = std::make_unique<CgroupWatchdog>(tree_->dir());
  } catch (const CgroupError& e) {
    watchdog_.reset();
    tree_.reset();
    say(std::string("warning: no cgroup v2 containment (") + e.what() +
        "): processes are held by process groups only");
    return;
  }
  if (tree_->stale_processes() > 0) {
    say("killed " + std::to_string(tree_->stale_processes()) +
        " process(es) an earlier launcher of this job on this node left in " + tree_->dir());
  }
}

Containment::~Containment() {
  // The watchdog first: once the tree is gone it has nothing to guard.
  watchdog_.reset();
  tree_.reset();
}

int Containment::open_rank(const std::string& instance, int rank) {
  if (!tree_) return -1;
  return open_cgroup_procs(tree_->rank_dir(instance, rank));
}

int Containment::open_leaf(const std::string& name) {
  if (!tree_) return -1;
  return open_cgroup_procs(tree_->leaf_dir(name));
}

void Containment::kill(const std::string& instance) {
  if (tree_) tree_->kill(instance);
}

void Containment::remove_leaf(const std::string& name) {
  if (tree_) tree_->remove(name);
}

std::string Containment::rank_cgroup(const std::string& instance, int rank) const {
  if (!tree_) return "";
  return tree_->dir() + "/" + instance + "/rank-" + std::to_string(rank);
}

std::optional<CgroupUsage> Containment::usage(const std::string& instance, int rank) const {
  if (!tree_) return std::nullopt;
  return cgroup_usage(rank_cgroup(instance, rank));
}

}  // namespace pai::launcher
