#include "launcher/node/node_agent.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <map>
#include <thread>

#include "launcher/checks/check_result_json.h"
#include "launcher/checks/sanity_checks.h"
#include "launcher/net/host_changes.h"
#include "launcher/logs/log_stream.h"
#include "launcher/net/message.h"
#include "launcher/node/node_link.h"
#include "launcher/node/remote_exec.h"
#include "libpai/hostfile.h"
#include "libpai/placement.h"
#include "libpai/write_all.h"

extern char** environ;

namespace pai::launcher {

namespace {

using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

EnvList launcher_env() {
  EnvList env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string_view entry(*e);
    const std::size_t eq = entry.find('=');
    if (eq != std::string_view::npos) env.emplace_back(entry.substr(0, eq), entry.substr(eq + 1));
  }
  return env;
}

// Sanity checks re-run on the coordinator's request, in a thread so heartbeats keep flowing.
// The supervisor then waits only for its own pids; the checks wait for theirs.
class BackgroundChecks {
 public:
  ~BackgroundChecks() {
    if (thread_.joinable()) thread_.join();
    for (int fd : pipe_) {
      if (fd >= 0) ::close(fd);
    }
  }

  bool running() const { return thread_.joinable(); }

  /// Runs the checks for `placement`; `done` is called from `loop` with the results.
  void start(EventLoop& loop, const Plan& plan, const Placement& placement,
             const checks::CheckOptions& options,
             std::function<void(std::vector<checks::CheckResult>)> done) {
    if (running()) return;
    if (pipe_[0] < 0 && ::pipe2(pipe_, O_CLOEXEC) != 0) {
      throw std::runtime_error("cannot create a pipe for the sanity checks");
    }
    done_ = std::move(done);
    loop.watch(pipe_[0], [this, &loop] {
      char byte;
      if (::read(pipe_[0], &byte, 1) != 1) return;
      loop.unwatch(pipe_[0]);
      thread_.join();
      done_(std::move(results_));
    });
    thread_ = std::thread([this, &plan, placement, options] {
      try {
        results_ = checks::run_sanity_checks(plan, placement, options);
      } catch (const std::exception& e) {
        results_ = {checks::make_result("checks", checks::CheckResult::Failed, e.what())};
      }
      const char byte = 1;
      [[maybe_unused]] ssize_t n = ::write(pipe_[1], &byte, 1);
    });
  }

 private:
  std::thread thread_;
  int pipe_[2] = {-1, -1};
  std::vector<checks::CheckResult> results_;
  std::function<void(std::vector<checks::CheckResult>)> done_;
};

class NodeAgent final : public SupervisorHooks {
 public:
  NodeAgent(Plan& plan, const NodeAgentOptions& options, EventLog& events)
      : plan_(plan),
        options_(options),
        events_(events),
        planned_hosts_(net::planned_hosts(plan)) {}

  int run() {
    const auto deadline = Clock::now() + options_.rendezvous_timeout;
    net::ClientOptions client;
    client.address = options_.coordinator_address;
    client.port = options_.coordinator_port;
    client.token = options_.token;
    client.job = plan_.name;
    client.claim = net::PeerClaim{"launcher", options_.node};
    client.bind_address = options_.bind_address;
    const std::string where =
        options_.coordinator_address + ":" + std::to_string(options_.coordinator_port);
    try {
      link_ = std::make_unique<NodeLink>(client, deadline, [&](const std::string& why) {
        say("waiting for the coordinator at " + where + " (" + why + ")");
      });
    } catch (const net::ConnectionError& e) {
      say(std::string("error: cannot join the coordinator: ") + e.what());
      events_.record("coordinator-unreachable", {{"coordinator", where}, {"error", std::string(e.what())}});
      return 1;
    }
    say("joined the coordinator at " + where);
    events_.record("joined", {{"coordinator", where}});
    link_->send(Json{{"type", "join"},
                     {"node", options_.node},
                     {"checks", Json::parse(checks::to_json(options_.checks))},
                     {"pid", static_cast<std::int64_t>(::getpid())}});

    supervisor_ = std::make_unique<Supervisor>(plan_, std::vector<const Placement*>{},
                                               options_.supervisor, events_, this);
    supervisor_->set_job_wide_hangs(true);
    exec_ = std::make_unique<RemoteExec>(
        supervisor_->loop(),
        [this](std::int64_t id, const char* stream, std::string_view data) {
          link_->send(Json{{"type", "exec-output"},
                           {"id", id},
                           {"stream", stream},
                           {"data", net::base64_encode(data)}});
        },
        [this](std::int64_t id, int code) {
          link_->send(Json{{"type", "exec-exit"}, {"id", id}, {"code", code}});
        });
    logs_ = std::make_unique<LogStream>([this](int rank, std::string_view data) {
      link_->send(Json{{"type", "log"},
                       {"rank", rank},
                       {"instance", global_instance_},
                       {"data", net::base64_encode(data)}});
    });
    link_->attach(
        supervisor_->loop(), options_.heartbeat_interval, 5,
        [this](const Json& message) { on_message(message); },
        [this](const std::string& why) { on_lost(why); });
    const int code = supervisor_->run();
    exec_->kill_all();
    return code;
  }

  // ---- SupervisorHooks ----

  std::vector<PolicyAction> decide(const PolicyEvent& event) override {
    if (const auto* s = std::get_if<StopRequested>(&event)) {
      const std::string why = "received " + signal_name(s->signal);
      events_.record("node-stopping", {{"reason", why}});
      finishing_ = true;
      supervisor_->finish(128 + s->signal, why);
      return {};
    }
    if (finishing_) return {};
    if (const auto* e = std::get_if<ProcessExited>(&event)) {
      link_->send(Json{{"type", "exited"},
                       {"instance", global_instance_},
                       {"localRank", e->local_rank},
                       {"status", {{"code", e->status.code}, {"signal", e->status.signal}}},
                       {"classification",
                        {{"retryable", e->classification.retryable},
                         {"reason", e->classification.reason},
                         {"matchedLine", e->classification.matched_line},
                         {"signature", e->classification.signature}}},
                       {"stopping", stopping_}});
    } else if (std::get_if<InstanceStopped>(&event) != nullptr) {
      stopping_ = false;
      link_->send(Json{{"type", "stopped"}, {"instance", global_instance_}});
    } else if (const auto* h = std::get_if<HangDetected>(&event)) {
      link_->send(Json{{"type", "hang"},
                       {"instance", global_instance_},
                       {"exiting", true},
                       {"seconds", static_cast<std::int64_t>(
                                       plan_.fault_tolerance.hang.exit_interval_seconds)},
                       {"reason", h->classification.reason}});
    }
    return {};
  }

  void failure_summary(int, int global_rank, const std::string& summary) override {
    if (finishing_) return;
    link_->send(Json{{"type", "failure"},
                     {"instance", global_instance_},
                     {"rank", global_rank},
                     {"summary", summary}});
  }

  std::optional<Clock::time_point> next_deadline() override { return link_->next_deadline(); }

  void on_deadline(Clock::time_point now) override {
    link_->on_deadline(now, [this] { return heartbeat(); });
  }

  bool on_child_exit(int pid, int wait_status) override {
    return exec_->on_child_exit(pid, wait_status);
  }

  void on_output(int instance, int local_rank) override {
    if (!logs_->subscribed()) return;
    const auto files = supervisor_->log_files(instance);
    if (local_rank < static_cast<int>(files.size())) {
      logs_->grew(plan_.placements.at(global_instance_).first_rank + local_rank,
                  files[local_rank]);
    }
  }

 private:
  void say(const std::string& text) {
    write_all(options_.supervisor.terminal_stderr, "pai-launch: " + text + "\n");
  }

  Json heartbeat() {
    Json instances = Json::array();
    if (local_instance_ >= 0) {
      const InstanceActivity a = supervisor_->activity(local_instance_);
      if (a.running) {
        instances.push_back({{"instance", global_instance_},
                             {"idleMs", a.idle_ms},
                             {"hangInterval", a.hang_interval},
                             {"step", a.step}});
      }
    }
    return Json{{"type", "heartbeat"}, {"instances", instances}};
  }

  void on_lost(const std::string& why) {
    if (finishing_) return;
    finishing_ = true;
    say("error: " + why + "; stopping this node's processes");
    events_.record("coordinator-lost", {{"reason", why}});
    exec_->kill_all();
    supervisor_->finish(1, why);
  }

  void on_message(const Json& message) {
    try {
      dispatch(net::MessageReader(message));
    } catch (const net::ProtocolError& e) {
      say(std::string("warning: a message from the coordinator was not understood: ") + e.what());
      events_.record("protocol-error", {{"error", std::string(e.what())}});
    }
  }

  void dispatch(const net::MessageReader& m) {
    const std::string& type = m.type();
    if (type == "heartbeat") return;
    if (type == "progress") return say("rendezvous: " + m.string("text"));
    if (type == "assign") return assign(m);
    if (type == "standby") {
      say("standby: " + options_.node + " is a spare and waits to be needed");
      events_.record("standby", {{"node", options_.node}});
      return;
    }
    if (type == "run-checks") return run_checks(m.integer("attempt", 0, 1 << 20));
    if (type == "start") {
      const int instance = local_of(m);
      stopping_ = false;
      return supervisor_->apply(StartInstance{instance, m.integer("attempt", 0, 1 << 20)});
    }
    if (type == "stop") {
      const int instance = local_of(m);
      stopping_ = true;
      return supervisor_->apply(StopInstance{instance, m.integer("signal", 1, 64),
                                             m.boolean("dumpStacks"), m.string("reason")});
    }
    if (type == "kill") return supervisor_->kill_instance(local_of(m));
    if (type == "finish") {
      const int code = m.integer("exitCode", 0, 255);
      const std::string reason = m.string("reason");
      if (!reason.empty()) {
        say((code == 0 ? "" : code == 2 ? "error: " : "job failed: ") + reason);
      }
      finishing_ = true;
      exec_->kill_all();
      supervisor_->finish(code, reason);
      return;
    }
    if (type == "exec") {
      EnvList env = launcher_env();
      return exec_->start(m.int64("id"), m.strings("argv"), env,
                          m.has("stdin") && m.boolean("stdin"));
    }
    if (type == "exec-stdin") {
      return exec_->write_stdin(m.int64("id"), m.bytes("data"), m.has("eof") && m.boolean("eof"));
    }
    if (type == "exec-kill") return exec_->kill(m.int64("id"));
    if (type == "subscribe-logs") return subscribe_logs(m);
    if (type == "unsubscribe-logs") return logs_->unsubscribe();
    m.fail("type", "unknown message type");
  }

  // The supervisor's number of the instance a message names (it must be ours).
  int local_of(const net::MessageReader& m) const {
    const int instance = m.integer("instance", 0, 1 << 30);
    if (instance != global_instance_ || local_instance_ < 0) {
      m.fail("instance", "instance " + std::to_string(instance) + " does not run on this node");
    }
    return local_instance_;
  }

  void assign(const net::MessageReader& m) {
    const int instance = m.integer("instance", 0, static_cast<int>(plan_.placements.size()) - 1);
    const std::vector<Host> hosts =
        net::apply_host_changes(planned_hosts_, m.array("hosts"));
    if (local_instance_ >= 0 && instance != global_instance_) {
      m.fail("instance", "this node already runs instance " + std::to_string(global_instance_));
    }
    try {
      place(plan_, hosts);
    } catch (const std::invalid_argument& e) {
      m.fail("hosts", e.what());
    }
    const Placement& p = plan_.placements[instance];
    if (local_instance_ < 0) {
      // A spare's instance gets its log folder now.
      std::error_code ec;
      const std::string logs =
          options_.supervisor.log_dir + "/" + p.role + "-" + std::to_string(p.index);
      std::filesystem::create_directories(logs, ec);
      if (ec) m.fail("instance", "cannot create the log folder " + logs + ": " + ec.message());
      global_instance_ = instance;
      local_instance_ = supervisor_->add_instance(p);
    }
    write_hostfile();
    const Role& role = *find_role(plan_, p.role);
    const int last = p.first_rank + role.nproc_per_node - 1;
    say("assigned " + p.role + "-" + std::to_string(p.index) + " (node rank " +
        std::to_string(p.node_rank) + ", ranks " + std::to_string(p.first_rank) +
        (last > p.first_rank ? "-" + std::to_string(last) : "") + "); master " +
        plan_.master.address + ":" + std::to_string(plan_.master.port));
    events_.record("assigned", {{"instance", p.role + "-" + std::to_string(p.index)},
                                {"nodeRank", static_cast<std::int64_t>(p.node_rank)},
                                {"firstRank", static_cast<std::int64_t>(p.first_rank)},
                                {"master", plan_.master.address + ":" +
                                               std::to_string(plan_.master.port)}});
  }

  // MPI jobs: the hostfile of the final assignment, for the launcher role's mpirun.
  void write_hostfile() {
    if (plan_.framework != Framework::Mpi || options_.run_dir.empty()) return;
    std::vector<std::string> exclude;
    if (plan_.roles.size() > 1) exclude.push_back(plan_.master_role);
    const std::string path = options_.run_dir + "/hostfile";
    const std::string text = render_hostfile(plan_, HostfileStyle::OpenMpi, exclude);
    // Launchers of several nodes may share this machine and folder: each writes its own
    // temporary file, and the renames replace the (identical) hostfile atomically.
    const std::string temporary = path + "." + std::to_string(::getpid()) + ".tmp";
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    std::error_code ec;
    if (fd < 0 || !write_all(fd, text)) {
      say("warning: cannot write the hostfile " + path);
      if (fd >= 0) ::close(fd);
      std::filesystem::remove(temporary, ec);
      return;
    }
    ::close(fd);
    std::filesystem::rename(temporary, path, ec);
    if (ec) {
      say("warning: cannot write the hostfile " + path + ": " + ec.message());
      std::filesystem::remove(temporary, ec);
    }
  }

  void run_checks(int attempt) {
    if (!plan_.sanity_check.enabled) {
      link_->send(Json{{"type", "checks"}, {"checks", Json::array()}});
      return;
    }
    say("running the sanity checks again (attempt " + std::to_string(attempt) + ")");
    const Placement& p = plan_.placements.at(std::max(global_instance_, 0));
    supervisor_->set_reap_known_only(true);
    checks::CheckOptions check_options;
    check_options.coordinator_served_here = options_.serves_coordinator;
    checks_.start(supervisor_->loop(), plan_, p, check_options,
                  [this](std::vector<checks::CheckResult> results) {
      supervisor_->set_reap_known_only(false);
      for (const auto& r : results) {
        events_.record("check", {{"name", r.name},
                                 {"status", std::string(checks::to_string(r.status))},
                                 {"summary", r.summary}});
      }
      link_->send(
          Json{{"type", "checks"}, {"checks", Json::parse(checks::to_json(results))}});
    });
  }

  void subscribe_logs(const net::MessageReader& m) {
    logs_->subscribe(m.integer("rank", -1, 1 << 30), m.int64("tail"));
    if (local_instance_ >= 0) {
      const auto files = supervisor_->log_files(local_instance_);
      const int first = plan_.placements.at(global_instance_).first_rank;
      for (int r = 0; r < static_cast<int>(files.size()); ++r) logs_->grew(first + r, files[r]);
    }
    link_->send(Json{{"type", "log-end"}});
  }

  Plan& plan_;
  const NodeAgentOptions& options_;
  EventLog& events_;
  const std::vector<Host> planned_hosts_;  // what `assign` changes are relative to
  // Destroyed in reverse: everything watching the supervisor's loop goes before it.
  std::unique_ptr<Supervisor> supervisor_;
  std::unique_ptr<NodeLink> link_;
  std::unique_ptr<RemoteExec> exec_;
  std::unique_ptr<LogStream> logs_;
  BackgroundChecks checks_;
  int global_instance_ = -1;
  int local_instance_ = -1;
  bool stopping_ = false;   // a stop from the coordinator is in progress
  bool finishing_ = false;  // the job is over for this node: nothing more is reported
};

}  // namespace

int run_node_agent(Plan& plan, const NodeAgentOptions& options, EventLog& events) {
  NodeAgent agent(plan, options, events);
  return agent.run();
}

}  // namespace pai::launcher
