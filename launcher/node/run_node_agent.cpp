#include "launcher/node/run_node_agent.h"

#include <string>
#include <string_view>
#include <vector>

#include "launcher/logs/log_stream.h"
#include "launcher/net/client.h"
#include "launcher/net/heartbeat_rhythm.h"
#include "launcher/node/background_checks.h"
#include "launcher/node/background_fabric.h"
#include "launcher/node/node_link.h"
#include "launcher/node/nvml_gpu_sampler.h"
#include "launcher/node/remote_exec.h"
#include "launcher/node/sysfs_nic_telemetry.h"
#include "launcher/node/system_node_faults.h"
#include "launcher/os/signals.h"
#include "launcher/supervisor/supervisor.h"

namespace pai::launcher {

namespace {

// The supervisor needs its hooks when it is built, and the agent needs the parts that ride on
// the supervisor's loop: the hooks reach the agent through this once it exists.
class HooksRelay final : public SupervisorHooks {
 public:
  SupervisorHooks* agent = nullptr;

  std::vector<PolicyAction> decide(const PolicyEvent& event) override {
    return agent->decide(event);
  }
  void failure_summary(int instance, int global_rank, const std::string& summary) override {
    agent->failure_summary(instance, global_rank, summary);
  }
  std::optional<Clock::time_point> next_deadline() override { return agent->next_deadline(); }
  void on_deadline(Clock::time_point now) override { agent->on_deadline(now); }
  bool on_child_exit(int pid, int wait_status) override {
    return agent->on_child_exit(pid, wait_status);
  }
  void on_output(int instance, int local_rank) override { agent->on_output(instance, local_rank); }
  void forensics(int instance, int attempt, const Forensics::Report& report) override {
    agent->forensics(instance, attempt, report);
  }
  void checkpointed(int instance, std::int64_t step, std::int64_t request) override {
    agent->checkpointed(instance, step, request);
  }
  void gave_up(int exit_code, const std::string& reason) override {
    agent->gave_up(exit_code, reason);
  }
};

// The supervisor as the agent's InstanceRunner.
class SupervisorRunner final : public InstanceRunner {
 public:
  explicit SupervisorRunner(Supervisor& supervisor) : supervisor_(supervisor) {}
  int run() override { return supervisor_.run(); }
  int add_instance(const Placement& placement) override {
    return supervisor_.add_instance(placement);
  }
  void prewarm(const std::string& folder) override { supervisor_.prewarm(folder); }
  void apply(const PolicyAction& action) override { supervisor_.apply(action); }
  void kill_instance(int instance) override { supervisor_.kill_instance(instance); }
  std::string inject(int instance, int local_rank, DrillFault fault, int seconds) override {
    return supervisor_.inject(instance, local_rank, fault, seconds);
  }
  void advise_checkpoints(std::int64_t interval_seconds, std::int64_t request,
                          bool report) override {
    supervisor_.advise_checkpoints(interval_seconds, request, report);
  }
  void finish(int exit_code, const std::string& reason) override {
    supervisor_.finish(exit_code, reason);
  }
  std::vector<std::string> log_files(int instance) const override {
    return supervisor_.log_files(instance);
  }
  InstanceActivity activity(int instance) const override { return supervisor_.activity(instance); }

 private:
  Supervisor& supervisor_;
};

// The log stream as the agent's LogSubscription.
class LogStreamSubscription final : public LogSubscription {
 public:
  explicit LogStreamSubscription(LogStream::Send send) : stream_(std::move(send)) {}
  void subscribe(int rank, std::int64_t tail, int lines) override {
    stream_.subscribe(rank, tail, lines);
  }
  void unsubscribe() override { stream_.unsubscribe(); }
  bool subscribed() const override { return stream_.subscribed(); }
  void grew(int rank, const std::string& path) override { stream_.grew(rank, path); }

 private:
  LogStream stream_;
};

net::ClientOptions client_options(const Plan& plan, const NodeAgentOptions& options) {
  net::ClientOptions client;
  client.address = options.coordinator_address;
  client.port = options.coordinator_port;
  client.token = options.token;
  client.job = plan.name;
  client.claim = net::PeerClaim{"launcher", options.node};
  client.bind_address = options.bind_address;
  client.stop_requested = pending_stop_signal;
  client.unacknowledged_timeout = options.heartbeat_interval * net::kHeartbeatMisses;
  return client;
}

// The real parts and their agent. Members are destroyed in reverse: everything watching the
// supervisor's loop goes before it.
struct RealNode {
  RealNode(Plan& plan, const NodeAgentOptions& options, EventLog& events)
      : supervisor(plan, {}, options.supervisor, events, &hooks),
        runner(supervisor),
        link(client_options(plan, options), supervisor.loop(), options.give_up),
        commands(
            supervisor.loop(),
            [this](std::int64_t id, net::Stream stream, std::string_view data) {
              agent.on_command_output(id, stream, data);
            },
            [this](std::int64_t id, int code) { agent.on_command_exit(id, code); }),
        logs([this](int rank, std::string_view data) { agent.on_log_output(rank, data); }),
        checks(plan, options.node, supervisor),
        fabric(plan, supervisor.loop(), {},
               [this](bool on) { supervisor.set_reap_known_only(on); }),
        nics(plan),
        faults(options.coordinator_address, options.coordinator_port, plan.output),
        agent(plan, options, events,
              NodeAgentParts{link, runner, commands, logs, checks, clock, gpus, fabric, nics,
                             faults}) {
    hooks.agent = &agent;
    // The coordinator decides job-wide hangs from every node's heartbeats.
    supervisor.set_job_wide_hangs(true);
  }

  HooksRelay hooks;
  Supervisor supervisor;
  SupervisorRunner runner;
  NodeLink link;
  RemoteExec commands;
  LogStreamSubscription logs;
  BackgroundChecks checks;
  BackgroundFabric fabric;
  SteadyClock clock;
  NvmlGpuSampler gpus;
  SysfsNicTelemetry nics;
  SystemNodeFaults faults;
  NodeAgent agent;
};

}  // namespace

int run_node_agent(Plan& plan, const NodeAgentOptions& options, EventLog& events,
                   std::optional<std::pair<int, int>>* ran) {
  RealNode node(plan, options, events);
  const int code = node.agent.run();
  if (ran != nullptr && node.agent.ran()) *ran = node.agent.ran();
  return code;
}

}  // namespace pai::launcher
