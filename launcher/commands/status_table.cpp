#include "launcher/commands/status_table.h"

#include <algorithm>
#include <array>
#include <vector>

namespace pai::launcher {

namespace {

constexpr std::size_t kColumns = 7;
using Row = std::array<std::string, kColumns>;

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

}  // namespace

std::string render_status_table(const net::StatusReply& status) {
  std::vector<Row> rows{
      {"NODE", "ADDRESS", "INSTANCE", "RANKS", "STATE", "RESTARTS", "LAST-EVENT"}};
  for (const net::NodeStatus& node : status.nodes) rows.push_back(node_row(node));
  std::array<std::size_t, kColumns> width{};
  for (const Row& row : rows) {
    for (std::size_t c = 0; c < kColumns; ++c) width[c] = std::max(width[c], row[c].size());
  }
  std::string out = "job " + status.job + ": " + status.phase + "\n";
  for (const Row& row : rows) {
    for (std::size_t c = 0; c < kColumns; ++c) {
      out += row[c];
      // Two spaces between columns; the last one is not padded (no trailing blanks).
      if (c + 1 < kColumns) out += std::string(width[c] - row[c].size() + 2, ' ');
    }
    out += '\n';
  }
  return out;
}

}  // namespace pai::launcher
