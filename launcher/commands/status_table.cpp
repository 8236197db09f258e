#include "launcher/commands/status_table.h"

#include <algorithm>
#include <array>
#include <limits>
#include <vector>

#include "launcher/net/message.h"

namespace pai::launcher {

namespace {

constexpr std::size_t kColumns = 7;
using Row = std::array<std::string, kColumns>;

// One node of the message as a row, read as strictly as any message.
Row node_row(const nlohmann::json& node, std::size_t index) {
  if (!node.is_object()) {
    throw net::ProtocolError("status: nodes[" + std::to_string(index) + "]: expected an object");
  }
  nlohmann::json entry = node;
  entry["type"] = "status: nodes[" + std::to_string(index) + "]";
  const net::MessageReader r(entry);
  constexpr int kMax = std::numeric_limits<int>::max();
  const int instance = r.integer("instance", -1, kMax);
  std::string name = "-";
  std::string ranks = "-";
  if (instance >= 0) {
    name = r.string("role") + "-" + std::to_string(r.integer("index", 0, kMax));
    const nlohmann::json& span = r.array("ranks");
    if (span.size() != 2 || !span[0].is_number_integer() || !span[1].is_number_integer()) {
      r.fail("ranks", "expected [first, last]");
    }
    const auto first = span[0].get<std::int64_t>();
    const auto last = span[1].get<std::int64_t>();
    ranks =
        first == last ? std::to_string(first) : std::to_string(first) + "-" + std::to_string(last);
  }
  std::string last_event = r.string("lastEvent");
  return Row{r.string("node"),
             r.string("address"),
             name,
             ranks,
             r.string("state"),
             std::to_string(r.integer("restarts", 0, kMax)),
             last_event.empty() ? "-" : last_event};
}

}  // namespace

std::string render_status_table(const nlohmann::json& status) {
  const net::MessageReader message(status);
  std::vector<Row> rows{
      {"NODE", "ADDRESS", "INSTANCE", "RANKS", "STATE", "RESTARTS", "LAST-EVENT"}};
  const nlohmann::json& nodes = message.array("nodes");
  for (std::size_t i = 0; i < nodes.size(); ++i) rows.push_back(node_row(nodes[i], i));
  std::array<std::size_t, kColumns> width{};
  for (const Row& row : rows) {
    for (std::size_t c = 0; c < kColumns; ++c) width[c] = std::max(width[c], row[c].size());
  }
  std::string out = "job " + message.string("job") + ": " + message.string("phase") + "\n";
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
