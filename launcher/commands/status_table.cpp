#include "launcher/commands/status_table.h"

#include <algorithm>
#include <cstdio>
#include <vector>

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

}  // namespace

std::string render_status_table(const net::StatusReply& status) {
  std::vector<Row> nodes{
      {"NODE", "ADDRESS", "INSTANCE", "RANKS", "STATE", "RESTARTS", "LAST-EVENT"}};
  std::vector<Row> ranks{{"RANK", "NODE", "PID", "CPU", "MEMORY", "PEAK"}};
  for (const net::NodeStatus& node : status.nodes) {
    nodes.push_back(node_row(node));
    for (const net::RankUsage& u : node.usage) {
      ranks.push_back(Row{std::to_string(u.rank), node.node, std::to_string(u.pid),
                          cpu_text(u.cpu_ms), memory_text(u.memory_bytes),
                          memory_text(u.memory_peak_bytes)});
    }
  }
  std::string out = "job " + status.job + ": " + status.phase + "\n" + aligned(nodes);
  if (ranks.size() > 1) out += "\n" + aligned(ranks);
  return out;
}

}  // namespace pai::launcher
