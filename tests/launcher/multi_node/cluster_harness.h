// A multi-node job on one machine: real pai-launch processes, one per node, each a loopback
// address of its own (Linux routes all of 127.0.0.0/8 to lo). Each test takes its own
// 127.<subnet>.0.0/24, so tests running side by side never share an address or a port.
#pragma once

#include <dirent.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "launcher/launcher_harness.h"

namespace pai::testing {

/// A job of `nodes` instances of role "worker" (plus `spares`) running `script` with /bin/sh in
/// `nproc` processes each, on hosts node-1.. at 127.<subnet>.0.1... Fast settings: backoff 0,
/// grace 1 s, hang detection and sanity checks off, sync restarts up to 2.
inline Plan cluster_plan(const std::string& name, int subnet, int nodes, int spares,
                         const std::string& script, int nproc = 1) {
  Plan plan = local_plan(name, script, nproc);
  plan.roles[0].instances = nodes;
  plan.hosts.clear();
  for (int i = 1; i <= nodes + spares; ++i) {
    Host host{"node-" + std::to_string(i),
              "127." + std::to_string(subnet) + ".0." + std::to_string(i), 0};
    (i <= nodes ? plan.hosts : plan.spares).push_back(host);
  }
  plan.fault_tolerance.max_restarts = 2;
  place(plan, plan.hosts);
  return plan;
}

/// Whether Debian's python3-torch can run a gloo job here.
inline bool have_torch() {
  return std::system("/usr/bin/python3 -c 'import torch.distributed' >/dev/null 2>&1") == 0;
}

/// A 2-node x 2-rank gloo DDP job: tests/launcher/multi_node/<script> with SCENARIO=<scenario>
/// and the SDK on its path, on 127.<subnet>.0.1-2, one restart allowed.
inline Plan torch_job_plan(const std::string& name, int subnet, const std::string& script,
                           const std::string& scenario) {
  Plan plan = cluster_plan(name, subnet, 2, 0,
                           "SCENARIO=" + scenario + " PYTHONPATH=" PAI_SOURCE_DIR
                           "/sdk/python GLOO_SOCKET_IFNAME=lo OMP_NUM_THREADS=1 exec "
                           "/usr/bin/python3 " PAI_SOURCE_DIR "/tests/launcher/multi_node/" +
                               script,
                           2);
  plan.fault_tolerance.max_restarts = 1;
  // torch's TCPStore listens on every address: jobs side by side need ports of their own
  // (the rendezvous assigns MASTER_PORT from the range).
  plan.port_range_min = 20000 + 10 * subnet;
  plan.port_range_max = plan.port_range_min + 9;
  return plan;
}

/// The launchers of one job; each node's output is in its own folder.
class Cluster {
 public:
  /// The job token of every cluster.
  static constexpr const char* kToken = "cluster-test-token-0123456789abcdef";

  /// Writes plan.json, sealed with kToken, and job.token into a fresh folder.
  explicit Cluster(const Plan& plan) : plan_(plan) {
    plan_path_ = write_sealed_plan(dir_, plan_, kToken);
    token_path_ = dir_ / "job.token";
  }

  /// Writes `plan` as another plan.json of this job (same token), in a folder of its own, for
  /// start()'s `plan_path`; returns its path.
  std::string write_other_plan(const Plan& plan) {
    other_plans_.push_back(std::make_unique<TempDir>());
    return write_sealed_plan(*other_plans_.back(), plan, kToken);
  }

  /// Starts the launcher of `node` with `extra` arguments and `env` set for it alone, on the
  /// cluster's plan.json or on `plan_path`.
  Launcher& start(const std::string& node, std::vector<std::string> extra = {},
                  const std::map<std::string, std::string>& env = {},
                  const std::string& plan_path = "") {
    auto& slot = dirs_[node];
    if (!slot) slot = std::make_unique<TempDir>();
    const std::string plan_file = plan_path.empty() ? plan_path_ : plan_path;
    std::vector<std::string> args = {"run",          "--plan",         plan_file,
                                     "--node",       node,             "--token-file",
                                     token_path_,    "--log-dir",      dir_ / "logs",
                                     "--heartbeat-interval-ms", "200", "--rendezvous-timeout",
                                     "20s"};
    args.insert(args.end(), extra.begin(), extra.end());
    for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
    auto launcher = std::make_unique<Launcher>(*slot, args, terminal_);
    for (const auto& [k, v] : env) ::unsetenv(k.c_str());
    auto& placed = launchers_[node];
    placed = std::move(launcher);
    return *placed;
  }

  /// Starts every host's launcher and every spare's.
  void start_all() {
    for (const Host& h : plan_.hosts) start(h.name);
    for (const Host& h : plan_.spares) start(h.name);
  }

  Launcher& launcher(const std::string& node) { return *launchers_.at(node); }

  /// Launchers started from now on write their stdout and stderr to `fd` (-1: to files).
  void set_terminal(int fd) { terminal_ = fd; }

  /// Waits for every launcher; node name → exit code.
  std::map<std::string, int> wait_all(double timeout_s = 40) {
    std::map<std::string, int> codes;
    for (auto& [node, launcher] : launchers_) codes[node] = launcher->wait(timeout_s);
    return codes;
  }

  /// All launchers' stderr, for failure messages.
  std::string transcript() const {
    std::string out;
    for (const auto& [node, launcher] : launchers_) {
      out += "===== " + node + " =====\n" + launcher->err() + launcher->out();
    }
    return out;
  }

  const TempDir& dir() const { return dir_; }
  const Plan& plan() const { return plan_; }

 private:
  Plan plan_;
  TempDir dir_;
  std::string plan_path_;
  std::string token_path_;
  std::vector<std::unique_ptr<TempDir>> other_plans_;
  std::map<std::string, std::unique_ptr<TempDir>> dirs_;
  std::map<std::string, std::unique_ptr<Launcher>> launchers_;
  int terminal_ = -1;
};

/// The names of the files in `dir` (what the ranks wrote: one file per rank and attempt).
inline std::set<std::string> files_in(const std::string& dir) {
  std::set<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] != '.') names.insert(e->d_name);
    }
    closedir(d);
  }
  return names;
}

/// Every launcher of `codes` exited `expected` (the transcript says why not).
inline void expect_all_exit(const std::map<std::string, int>& codes, int expected,
                            Cluster& cluster) {
  for (const auto& [node, code] : codes) {
    INFO(cluster.transcript());
    INFO("node " << node);
    CHECK(code == expected);
  }
}

}  // namespace pai::testing
