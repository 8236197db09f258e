// A real etcd cluster for tests: Debian's etcd-server, three members on 127.<subnet>.0.1-3
// (client port 2379, peer port 2380), each a child process with its data in a temporary
// folder; killed with SIGKILL when the cluster goes.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "launcher/ha/etcd_client.h"
#include "support/temp_dir.h"

namespace pai::testing {

inline constexpr const char* kEtcd = "/usr/bin/etcd";

class EtcdCluster {
 public:
  explicit EtcdCluster(int subnet, int members = 3) : subnet_(subnet), pids_(members, -1) {
    if (::access(kEtcd, X_OK) != 0) {
      throw std::runtime_error(std::string(kEtcd) +
                               " is missing: install etcd-server (scripts/deps.sh)");
    }
    for (int i = 0; i < members; ++i) start(i);
    wait_healthy();
  }
  ~EtcdCluster() {
    for (int i = 0; i < static_cast<int>(pids_.size()); ++i) kill(i);
  }
  EtcdCluster(const EtcdCluster&) = delete;
  EtcdCluster& operator=(const EtcdCluster&) = delete;

  std::string address(int i) const {
    return "127." + std::to_string(subnet_) + ".0." + std::to_string(i + 1);
  }
  std::string endpoint(int i) const { return "http://" + address(i) + ":2379"; }
  std::vector<std::string> endpoints() const {
    std::vector<std::string> out;
    for (int i = 0; i < static_cast<int>(pids_.size()); ++i) out.push_back(endpoint(i));
    return out;
  }

  /// Starts member `i` (again: it rejoins with its data).
  void start(int i) {
    std::string initial;
    for (int m = 0; m < static_cast<int>(pids_.size()); ++m) {
      initial += (m == 0 ? "" : ",") + name(m) + "=http://" + address(m) + ":2380";
    }
    const std::string data = dir_ / name(i);
    const std::string log = dir_ / (name(i) + ".log");
    std::vector<std::string> args = {kEtcd,
                                     "--name=" + name(i),
                                     "--data-dir=" + data,
                                     "--listen-client-urls=" + endpoint(i),
                                     "--advertise-client-urls=" + endpoint(i),
                                     "--listen-peer-urls=http://" + address(i) + ":2380",
                                     "--initial-advertise-peer-urls=http://" + address(i) + ":2380",
                                     "--initial-cluster=" + initial,
                                     "--initial-cluster-token=pai-test-" + std::to_string(subnet_),
                                     "--initial-cluster-state=new",
                                     // Fast elections: the tests kill members.
                                     "--heartbeat-interval=50",
                                     "--election-timeout=500"};
    const pid_t pid = ::fork();
    if (pid == 0) {
      const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      ::dup2(out, 1);
      ::dup2(out, 2);
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(kEtcd, argv.data());
      ::_exit(127);
    }
    pids_[static_cast<std::size_t>(i)] = pid;
  }

  /// Kills member `i` with SIGKILL (a lost member).
  void kill(int i) {
    pid_t& pid = pids_[static_cast<std::size_t>(i)];
    if (pid <= 0) return;
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    pid = -1;
  }

  /// Until every running member answers (30 s at most: throws then, with the logs' ends).
  void wait_healthy() {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    for (int i = 0; i < static_cast<int>(pids_.size()); ++i) {
      if (pids_[static_cast<std::size_t>(i)] <= 0) continue;
      launcher::ha::EtcdClient one({.endpoints = {endpoint(i)},
                                    .request_timeout = std::chrono::milliseconds(500)});
      for (;;) {
        try {
          one.get("pai-test-health");
          break;
        } catch (const launcher::ha::EtcdError& e) {
          if (std::chrono::steady_clock::now() >= deadline) {
            throw std::runtime_error("etcd member " + name(i) + " never answered: " + e.what() +
                                     "\n" + slurp(dir_ / (name(i) + ".log")));
          }
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
      }
    }
  }

 private:
  static std::string name(int i) { return "m" + std::to_string(i + 1); }

  int subnet_;
  TempDir dir_;
  std::vector<pid_t> pids_;
};

}  // namespace pai::testing
