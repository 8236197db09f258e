// Fakes of the parts a NodeAgent drives (launcher/node/*.h interfaces): each records what the
// agent asked of it, in order, as exact text or messages, and does nothing else.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "launcher/net/client.h"
#include "launcher/net/protocol.h"
#include "launcher/node/command_runner.h"
#include "launcher/node/coordinator_link.h"
#include "launcher/node/fabric_runner.h"
#include "launcher/node/gpu_sampler.h"
#include "launcher/node/instance_runner.h"
#include "launcher/node/log_subscription.h"
#include "launcher/node/monotonic_clock.h"
#include "launcher/node/nic_telemetry.h"
#include "launcher/node/node_faults.h"
#include "launcher/node/sanity_check_runner.h"

namespace pai::launcher::testing {

using Json = nlohmann::json;

/// The coordinator's end of the link: what the agent sent, and what it would deliver.
class FakeCoordinatorLink final : public CoordinatorLink {
 public:
  /// When set, connect() throws net::ConnectionError with this text.
  std::optional<std::string> refusal;
  /// When nonzero, connect() throws net::Interrupted by this signal.
  int interrupted_by = 0;
  /// When set, connect() first tells `waiting` this (a first attempt failed).
  std::optional<std::string> retried_because;
  /// The deadline connect() was given.
  std::optional<TimePoint> connect_deadline;
  /// What attach() was given.
  std::chrono::milliseconds interval{0};
  int misses = 0;
  OnMessage on_message;
  OnLost on_lost;
  /// What next_deadline() answers.
  std::optional<TimePoint> deadline;
  /// The times on_deadline() was called with; each call sends the heartbeat.
  std::vector<TimePoint> ticks;

  void connect(TimePoint until, const OnWaiting& waiting) override {
    connect_deadline = until;
    if (retried_because) waiting(*retried_because);
    if (refusal) throw net::ConnectionError(*refusal);
    if (interrupted_by != 0) throw net::Interrupted("10.0.0.1:20000", interrupted_by);
  }
  void attach(std::chrono::milliseconds every, int silent_intervals, OnMessage message,
              OnLost lost) override {
    interval = every;
    misses = silent_intervals;
    on_message = std::move(message);
    on_lost = std::move(lost);
  }
  void send(const net::NodeToCoordinator& message) override {
    sent_.push_back(net::to_json(message));
  }
  std::optional<TimePoint> next_deadline() const override { return deadline; }
  void on_deadline(TimePoint now, const std::function<net::NodeHeartbeat()>& heartbeat) override {
    ticks.push_back(now);
    send(heartbeat());
  }

  /// The messages sent since the last take(), as their JSON bodies.
  std::vector<Json> take() { return std::exchange(sent_, {}); }

 private:
  std::vector<Json> sent_;
};

/// The supervisor: every call as one line of `calls`.
class FakeInstanceRunner final : public InstanceRunner {
 public:
  /// "add_instance worker-1 on node-1", "start 0 attempt 2", "stop 0 signal 15 dumpStacks
  /// reason …" (dumpStacks only when asked), "kill_instance 0", "advise_checkpoints 600 1", "finish
  /// 1 reason …".
  std::vector<std::string> calls;
  /// What inject() answers ("" done); it records "inject 0 rank 1 rank-hang 30".
  std::string inject_refusal;
  /// What log_files() answers, per instance.
  std::map<int, std::vector<std::string>> log_files_of;
  /// What activity() answers.
  InstanceActivity current_activity;
  /// Called by run(), as the loop would deliver events; run() then returns finish()'s code.
  std::function<void()> while_running;

  int run() override {
    calls.push_back("run");
    if (while_running) while_running();
    return exit_code_;
  }
  int add_instance(const Placement& placement) override {
    calls.push_back("add_instance " + placement.role + "-" + std::to_string(placement.index) +
                    " on " + placement.host.name);
    return instances_++;
  }
  void apply(const PolicyAction& action) override {
    if (const auto* start = std::get_if<StartInstance>(&action)) {
      calls.push_back("start " + std::to_string(start->instance) + " attempt " +
                      std::to_string(start->restart_count));
    } else if (const auto* stop = std::get_if<StopInstance>(&action)) {
      calls.push_back("stop " + std::to_string(stop->instance) + " signal " +
                      std::to_string(stop->signal) + (stop->dump_stacks ? " dumpStacks" : "") +
                      " reason " + stop->reason);
    } else {
      calls.push_back("apply: an action the coordinator never sends");
    }
  }
  void prewarm(const std::string& folder) override { calls.push_back("prewarm " + folder); }
  void kill_instance(int instance) override {
    calls.push_back("kill_instance " + std::to_string(instance));
  }
  std::string inject(int instance, int local_rank, DrillFault fault, int seconds) override {
    calls.push_back("inject " + std::to_string(instance) + " rank " + std::to_string(local_rank) +
                    " " + to_string(fault) + " " + std::to_string(seconds));
    return inject_refusal;
  }
  void advise_checkpoints(std::int64_t interval_seconds, std::int64_t request,
                          bool report) override {
    calls.push_back("advise_checkpoints " + std::to_string(interval_seconds) + " " +
                    std::to_string(request) + (report ? " report" : ""));
  }
  void finish(int exit_code, const std::string& reason) override {
    calls.push_back("finish " + std::to_string(exit_code) + " reason " + reason);
    exit_code_ = exit_code;
  }
  std::vector<std::string> log_files(int instance) const override {
    auto it = log_files_of.find(instance);
    return it == log_files_of.end() ? std::vector<std::string>{} : it->second;
  }
  InstanceActivity activity(int) const override { return current_activity; }

  /// The calls since the last take().
  std::vector<std::string> take() { return std::exchange(calls, {}); }

 private:
  int instances_ = 0;
  int exit_code_ = -1;
};

/// Remote commands: every call as one line of `calls`.
class FakeCommandRunner final : public CommandRunner {
 public:
  /// "start 7 hostname -s stdin", "write_stdin 7 'hi' eof", "kill 7", "kill_all",
  /// "on_child_exit 123".
  std::vector<std::string> calls;
  /// The environment the last start() got.
  EnvList last_env;
  /// The pid on_child_exit() claims as a command's.
  int own_pid = -1;

  void start(std::int64_t id, const std::vector<std::string>& argv, const EnvList& env,
             bool with_stdin) override {
    std::string line = "start " + std::to_string(id);
    for (const std::string& arg : argv) line += " " + arg;
    calls.push_back(line + (with_stdin ? " stdin" : ""));
    last_env = env;
  }
  void write_stdin(std::int64_t id, std::string_view data, bool eof) override {
    calls.push_back("write_stdin " + std::to_string(id) + " '" + std::string(data) + "'" +
                    (eof ? " eof" : ""));
  }
  void kill(std::int64_t id) override { calls.push_back("kill " + std::to_string(id)); }
  bool on_child_exit(int pid, int) override {
    calls.push_back("on_child_exit " + std::to_string(pid));
    return pid == own_pid;
  }
  void kill_all() override { calls.push_back("kill_all"); }

  /// The calls since the last take().
  std::vector<std::string> take() { return std::exchange(calls, {}); }
};

/// The log stream: every call as one line of `calls`.
class FakeLogSubscription final : public LogSubscription {
 public:
  /// "subscribe -1 tail 100", "unsubscribe", "grew 2 /path/rank-2.attempt-0.log".
  std::vector<std::string> calls;

  void subscribe(int rank, std::int64_t tail, int lines) override {
    calls.push_back("subscribe " + std::to_string(rank) + " tail " + std::to_string(tail) +
                    (lines >= 0 ? " lines " + std::to_string(lines) : ""));
    subscribed_ = true;
  }
  void unsubscribe() override {
    calls.push_back("unsubscribe");
    subscribed_ = false;
  }
  bool subscribed() const override { return subscribed_; }
  void grew(int rank, const std::string& path) override {
    calls.push_back("grew " + std::to_string(rank) + " " + path);
  }

  /// The calls since the last take().
  std::vector<std::string> take() { return std::exchange(calls, {}); }

 private:
  bool subscribed_ = false;
};

/// Background sanity checks that end when the test says so.
class FakeSanityCheckRunner final : public SanityCheckRunner {
 public:
  /// "start worker-1 on node-1" (+ " coordinator served here").
  std::vector<std::string> calls;

  void start(const Placement& placement, const checks::CheckOptions& options, Done done) override {
    calls.push_back("start " + placement.role + "-" + std::to_string(placement.index) + " on " +
                    placement.host.name +
                    (options.coordinator_served_here ? " coordinator served here" : ""));
    done_ = std::move(done);
  }

  /// Ends the checks started last with `results`.
  void complete(std::vector<checks::CheckResult> results) {
    Done done = std::exchange(done_, nullptr);
    done(std::move(results));
  }

 private:
  Done done_;
};

/// A node's GPUs as the test sets them.
class FakeGpuSampler final : public GpuSampler {
 public:
  /// What sample() returns; nullopt: no NVML, said with `why`.
  std::optional<std::vector<net::GpuSample>> gpus = std::vector<net::GpuSample>{};
  std::string why = "no NVML (fake)";
  /// Times sample() was called.
  int samples = 0;

  std::optional<std::vector<net::GpuSample>> sample(std::string* reason) override {
    ++samples;
    if (!gpus) *reason = why;
    return gpus;
  }
};

/// A node's RDMA ports as the test sets them.
class FakeNicTelemetry final : public NicTelemetry {
 public:
  /// What window() returns.
  std::vector<net::NicPort> ports;
  /// Times window() was called.
  int windows = 0;

  std::vector<net::NicPort> window() override {
    ++windows;
    return ports;
  }
};

/// The node's own faults as the test sets them: what was put on and taken off, in order.
class FakeNodeFaults final : public NodeFaults {
 public:
  /// "put slow-link 15", "remove".
  std::vector<std::string> calls;
  /// What put() answers ("" = in place), and remove().
  std::string refusal;
  std::string remove_failure;
  std::string on;  ///< the place while a fault is on

  std::string put(DrillFault fault, int seconds) override {
    calls.push_back(std::string("put ") + to_string(fault) + " " + std::to_string(seconds));
    if (refusal.empty()) on = fault == DrillFault::DiskFull ? "/out/.pai-drill-disk-full" : "eth0";
    return refusal;
  }
  std::string remove() override {
    calls.push_back("remove");
    on.clear();
    return remove_failure;
  }
  std::string place() const override { return on; }
};

/// Fabric measurements that end when the test says so.
class FakeFabricRunner final : public FabricRunner {
 public:
  /// "listen 1/0 key K", "connect 2/1 key K to 10.0.0.3:29999".
  std::vector<std::string> calls;
  Send send;  ///< the latest request's

  void listen(const net::FabricListen& r, Send s) override {
    calls.push_back("listen " + std::to_string(r.round) + "/" + std::to_string(r.pair) + " key " +
                    r.key);
    send = std::move(s);
  }
  void connect(const net::FabricConnect& r, Send s) override {
    calls.push_back("connect " + std::to_string(r.round) + "/" + std::to_string(r.pair) + " key " +
                    r.key + " to " + r.address + ":" + std::to_string(r.port));
    send = std::move(s);
  }
};

/// A clock that stands still.
class FakeClock final : public MonotonicClock {
 public:
  TimePoint time = TimePoint{} + std::chrono::hours(1);
  TimePoint now() const override { return time; }
};

}  // namespace pai::launcher::testing
