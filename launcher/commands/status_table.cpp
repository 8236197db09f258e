#include "launcher/commands/status_table.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <utility>
#include <vector>

#include "libpai/duration.h"
#include "libpai/quantity.h"

namespace pai::launcher {

namespace {

using Row = std::vector<std::string>;

// Rows as columns aligned on the widest cell, two spaces apart; the last cell of a row is not
// padded (no trailing blanks).
std::string aligned(const std::vector<Row>& rows) {
  std::vector<std::size_t> width(rows.front().size(), 0);
  for (const Row& row : rows) {
    for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  std::string out;
  for (const Row& row : rows) {
    for (std::size_t c = 0; c < row.size(); ++c) {
      out += row[c];
      if (c + 1 < row.size()) out += std::string(width[c] - row[c].size() + 2, ' ');
    }
    out += '\n';
  }
  return out;
}

Row node_row(const net::NodeStatus& node) {
  std::string name = "-";
  std::string ranks = "-";
  if (node.instance >= 0) {
    name = node.role + "-" + std::to_string(node.index);
    if (node.ranks.size() == 2) {
      const std::int64_t first = node.ranks[0];
      const std::int64_t last = node.ranks[1];
      ranks = first == last ? std::to_string(first)
                            : std::to_string(first) + "-" + std::to_string(last);
    }
  }
  return Row{node.node,
             node.address,
             name,
             ranks,
             node.state,
             std::to_string(node.restarts),
             node.last_event.empty() ? "-" : node.last_event};
}

std::string cpu_text(std::int64_t ms) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1fs", static_cast<double>(ms) / 1000);
  return text;
}

std::string memory_text(std::int64_t bytes) { return bytes < 0 ? "-" : human_bytes(bytes); }

// Steps per second over the window of the node's latest heartbeat.
std::string rate_text(const net::RankTelemetry& t) {
  if (t.window_us <= 0) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.2f/s",
                static_cast<double>(t.steps) * 1e6 / static_cast<double>(t.window_us));
  return text;
}

// A running rank's row: what its cgroup counted (`usage`) and what its telemetry ring said
// (`telemetry`); either may be missing.
Row rank_row(std::int64_t rank, const net::NodeStatus& node, const net::RankUsage* usage,
             const net::RankTelemetry* telemetry) {
  return Row{std::to_string(rank),
             node.node,
             usage != nullptr ? std::to_string(usage->pid) : "-",
             node.state,
             node.attempt >= 0 ? std::to_string(node.attempt) : "-",
             telemetry != nullptr && telemetry->step >= 0 ? std::to_string(telemetry->step) : "-",
             telemetry != nullptr ? rate_text(*telemetry) : "-",
             node.elapsed_ms >= 0 ? human_duration(node.elapsed_ms) : "-",
             usage != nullptr ? cpu_text(usage->cpu_ms) : "-",
             usage != nullptr ? memory_text(usage->memory_bytes) : "-",
             usage != nullptr ? memory_text(usage->memory_peak_bytes) : "-"};
}

// The utilization of the rank's GPU: the one whose index is its local rank; "-" when unknown.
std::string gpu_text(std::int64_t rank, const net::NodeStatus& node) {
  if (node.ranks.size() != 2) return "-";
  const std::int64_t local = rank - node.ranks[0];
  for (const net::GpuSample& g : node.gpus) {
    if (g.index == local && g.utilization >= 0) return std::to_string(g.utilization) + "%";
  }
  return "-";
}

// The rows of a node's running ranks that sent figures or telemetry, or whose node sent its
// GPUs, in rank order; with `gpu_column`, each ends with its GPU's utilization.
void add_rank_rows(const net::NodeStatus& node, bool gpu_column, std::vector<Row>& rows) {
  std::map<std::int64_t, std::pair<const net::RankUsage*, const net::RankTelemetry*>> ranks;
  for (const net::RankUsage& u : node.usage) ranks[u.rank].first = &u;
  for (const net::RankTelemetry& t : node.telemetry) ranks[t.rank].second = &t;
  if (!node.gpus.empty() && node.ranks.size() == 2) {
    for (std::int64_t r = node.ranks[0]; r <= node.ranks[1]; ++r) ranks.try_emplace(r);
  }
  for (const auto& [rank, found] : ranks) {
    rows.push_back(rank_row(rank, node, found.first, found.second));
    if (gpu_column) rows.back().push_back(gpu_text(rank, node));
  }
}

}  // namespace

std::string render_status_table(const net::StatusReply& status) {
  std::vector<Row> nodes{
      {"NODE", "ADDRESS", "INSTANCE", "RANKS", "STATE", "RESTARTS", "LAST-EVENT"}};
  std::vector<Row> ranks{{"RANK", "NODE", "PID", "STATE", "ATTEMPT", "STEP", "RATE", "ELAPSED",
                          "CPU", "MEMORY", "PEAK"}};
  // The GPU column only where some node sampled its GPUs (NVML present).
  const bool gpu_column = std::any_of(status.nodes.begin(), status.nodes.end(),
                                      [](const net::NodeStatus& n) { return !n.gpus.empty(); });
  if (gpu_column) ranks.front().push_back("GPU");
  for (const net::NodeStatus& node : status.nodes) {
    nodes.push_back(node_row(node));
    add_rank_rows(node, gpu_column, ranks);
  }
  std::string out = "job " + status.job + ": " + status.phase;
  if (status.ettr_basis_points) {
    const int bp = *status.ettr_basis_points;
    const int journals = status.goodput_journals.value_or(0);
    out += ", ETTR so far " + std::to_string(bp / 100) + "." + (bp % 100 < 10 ? "0" : "") +
           std::to_string(bp % 100) + "% (" + std::to_string(journals) +
           (journals == 1 ? " launcher's" : " launchers'") + " journals)";
  }
  out += "\n" + aligned(nodes);
  if (ranks.size() > 1) out += "\n" + aligned(ranks);
  return out;
}

}  // namespace pai::launcher
