#include "launcher/node/node_agent.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "launcher/checks/check_result_json.h"
#include "launcher/checks/history_check.h"
#include "launcher/logs/output_writers.h"
#include "launcher/net/client.h"
#include "launcher/net/heartbeat_rhythm.h"
#include "launcher/net/host_changes.h"
#include "launcher/net/protocol.h"
#include "launcher/policy/failure_classifier.h"
#include "launcher/policy/gpu_idle.h"
#include "launcher/policy/tcp_slow_peers.h"
#include "libpai/exit_codes.h"
#include "libpai/hostfile.h"
#include "libpai/node_history.h"
#include "libpai/placement.h"
#include "libpai/write_all.h"

extern char** environ;

static_assert(pai::launcher::kMaxSlowPeers == pai::net::kMaxTcpSlowPeers,
              "a rank's slow peers must fit its heartbeat entry");

namespace pai::launcher {

namespace {

using Json = nlohmann::json;

EnvList launcher_env() {
  EnvList env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string_view entry(*e);
    const std::size_t eq = entry.find('=');
    if (eq != std::string_view::npos) env.emplace_back(entry.substr(0, eq), entry.substr(eq + 1));
  }
  return env;
}

// "9.41" from 9,410,000 kbit/s.
std::string format_gbps(std::int64_t kbps) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", static_cast<double>(kbps) / 1e6);
  return text;
}

}  // namespace

NodeAgent::NodeAgent(Plan& plan, const NodeAgentOptions& options, EventLog& events,
                     NodeAgentParts parts)
    : plan_(plan),
      options_(options),
      events_(events),
      parts_(parts),
      planned_hosts_(net::planned_hosts(plan)) {}

int NodeAgent::run() {
  if (!join()) return stopped_by_ != 0 ? 128 + stopped_by_ : 1;
  parts_.link.attach(
      options_.heartbeat_interval, net::coordinator_misses(plan_),
      [this](const Json& message) { on_message(message); },
      [this](const std::string& why) { on_lost(why); });
  const int code = parts_.instances.run();
  parts_.commands.kill_all();
  end_node_fault("the job ended for this node");
  return code;
}

bool NodeAgent::join() {
  const auto deadline = parts_.clock.now() + options_.rendezvous_timeout;
  const std::string where =
      options_.coordinator_address + ":" + std::to_string(options_.coordinator_port);
  try {
    parts_.link.connect(deadline, [&](const std::string& why) {
      say("waiting for the coordinator at " + where + " (" + why + ")");
    });
  } catch (const net::Interrupted& e) {
    stopped_by_ = e.signal();
    const std::string why = "received " + signal_name(e.signal());
    say(why + " while waiting for the coordinator at " + where + "; stopping");
    events_.record(journal::NodeStopping{.reason = why, .coordinator = where});
    return false;
  } catch (const net::ConnectionError& e) {
    say(std::string("error: cannot join the coordinator: ") + e.what());
    events_.record(journal::CoordinatorUnreachable{.coordinator = where, .error = e.what()});
    return false;
  }
  say("joined the coordinator at " + where);
  events_.record(journal::Joined{.coordinator = where});
  parts_.link.send(
      net::Join{.node = options_.node,
                .checks = checks::to_json(options_.checks),
                .pid = static_cast<std::int64_t>(::getpid()),
                .seal = plan_.seal,
                .ran_instance = options_.ran ? std::optional(options_.ran->first) : std::nullopt,
                .ran_attempt = options_.ran ? std::optional(options_.ran->second) : std::nullopt});
  return true;
}

void NodeAgent::gave_up(int, const std::string& reason) {
  if (finishing_) return;
  finishing_ = true;
  parts_.link.send(net::NodeFailed{.reason = reason.empty() ? "the launcher gave up" : reason});
}

void NodeAgent::on_command_output(std::int64_t id, net::Stream stream, std::string_view data) {
  parts_.link.send(net::ExecOutput{.id = id, .stream = stream, .data = std::string(data)});
}

void NodeAgent::on_command_exit(std::int64_t id, int code) {
  parts_.link.send(net::ExecExit{.id = id, .code = code});
}

void NodeAgent::on_log_output(int rank, std::string_view data) {
  parts_.link.send(net::Log{.rank = rank, .instance = global_instance_, .data = std::string(data)});
}

// ---- SupervisorHooks ----

std::vector<PolicyAction> NodeAgent::decide(const PolicyEvent& event) {
  if (const auto* s = std::get_if<StopRequested>(&event)) {
    // A user's stop (a signal to any launcher, Slurm's time limit) cancels the whole job: the
    // coordinator tells every node, and nobody counts it as a failure or a lost node.
    const std::string why = "received " + signal_name(s->signal);
    if (!finishing_) {
      parts_.link.send(net::Cancel{.signal = s->signal});
      events_.record(
          journal::JobCancelled{.job = plan_.name, .reason = why, .exit_code = 128 + s->signal});
      say("job '" + plan_.name + "' cancelled: " + why);
    }
    finishing_ = true;
    parts_.instances.finish(128 + s->signal, why);
    return {};
  }
  if (finishing_) return {};
  if (const auto* e = std::get_if<ProcessExited>(&event)) {
    parts_.link.send(net::Exited{
        .instance = global_instance_,
        .local_rank = e->local_rank,
        .status = {.code = e->status.code, .signal = e->status.signal},
        .classification = {.retryable = e->classification.retryable,
                           .reason = e->classification.reason,
                           .matched_line = e->classification.matched_line,
                           .signature = e->classification.signature},
        .stopping = stopping_});
  } else if (std::get_if<InstanceStopped>(&event) != nullptr) {
    stopping_ = false;
    parts_.link.send(net::Stopped{.instance = global_instance_});
  } else if (const auto* h = std::get_if<HangDetected>(&event)) {
    parts_.link.send(net::Hang{
        .instance = global_instance_,
        .exiting = true,
        .seconds = static_cast<std::int64_t>(plan_.fault_tolerance.hang.exit_interval_seconds),
        .reason = h->classification.reason});
  }
  return {};
}

void NodeAgent::failure_summary(int, int global_rank, const std::string& summary) {
  if (finishing_) return;
  parts_.link.send(
      net::Failure{.instance = global_instance_, .rank = global_rank, .summary = summary});
}

void NodeAgent::checkpointed(int, std::int64_t step, std::int64_t request) {
  if (finishing_) return;
  parts_.link.send(
      net::Checkpointed{.instance = global_instance_, .step = step, .request = request});
}

void NodeAgent::forensics(int, int attempt, const Forensics::Report& report) {
  if (finishing_) return;
  net::Forensics message{
      .instance = global_instance_, .attempt = attempt, .folder = report.folder, .ranks = {}};
  for (const RankStackVerdict& r : report.ranks) {
    message.ranks.push_back(
        net::RankStacks{.rank = r.rank,
                        .place = pai::to_string(r.verdict.place),
                        .frame = r.verdict.frame.substr(0, net::kMaxStackFrame)});
  }
  parts_.link.send(message);
}

std::optional<NodeAgent::Clock::time_point> NodeAgent::next_deadline() {
  auto next = parts_.link.next_deadline();
  if (node_fault_ && (!next || node_fault_->until < *next)) next = node_fault_->until;
  return next;
}

void NodeAgent::on_deadline(Clock::time_point now) {
  if (node_fault_ && node_fault_->until <= now) end_node_fault("its seconds passed");
  parts_.link.on_deadline(now, [this] { return heartbeat(); });
}

void NodeAgent::inject(const net::Inject& m) {
  const int instance = local_of(m, m.instance);
  std::string refused;
  if (!carried_by_node(m.fault)) {
    refused = parts_.instances.inject(instance, m.rank, m.fault, m.seconds);
  } else {
    end_node_fault("another fault replaces it");
    const int seconds = std::clamp(m.seconds, 1, kMaxFaultSeconds);
    refused = parts_.faults.put(m.fault, seconds);
    if (refused.empty()) {
      const Placement& p = plan_.placements.at(static_cast<std::size_t>(m.instance));
      const std::string name = p.role + "-" + std::to_string(p.index);
      events_.record(journal::FaultInjected{.fault = to_string(m.fault),
                                            .instance = name,
                                            .seconds = seconds,
                                            .place = parts_.faults.place()});
      say(std::string("drill: ") + to_string(m.fault) + " on " + parts_.faults.place() + " for " +
          std::to_string(seconds) + " s" +
          (on_link(m.fault) ? " (the coordinator's traffic spared)" : ""));
      node_fault_ = NodeFault{m.fault, name, parts_.clock.now() + std::chrono::seconds(seconds)};
    }
  }
  if (!refused.empty()) say(std::string("drill: ") + to_string(m.fault) + ": " + refused);
}

void NodeAgent::end_node_fault(const char* why) {
  if (!node_fault_) return;
  const std::string failed = parts_.faults.remove();
  if (!failed.empty()) say("warning: drill: the fault could not be taken off: " + failed);
  events_.record(journal::FaultReverted{
      .fault = to_string(node_fault_->fault),
      .instance = node_fault_->instance,
      .rank = -1,
      .why = failed.empty() ? why : why + std::string("; taking it off failed: ") + failed});
  node_fault_.reset();
}

bool NodeAgent::on_child_exit(int pid, int wait_status) {
  return parts_.commands.on_child_exit(pid, wait_status);
}

void NodeAgent::on_output(int instance, int local_rank) {
  if (!parts_.logs.subscribed()) return;
  // The stream reads the log file: what was just read from the rank must be in it first.
  // Only while someone follows the logs, and a stalled log file system costs one short wait.
  log_writer().flush_for(kLogSettle);
  const auto files = parts_.instances.log_files(instance);
  if (local_rank < static_cast<int>(files.size())) {
    parts_.logs.grew(plan_.placements.at(global_instance_).first_rank + local_rank,
                     files[local_rank]);
  }
}

// ---- private ----

void NodeAgent::say_failure(const std::string& reason) {
  // The coordinator prints the failure with its root-cause summary (the reason's further
  // lines): on this terminal when it runs in this launcher, which then adds nothing. Other
  // launchers often share that terminal (a local demo, pdsh, one Slurm output file), so they
  // print one line, not the summary again.
  if (options_.serves_coordinator || reason.empty()) return;
  const std::size_t nl = reason.find('\n');
  if (nl == std::string::npos) return say("job failed: " + reason);
  say("job failed: " + reason.substr(0, nl) + "; its root-cause summary is in the output of the " +
      "coordinator on " + plan_.coordinator.host);
}

void NodeAgent::say(const std::string& text) {
  terminal_say(options_.supervisor.terminal_stderr, "pai-launch: " + text + "\n");
}

namespace {

// The wire form of a rank's NCCL links (launcher/supervisor/peer_traffic.h).
std::vector<net::NcclPeer> nccl_peers_of(const RankTelemetrySummary& t) {
  std::vector<net::NcclPeer> out;
  for (const PeerLinkSummary& p : t.peers) {
    if (out.size() == net::kMaxNcclPeers) break;
    out.push_back(net::NcclPeer{.peer = p.peer,
                                .dir = p.direction == 1 ? "send" : "recv",
                                .bytes = p.bytes,
                                .busy_us = p.busy_us,
                                .stalled_ms = p.stalled_ms});
  }
  return out;
}

}  // namespace

net::NodeHeartbeat NodeAgent::heartbeat() {
  net::NodeHeartbeat beat;
  if (local_instance_ >= 0) {
    const InstanceActivity a = parts_.instances.activity(local_instance_);
    if (a.running) {
      net::HeartbeatInstance entry{.instance = global_instance_,
                                   .idle_ms = a.idle_ms,
                                   .hang_interval = a.hang_interval,
                                   .step = a.step,
                                   .ranks = {},
                                   .telemetry = {}};
      for (const RankActivity& r : a.ranks) {
        entry.ranks.push_back(net::RankUsage{.rank = r.rank,
                                             .pid = r.pid,
                                             .cpu_ms = r.cpu_ms,
                                             .memory_bytes = r.memory_bytes,
                                             .memory_peak_bytes = r.memory_peak_bytes});
      }
      for (const RankTelemetrySummary& t : a.telemetry) {
        entry.telemetry.push_back(net::RankTelemetry{.rank = t.rank,
                                                     .step = t.step,
                                                     .steps = t.steps,
                                                     .step_us = t.step_us,
                                                     .window_us = t.window_us,
                                                     .comm_us = t.comm_us,
                                                     .entered = t.entered,
                                                     .exited = t.exited,
                                                     .open_ms = t.open_ms,
                                                     .op = t.op,
                                                     .quiet_ms = t.quiet_ms,
                                                     .lost = t.lost,
                                                     .tcp_rtt_us = t.tcp_rtt_us,
                                                     .tcp_retrans = t.tcp_retrans,
                                                     .tcp_slow_peers = t.tcp_slow_peers,
                                                     .tcp_stalled_peers = t.tcp_stalled_peers,
                                                     .nccl_peers = nccl_peers_of(t),
                                                     .nccl_peer_links = t.peer_links});
      }
      beat.instances.push_back(std::move(entry));
      sample_gpus(beat);
      beat.nics = parts_.nics.window();
      return beat;
    }
  }
  gpus_sampled_.reset();  // the next run samples at once
  return beat;
}

void NodeAgent::sample_gpus(net::NodeHeartbeat& beat) {
  if (gpus_unavailable_) return;
  const auto now = parts_.clock.now();
  const auto interval =
      gpu_sample_interval(std::chrono::seconds(plan_.monitoring.gpu_idle.window_seconds));
  if (gpus_sampled_ && now - *gpus_sampled_ < interval) return;
  gpus_sampled_ = now;
  std::string why;
  auto gpus = parts_.gpus.sample(&why);
  if (!gpus) {
    gpus_unavailable_ = true;
    say("note: GPU utilization is not watched on this node: " + why);
    events_.record(journal::GpuSamplingOff{.node = options_.node, .reason = why});
    return;
  }
  beat.gpus = std::move(*gpus);
}

void NodeAgent::on_lost(const std::string& why) {
  if (finishing_) return;
  finishing_ = true;
  say("error: " + why + "; stopping this node's processes");
  events_.record(journal::CoordinatorLost{.reason = why});
  parts_.commands.kill_all();
  // The coordinator's own launcher (its process stalled, its node cut off) is not left
  // without it: the coordinator says how the job ended, as before.
  parts_.instances.finish(options_.serves_coordinator ? 1 : kExitCoordinatorLost, why);
}

void NodeAgent::on_message(const Json& message) {
  try {
    dispatch(net::parse_coordinator_to_node(message, static_cast<int>(plan_.placements.size())));
  } catch (const net::ProtocolError& e) {
    say(std::string("warning: a message from the coordinator was not understood: ") + e.what());
    events_.record(journal::ProtocolError{.error = e.what()});
  }
}

void NodeAgent::dispatch(const net::CoordinatorToNode& message) {
  std::visit(
      net::Overloaded{
          [](const net::Heartbeat&) {},
          [&](const net::Progress& m) { say("rendezvous: " + m.text); },
          [&](const net::Assign& m) { assign(m); },
          [&](const net::Standby&) {
            say("standby: " + options_.node + " is a spare and waits to be needed");
            events_.record(journal::Standby{.node = options_.node});
            // Its ranks, once it takes an instance, start warm as a restart's would.
            parts_.instances.prewarm("spare-" + options_.node);
          },
          [&](const net::RunChecks& m) { run_checks(m.attempt); },
          [&](const net::FabricListen& m) { fabric_listen(m); },
          [&](const net::FabricConnect& m) { fabric_connect(m); },
          [&](const net::Start& m) {
            const int instance = local_of(m, m.instance);
            stopping_ = false;
            ran_ = std::pair{m.instance, m.attempt};
            parts_.instances.apply(StartInstance{instance, m.attempt});
          },
          [&](const net::Stop& m) {
            const int instance = local_of(m, m.instance);
            stopping_ = true;
            parts_.instances.apply(StopInstance{instance, m.signal, m.dump_stacks, m.reason});
          },
          [&](const net::Kill& m) { parts_.instances.kill_instance(local_of(m, m.instance)); },
          [&](const net::Inject& m) { inject(m); },
          [&](const net::Finish& m) { finish(m); },
          [&](const net::Exec& m) {
            parts_.commands.start(m.id, m.argv, launcher_env(), m.takes_stdin);
          },
          [&](const net::ExecStdin& m) { parts_.commands.write_stdin(m.id, m.data, m.eof); },
          [&](const net::ExecKill& m) { parts_.commands.kill(m.id); },
          [&](const net::SubscribeLogs& m) { subscribe_logs(m); },
          [&](const net::UnsubscribeLogs&) { parts_.logs.unsubscribe(); },
          [&](const net::NicVerdictNotice& m) { record_nic_verdict(m); },
          [&](const net::CheckpointAdvice& m) {
            parts_.instances.advise_checkpoints(m.interval_seconds, m.request, m.report);
          },
      },
      message);
}

void NodeAgent::record_nic_verdict(const net::NicVerdictNotice& m) {
  const CheckHistory& history = plan_.sanity_check.history;
  std::string file;
  if (!history.dir.empty()) {
    HistoryRecord record;
    record.time = checks::history_time_now();
    record.node = options_.node;
    record.passed = false;
    record.failed = {"nic"};
    record.summary = "nic: " + m.port + " " + m.problem + ": " + m.evidence;
    try {
      append_history(history.dir, record);
      file = history_path(history.dir, options_.node);
    } catch (const HistoryError& e) {
      say(std::string("warning: the NIC verdict is not in the check history: ") + e.what());
    }
  }
  events_.record(journal::NicVerdict{
      .port = m.port, .problem = m.problem, .evidence = m.evidence, .history = file});
}

// The runner's number of the instance `message` names (it must be ours).
template <class Message>
int NodeAgent::local_of(const Message& message, int instance) const {
  if (instance != global_instance_ || local_instance_ < 0) {
    net::fail(message, "instance",
              "instance " + std::to_string(instance) + " does not run on this node");
  }
  return local_instance_;
}

void NodeAgent::finish(const net::Finish& m) {
  // This node cancelled the job itself: it already said and journaled so.
  if (m.cancelled && finishing_) return;
  if (m.cancelled) {
    events_.record(
        journal::JobCancelled{.job = plan_.name, .reason = m.reason, .exit_code = m.exit_code});
    say("job '" + plan_.name + "' " + m.reason);  // "cancelled by ..."
  } else if (m.exit_code != 0 && m.exit_code != 2) {
    say_failure(m.reason);
  } else if (!m.reason.empty()) {
    say((m.exit_code == 0 ? "" : "error: ") + m.reason);
  }
  finishing_ = true;
  parts_.commands.kill_all();
  parts_.instances.finish(m.exit_code, m.reason);
}

void NodeAgent::assign(const net::Assign& m) {
  const std::vector<Host> hosts = net::apply_host_changes(planned_hosts_, m.hosts);
  if (local_instance_ >= 0 && m.instance != global_instance_) {
    net::fail(m, "instance",
              "this node already runs instance " + std::to_string(global_instance_));
  }
  try {
    place(plan_, hosts);
  } catch (const std::invalid_argument& e) {
    net::fail(m, "hosts", e.what());
  }
  const Placement& p = plan_.placements[m.instance];
  if (local_instance_ < 0) {
    // A spare's instance gets its log folder now.
    std::error_code ec;
    const std::string logs =
        options_.supervisor.log_dir + "/" + p.role + "-" + std::to_string(p.index);
    std::filesystem::create_directories(logs, ec);
    if (ec) net::fail(m, "instance", "cannot create the log folder " + logs + ": " + ec.message());
    global_instance_ = m.instance;
    local_instance_ = parts_.instances.add_instance(p);
  }
  write_hostfile();
  const Role& role = *find_role(plan_, p.role);
  const int last = p.first_rank + role.nproc_per_node - 1;
  say("assigned " + p.role + "-" + std::to_string(p.index) + " (node rank " +
      std::to_string(p.node_rank) + ", ranks " + std::to_string(p.first_rank) +
      (last > p.first_rank ? "-" + std::to_string(last) : "") + "); master " +
      plan_.master.address + ":" + std::to_string(plan_.master.port));
  events_.record(
      journal::Assigned{.instance = p.role + "-" + std::to_string(p.index),
                        .node_rank = p.node_rank,
                        .first_rank = p.first_rank,
                        .master = plan_.master.address + ":" + std::to_string(plan_.master.port)});
}

// MPI jobs: the hostfile of the final assignment, for the launcher role's mpirun.
void NodeAgent::write_hostfile() {
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

void NodeAgent::run_checks(int attempt) {
  if (!plan_.sanity_check.enabled) {
    parts_.link.send(net::Checks{});
    return;
  }
  // N counts the runs of this round of checks (a restart begins one at 1), not the job's
  // attempts: "(attempt 1)" before a job's second attempt read as the wrong one.
  say(attempt <= 1 ? std::string("running the sanity checks again")
                   : "running the sanity checks again (try " + std::to_string(attempt) + " of " +
                         std::to_string(plan_.sanity_check.max_attempts) + ")");
  const Placement& p = plan_.placements.at(std::max(global_instance_, 0));
  checks::CheckOptions check_options = options_.check_options;
  check_options.coordinator_served_here = options_.serves_coordinator;
  parts_.checks.start(p, check_options, [this](std::vector<checks::CheckResult> results) {
    for (const auto& r : results) {
      events_.record(journal::Check{
          .name = r.name, .status = checks::to_string(r.status), .summary = r.summary});
    }
    parts_.link.send(net::Checks{.checks = checks::to_json(results)});
  });
}

void NodeAgent::fabric_listen(const net::FabricListen& m) {
  parts_.fabric.listen(m, [this](net::NodeToCoordinator out) { fabric_report(std::move(out)); });
}

void NodeAgent::fabric_connect(const net::FabricConnect& m) {
  say("fabric check round " + std::to_string(m.round) + ": measuring the link to " + m.address +
      ":" + std::to_string(m.port));
  parts_.fabric.connect(m, [this](net::NodeToCoordinator out) { fabric_report(std::move(out)); });
}

void NodeAgent::fabric_report(net::NodeToCoordinator message) {
  if (const auto* r = std::get_if<net::FabricResult>(&message)) {
    events_.record(journal::FabricResult{.round = r->round,
                                         .pair = r->pair,
                                         .error = r->error,
                                         .out_kbps = r->out_kbps,
                                         .in_kbps = r->in_kbps,
                                         .latency_ns = r->latency_ns});
    if (!r->error.empty()) {
      say("fabric check round " + std::to_string(r->round) + ": " + r->error);
    } else {
      say("fabric check round " + std::to_string(r->round) + ": " +
          format_gbps(std::min(r->out_kbps, r->in_kbps)) + " Gbit/s (out " +
          format_gbps(r->out_kbps) + ", in " + format_gbps(r->in_kbps) + ")");
    }
  }
  parts_.link.send(message);
}

void NodeAgent::subscribe_logs(const net::SubscribeLogs& m) {
  parts_.logs.subscribe(m.rank, m.tail, m.lines);
  if (local_instance_ >= 0) {
    const auto files = parts_.instances.log_files(local_instance_);
    const int first = plan_.placements.at(global_instance_).first_rank;
    for (int r = 0; r < static_cast<int>(files.size()); ++r) parts_.logs.grew(first + r, files[r]);
  }
  parts_.link.send(net::LogEnd{});
}

}  // namespace pai::launcher
