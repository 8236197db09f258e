#include "launcher/coordinator/metrics_text.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>

#include "launcher/coordinator/status_report.h"
#include "libpai/utf8.h"

namespace pai::launcher::coordinator {

namespace {

// Every state node_state() gives, so pai_nodes always has the same series.
constexpr std::array<const char*, 9> kNodeStates = {"no-connection", "checking",  "ready",
                                                    "standby",       "running",   "stopped",
                                                    "failed",        "succeeded", "replaced"};
constexpr std::array<const char*, 4> kJobStates = {"rendezvous", "running", "paused", "finished"};

/// Writes families and their samples in order: one HELP and TYPE line per family, then its
/// samples, as the exposition format requires. Into a buffer of its own, grown by doubling:
/// a large job's page is millions of small pieces.
class Exposition {
 public:
  explicit Exposition(std::size_t expected)
      : buf_(new char[expected]), size_(expected) {}  // not zeroed: written before read

  /// The text written.
  std::string take() && { return std::string(buf_.get(), pos_); }

  void family(std::string_view name, const char* type, std::string_view help) {
    put("# HELP ");
    put(name);
    put(' ');
    put_escaped(help, true);
    put("\n# TYPE ");
    put(name);
    put(' ');
    put(type);
    put('\n');
  }
  Exposition& sample(std::string_view name, std::string_view suffix = {}) {
    put(name);
    put(suffix);
    labels_ = 0;
    return *this;
  }
  Exposition& label(std::string_view key, std::string_view value) {
    open_label(key);
    put_escaped(value);
    put('"');
    return *this;
  }
  Exposition& label(std::string_view key, std::int64_t value) {
    open_label(key);
    put_number(value);
    put('"');
    return *this;
  }
  template <class Number>
  void value(Number n) {
    if (labels_ > 0) put('}');
    put(' ');
    if constexpr (std::is_floating_point_v<Number>) {
      put_number(static_cast<double>(n));
    } else {
      put_number(static_cast<std::int64_t>(n));
    }
    put('\n');
  }

  /// `value` escaped as a label value (or, with `help`, as HELP text: only backslash and
  /// newline are escaped there).
  void put_escaped(std::string_view value, bool help = false) {
    // Most values (node names, numbers) need nothing: written whole.
    if (std::all_of(value.begin(), value.end(), [](char c) {
          return static_cast<unsigned char>(c) < 0x80 && c != '\\' && c != '\n' && c != '"';
        })) {
      put(value);
      return;
    }
    for (std::size_t i = 0; i < value.size();) {
      const char c = value[i];
      if (c == '\\') {
        put("\\\\");
      } else if (c == '\n') {
        put("\\n");
      } else if (c == '"' && !help) {
        put("\\\"");
      } else if (static_cast<unsigned char>(c) < 0x80) {
        put(c);
      } else if (const std::size_t n = utf8_sequence_length(value, i); n > 0) {
        put(value.substr(i, n));
        i += n;
        continue;
      } else {
        put("\xEF\xBF\xBD");  // U+FFFD
      }
      ++i;
    }
  }

 private:
  // `{key="` or `,key="`.
  void open_label(std::string_view key) {
    put(labels_++ == 0 ? '{' : ',');
    put(key);
    put("=\"");
  }
  // Where the next `n` bytes go.
  [[gnu::always_inline]] char* room(std::size_t n) {
    if (pos_ + n > size_) [[unlikely]]
      grow(n);
    return buf_.get() + pos_;
  }
  [[gnu::noinline]] void grow(std::size_t n) {
    const std::size_t size = std::max(2 * size_, pos_ + n);
    std::unique_ptr<char[]> larger(new char[size]);
    std::memcpy(larger.get(), buf_.get(), pos_);
    buf_ = std::move(larger);
    size_ = size;
  }
  [[gnu::always_inline]] void put(std::string_view text) {
    if (text.empty()) return;  // its data() may be null, which memcpy may not take
    std::memcpy(room(text.size()), text.data(), text.size());
    pos_ += text.size();
  }
  [[gnu::always_inline]] void put(char c) {
    *room(1) = c;
    ++pos_;
  }
  void put_number(std::int64_t n) {
    char* at = room(24);
    pos_ += static_cast<std::size_t>(std::to_chars(at, at + 24, n).ptr - at);
  }
  void put_number(double x) {
    if (std::isinf(x)) {
      put(x > 0 ? "+Inf" : "-Inf");
    } else if (std::isnan(x)) {
      put("NaN");
    } else {
      char* at = room(32);
      pos_ += static_cast<std::size_t>(std::to_chars(at, at + 32, x).ptr - at);
    }
  }

  std::unique_ptr<char[]> buf_;
  std::size_t size_;
  std::size_t pos_ = 0;
  int labels_ = 0;
};

double seconds_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

const char* job_state(const CoordinatorState& state, const RunView* job) {
  if (state.phase == Phase::Finished) return "finished";
  if (state.phase == Phase::Rendezvous) return "rendezvous";
  return job != nullptr && job->paused() ? "paused" : "running";
}

// The ranks of instance `i` as placed now: [first, last].
std::pair<int, int> ranks_of(const CoordinatorState& state, int i) {
  const Placement& p = state.placed.placements[static_cast<std::size_t>(i)];
  return {p.first_rank, last_rank(state.placed, p)};
}

bool instance_running(const CoordinatorState& state, int i) {
  return state.instances[static_cast<std::size_t>(i)].run == Run::Running;
}

// The kernel's figures of `rank` in its running instance's latest heartbeat, or null.
const net::RankUsage* usage_of(const Instance& inst, int rank) {
  if (inst.run != Run::Running || !inst.heartbeat) return nullptr;
  for (const net::RankUsage& u : inst.heartbeat->ranks) {
    if (u.rank == rank) return &u;
  }
  return nullptr;
}

void job_series(Exposition& x, const CoordinatorState& state, const RunView* job,
                Clock::time_point now) {
  x.family("pai_job_info", "gauge", "The job this coordinator runs (always 1).");
  // Not `job`: Prometheus sets that label to the scrape job, renaming ours `exported_job`.
  x.sample("pai_job_info").label("pai_job", state.plan.name).value(1);

  const std::string_view current = job_state(state, job);
  x.family("pai_job_state", "gauge", "1 for the job's current state, 0 for the others.");
  for (const char* s : kJobStates) x.sample("pai_job_state").label("state", s).value(s == current);

  if (state.ended) {
    // How it ended, for alerts: the endpoint outlives the job (monitoring.metricsLinger).
    const char* outcome = job_outcome(*state.ended);
    x.family("pai_job_outcome", "gauge", "1 for how the job ended, once it did.");
    x.sample("pai_job_outcome").label("outcome", outcome).value(1);
    x.family("pai_job_exit_code", "gauge", "The job's exit code, once it ended.");
    x.sample("pai_job_exit_code").value(state.ended->exit_code);
  }

  x.family("pai_job_uptime_seconds", "gauge", "Seconds since the coordinator started.");
  x.sample("pai_job_uptime_seconds").value(seconds_between(state.started, now));

  std::array<std::int64_t, kNodeStates.size()> by_state{};
  for (std::size_t k = 0; k < state.nodes.size(); ++k) {
    const std::string s = node_state(state, static_cast<int>(k));
    for (std::size_t j = 0; j < kNodeStates.size(); ++j) by_state[j] += s == kNodeStates[j];
  }
  x.family("pai_nodes", "gauge", "Nodes of the plan (hosts and spares) by state.");
  for (std::size_t j = 0; j < kNodeStates.size(); ++j) {
    x.sample("pai_nodes").label("state", kNodeStates[j]).value(by_state[j]);
  }

  x.family("pai_ranks", "gauge", "Ranks of the job (its world size).");
  x.sample("pai_ranks").value(state.placed.world_size);
  std::int64_t up = 0;
  for (std::size_t i = 0; i < state.instances.size(); ++i) {
    if (!instance_running(state, static_cast<int>(i))) continue;
    const auto [first, last] = ranks_of(state, static_cast<int>(i));
    up += last - first + 1;
  }
  x.family("pai_ranks_up", "gauge", "Ranks whose instance is running.");
  x.sample("pai_ranks_up").value(up);
}

void counter_series(Exposition& x, const CoordinatorState& state, Clock::time_point now) {
  const JobMetrics& m = state.metrics;
  x.family("pai_restarts_total", "counter",
           "Restarts of instances (a job-wide restart of N instances counts N).");
  x.sample("pai_restarts_total").value(m.restarts_total());
  x.family("pai_job_restarts_total", "counter",
           "Restarts of the job: each decision to restart counts once, however many instances it "
           "restarts (the report's and the terminal's restart count).");
  x.sample("pai_job_restarts_total").value(m.job_restarts_total());
  x.family("pai_restarts_by_reason_total", "counter",
           "Restarts of instances by the failure that caused them: reason is its kind, class "
           "its particulars (exit code, signal, log pattern, verdict class).");
  for (const auto& [cause, n] : m.restarts()) {
    x.sample("pai_restarts_by_reason_total")
        .label("reason", cause.reason)
        .label("class", cause.cls)
        .value(n);
  }
  x.family("pai_check_runs_total", "counter",
           "Sanity check results reported, by check and status.");
  for (const auto& [key, n] : m.check_runs()) {
    x.sample("pai_check_runs_total").label("check", key.first).label("status", key.second).value(n);
  }
  x.family("pai_diagnosis_verdicts_total", "counter",
           "Verdicts of the coordinator's diagnosis, by class and severity.");
  for (const auto& [key, n] : m.verdicts()) {
    x.sample("pai_diagnosis_verdicts_total")
        .label("class", key.first)
        .label("severity", key.second)
        .value(n);
  }
  x.family("pai_gpu_idle_verdicts_total", "counter",
           "GPU-idle verdicts (monitoring.gpuIdle) by node: a GPU below the threshold for the "
           "whole window while the node's ranks ran.");
  for (const auto& [node, n] : m.gpu_idle_verdicts()) {
    x.sample("pai_gpu_idle_verdicts_total").label("node", node).value(n);
  }
  x.family("pai_nic_verdicts_total", "counter",
           "NIC verdicts (faultTolerance.diagnosis.nic) by node and problem: down, flapping, "
           "errors, congestion, slow.");
  for (const auto& [key, n] : m.nic_verdicts()) {
    x.sample("pai_nic_verdicts_total")
        .label("node", key.first)
        .label("problem", key.second)
        .value(n);
  }
  x.family("pai_training_step_seconds_total", "counter",
           "Time inside timed training steps, summed over every rank (telemetry).");
  x.sample("pai_training_step_seconds_total").value(static_cast<double>(m.step_us_total()) / 1e6);
  const double wall = seconds_between(state.started, now);
  if (m.step_us_total() > 0 && state.placed.world_size > 0 && wall > 0) {
    // Telemetry windows end a little after the steps they hold: never more than all the time.
    const double ratio = std::min(
        1.0, static_cast<double>(m.step_us_total()) / 1e6 / (state.placed.world_size * wall));
    x.family("pai_goodput_ratio", "gauge",
             "Share of the ranks' wall time since the coordinator started spent inside training "
             "steps: pai_training_step_seconds_total / (pai_ranks * pai_job_uptime_seconds).");
    x.sample("pai_goodput_ratio").value(ratio);
  }
  if (const auto& g = m.goodput()) {
    x.family("pai_goodput_seconds_total", "counter",
             "Rank-seconds of the job by cause (docs/goodput.md), as last read from the log "
             "folder's journals by the coordinator's launcher; a new reading may move seconds "
             "between causes.");
    for (int c = 0; c < goodput::kCauses; ++c) {
      const auto cause = static_cast<goodput::Cause>(c);
      x.sample("pai_goodput_seconds_total")
          .label("cause", goodput::to_string(cause))
          .value(g->causes[cause]);
    }
    x.family("pai_goodput_ettr", "gauge",
             "Effective training time ratio so far: productive rank-seconds over all "
             "(pai_goodput_seconds_total).");
    x.sample("pai_goodput_ettr").value(g->ettr);
  }
}

void node_series(Exposition& x, const CoordinatorState& state, Clock::time_point now) {
  x.family("pai_node_state", "gauge", "1 for each node of the plan, labelled with its state.");
  for (std::size_t k = 0; k < state.nodes.size(); ++k) {
    x.sample("pai_node_state")
        .label("node", state.nodes[k].name)
        .label("state", node_state(state, static_cast<int>(k)))
        .value(1);
  }
  x.family("pai_node_heartbeat_age_seconds", "gauge",
           "Seconds since the node's launcher last sent a heartbeat (connected nodes).");
  for (std::size_t k = 0; k < state.nodes.size(); ++k) {
    const auto last = state.metrics.last_heartbeat(static_cast<int>(k));
    if (state.nodes[k].session < 0 || !last) continue;
    x.sample("pai_node_heartbeat_age_seconds")
        .label("node", state.nodes[k].name)
        .value(seconds_between(*last, now));
  }
  x.family("pai_node_check_passed", "gauge",
           "The node's latest sanity check results: 1 passed, 0 failed (skipped checks absent).");
  for (const Node& n : state.nodes) {
    int shown = 0;
    for (const checks::CheckResult& c : n.checks) {
      if (c.status == checks::CheckResult::Skipped) continue;
      if (shown++ == kMaxChecksPerNode) break;
      x.sample("pai_node_check_passed")
          .label("node", n.name)
          .label("check", c.name)
          .value(c.status == checks::CheckResult::Passed);
    }
  }
}

// The GPUs each running instance's node sampled last, as many as its ranks' series budget
// allows (kMaxGpusPerRank per rank).
void gpu_series(Exposition& x, const CoordinatorState& state) {
  const auto each_gpu = [&](auto&& body) {
    for (std::size_t i = 0; i < state.instances.size(); ++i) {
      const Instance& inst = state.instances[i];
      if (inst.run != Run::Running || inst.gpus.empty()) continue;
      const auto [first, last] = ranks_of(state, static_cast<int>(i));
      const std::size_t shown = static_cast<std::size_t>(kMaxGpusPerRank * (last - first + 1));
      const std::string& node = state.nodes[static_cast<std::size_t>(inst.node)].name;
      for (std::size_t k = 0; k < inst.gpus.size() && k < shown; ++k) body(node, inst.gpus[k]);
    }
  };
  x.family("pai_gpu_utilization_ratio", "gauge",
           "Share of the latest sample period a kernel ran on the GPU (NVML), sampled while "
           "the node's ranks run.");
  each_gpu([&](const std::string& node, const net::GpuSample& g) {
    if (g.utilization < 0) return;
    x.sample("pai_gpu_utilization_ratio")
        .label("node", node)
        .label("gpu", g.index)
        .value(g.utilization / 100.0);
  });
  x.family("pai_gpu_memory_used_bytes", "gauge", "GPU memory in use (NVML).");
  each_gpu([&](const std::string& node, const net::GpuSample& g) {
    if (g.memory_used_bytes < 0) return;
    x.sample("pai_gpu_memory_used_bytes")
        .label("node", node)
        .label("gpu", g.index)
        .value(g.memory_used_bytes);
  });
  x.family("pai_gpu_memory_total_bytes", "gauge", "GPU memory in all (NVML).");
  each_gpu([&](const std::string& node, const net::GpuSample& g) {
    if (g.memory_total_bytes < 0) return;
    x.sample("pai_gpu_memory_total_bytes")
        .label("node", node)
        .label("gpu", g.index)
        .value(g.memory_total_bytes);
  });
}

void instance_series(Exposition& x, const CoordinatorState& state, const RunView* job) {
  const int instances = static_cast<int>(state.instances.size());
  x.family("pai_instance_attempt", "gauge", "The instance's current or pending attempt.");
  for (int i = 0; i < instances; ++i) {
    x.sample("pai_instance_attempt")
        .label("pai_instance", state.instance_name(i))
        .value(state.instances[static_cast<std::size_t>(i)].attempt);
  }
  x.family("pai_instance_restarts_total", "counter", "Restarts of the instance.");
  for (int i = 0; i < instances; ++i) {
    x.sample("pai_instance_restarts_total")
        .label("pai_instance", state.instance_name(i))
        .value(job != nullptr ? job->restart_count(i) : 0);
  }
  x.family("pai_instance_step", "gauge",
           "The latest step the instance reported (pai-launch ctl progress, the SDK).");
  for (int i = 0; i < instances; ++i) {
    const auto step = state.metrics.instance_step(i);
    if (!step) continue;
    x.sample("pai_instance_step").label("pai_instance", state.instance_name(i)).value(*step);
  }
}

// Calls body(rank, instance) for every rank of the plan's placement, in rank order.
template <class Body>
void each_rank(const CoordinatorState& state, Body&& body) {
  for (std::size_t i = 0; i < state.instances.size(); ++i) {
    const auto [first, last] = ranks_of(state, static_cast<int>(i));
    for (int r = first; r <= last; ++r) body(r, state.instances[i]);
  }
}

const RankSteps* steps_of(const CoordinatorState& state, int rank) {
  const auto& ranks = state.metrics.ranks();
  if (rank < 0 || static_cast<std::size_t>(rank) >= ranks.size()) return nullptr;
  const RankSteps& s = ranks[static_cast<std::size_t>(rank)];
  return s.reported ? &s : nullptr;
}

void rank_series(Exposition& x, const CoordinatorState& state) {
  std::array<std::string, kStepBuckets.size()> bucket_labels;
  for (std::size_t b = 0; b < kStepBuckets.size(); ++b) {
    char le[32];
    bucket_labels[b].assign(le, std::to_chars(le, le + sizeof le, kStepBuckets[b]).ptr);
  }
  x.family("pai_rank_step", "gauge", "The last step the rank's telemetry named.");
  each_rank(state, [&](int r, const Instance&) {
    const RankSteps* s = steps_of(state, r);
    if (s != nullptr && s->step >= 0) x.sample("pai_rank_step").label("rank", r).value(s->step);
  });
  x.family("pai_rank_step_seconds", "histogram",
           "Duration of the rank's training steps (each heartbeat window's steps counted at "
           "their mean).");
  each_rank(state, [&](int r, const Instance&) {
    const RankSteps* s = steps_of(state, r);
    if (s == nullptr) return;
    char text[24];  // the rank as its 16 samples label it
    const std::string_view rank(
        text, static_cast<std::size_t>(std::to_chars(text, text + sizeof text, r).ptr - text));
    std::uint64_t cumulative = 0;
    for (std::size_t b = 0; b < kStepBuckets.size(); ++b) {
      cumulative += s->buckets[b];
      x.sample("pai_rank_step_seconds", "_bucket")
          .label("rank", rank)
          .label("le", bucket_labels[b])
          .value(cumulative);
    }
    x.sample("pai_rank_step_seconds", "_bucket")
        .label("rank", rank)
        .label("le", "+Inf")
        .value(s->count);
    x.sample("pai_rank_step_seconds", "_sum")
        .label("rank", rank)
        .value(static_cast<double>(s->step_us) / 1e6);
    x.sample("pai_rank_step_seconds", "_count").label("rank", rank).value(s->count);
  });
  x.family("pai_rank_collective_seconds_total", "counter",
           "Time the rank had a collective open (telemetry of the world group).");
  each_rank(state, [&](int r, const Instance&) {
    const RankSteps* s = steps_of(state, r);
    if (s == nullptr) return;
    x.sample("pai_rank_collective_seconds_total")
        .label("rank", r)
        .value(static_cast<double>(s->comm_us) / 1e6);
  });
  x.family("pai_rank_cpu_seconds_total", "counter",
           "CPU time of the rank's current attempt and its children (its cgroup).");
  each_rank(state, [&](int r, const Instance& inst) {
    const net::RankUsage* u = usage_of(inst, r);
    if (u == nullptr) return;
    x.sample("pai_rank_cpu_seconds_total")
        .label("rank", r)
        .value(static_cast<double>(u->cpu_ms) / 1e3);
  });
  x.family("pai_rank_memory_bytes", "gauge", "Memory the rank and its children use (cgroup).");
  each_rank(state, [&](int r, const Instance& inst) {
    const net::RankUsage* u = usage_of(inst, r);
    if (u == nullptr || u->memory_bytes < 0) return;
    x.sample("pai_rank_memory_bytes").label("rank", r).value(u->memory_bytes);
  });
}

}  // namespace

std::string escape_label_value(std::string_view value) {
  Exposition x(value.size());
  x.put_escaped(value);
  return std::move(x).take();
}

std::string metrics_text(const CoordinatorState& state, const RunView* job, Clock::time_point now) {
  // About 1 KiB per rank with telemetry and 300 bytes per node: one allocation for most jobs.
  Exposition x(4096 + static_cast<std::size_t>(state.placed.world_size) * 1024 +
               state.nodes.size() * 300);
  job_series(x, state, job, now);
  counter_series(x, state, now);
  node_series(x, state, now);
  instance_series(x, state, job);
  gpu_series(x, state);
  rank_series(x, state);
  return std::move(x).take();
}

}  // namespace pai::launcher::coordinator
