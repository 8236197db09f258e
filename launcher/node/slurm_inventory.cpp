#include "launcher/node/slurm_inventory.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <stdexcept>

#include "libpai/placement.h"

namespace pai::launcher {
namespace {

// One piece of a hostlist item: literal text, or the numbers of one bracketed range list.
struct Segment {
  std::string literal;
  std::vector<std::string> numbers;  // empty for a literal
};

class HostlistParser {
 public:
  explicit HostlistParser(std::string_view expression) : text_(expression) {}

  std::vector<std::string> expand() {
    if (text_.empty()) fail("it is empty");
    std::vector<std::string> hosts;
    std::size_t start = 0;
    while (start <= text_.size()) {
      const std::size_t end = item_end(start);
      expand_item(start, end, hosts);
      start = end + 1;
    }
    return hosts;
  }

 private:
  [[noreturn]] void fail(const std::string& problem) const {
    throw std::invalid_argument("invalid Slurm hostlist \"" + std::string(text_) +
                                "\": " + problem);
  }

  // Where the item starting at `start` ends: the next comma outside brackets, or the end.
  std::size_t item_end(std::size_t start) const {
    bool in_brackets = false;
    for (std::size_t i = start; i < text_.size(); ++i) {
      if (text_[i] == '[') in_brackets = true;
      if (text_[i] == ']') in_brackets = false;
      if (text_[i] == ',' && !in_brackets) return i;
    }
    return text_.size();
  }

  void expand_item(std::size_t start, std::size_t end, std::vector<std::string>& hosts) const {
    if (start == end) fail("empty host name at offset " + std::to_string(start));
    std::vector<Segment> segments;
    std::size_t count = 1;
    for (std::size_t i = start; i < end;) {
      const char c = text_[i];
      if (std::isspace(static_cast<unsigned char>(c))) {
        fail("whitespace at offset " + std::to_string(i));
      }
      if (c == ']') fail("']' at offset " + std::to_string(i) + " has no '['");
      if (c != '[') {
        if (segments.empty() || !segments.back().numbers.empty()) segments.emplace_back();
        segments.back().literal += c;
        ++i;
        continue;
      }
      const std::size_t close = text_.find(']', i);
      if (close == std::string_view::npos || close > end) {
        fail("'[' at offset " + std::to_string(i) + " is not closed");
      }
      Segment range;
      range.numbers = expand_ranges(i + 1, close);
      count = checked_product(count, range.numbers.size(), hosts.size());
      segments.push_back(std::move(range));
      i = close + 1;
    }
    // Ranges were counted as they were read; an item of literals alone counts here.
    checked_product(count, 1, hosts.size());
    // The cartesian product, the first range varying slowest (as Slurm orders it).
    std::vector<std::string> names = {""};
    for (const Segment& segment : segments) {
      if (segment.numbers.empty()) {
        for (std::string& name : names) name += segment.literal;
        continue;
      }
      std::vector<std::string> longer;
      longer.reserve(names.size() * segment.numbers.size());
      for (const std::string& name : names) {
        for (const std::string& number : segment.numbers) longer.push_back(name + number);
      }
      names = std::move(longer);
    }
    hosts.insert(hosts.end(), names.begin(), names.end());
  }

  // `count` names times `factor`, with `before` names already expanded: refused beyond
  // kMaxHostlistHosts in all.
  std::size_t checked_product(std::size_t count, std::size_t factor, std::size_t before) const {
    if (factor != 0 && count > (kMaxHostlistHosts - before) / factor) {
      fail("it names more than " + std::to_string(kMaxHostlistHosts) + " hosts");
    }
    return count * factor;
  }

  // The numbers of the range list text_[begin, end): "1-3,5" -> 1 2 3 5, each as wide as
  // its range's lower bound.
  std::vector<std::string> expand_ranges(std::size_t begin, std::size_t end) const {
    if (begin == end) fail("empty brackets at offset " + std::to_string(begin - 1));
    std::vector<std::string> numbers;
    for (std::size_t start = begin; start <= end;) {
      std::size_t stop = text_.find(',', start);
      if (stop == std::string_view::npos || stop > end) stop = end;
      const std::string_view range = text_.substr(start, stop - start);
      const std::size_t dash = range.find('-');
      const std::string_view low = range.substr(0, dash);
      const std::string_view high = dash == std::string_view::npos ? low : range.substr(dash + 1);
      const std::uint64_t first = number(low, start);
      const std::uint64_t last = number(high, start);
      if (last < first) {
        fail("range \"" + std::string(range) + "\" at offset " + std::to_string(start) +
             " ends below its start");
      }
      checked_product(numbers.size() + (last - first) + 1, 1, 0);
      for (std::uint64_t n = first; n <= last; ++n) {
        std::string digits = std::to_string(n);
        if (digits.size() < low.size()) digits.insert(0, low.size() - digits.size(), '0');
        numbers.push_back(std::move(digits));
      }
      start = stop + 1;
    }
    return numbers;
  }

  std::uint64_t number(std::string_view digits, std::size_t at) const {
    const bool ok =
        !digits.empty() && digits.size() <= 18 &&
        std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!ok) {
      fail("\"" + std::string(digits) + "\" at offset " + std::to_string(at) +
           " is not a range bound (digits, at most 18)");
    }
    return std::stoull(std::string(digits));
  }

  std::string_view text_;
};

const std::string& required(const std::map<std::string, std::string>& env, const char* name) {
  const auto it = env.find(name);
  if (it == env.end() || it->second.empty()) {
    throw std::invalid_argument(std::string(name) +
                                " is not set: pai-launch --slurm runs as a task of srun, "
                                "inside a Slurm allocation");
  }
  return it->second;
}

}  // namespace

std::vector<std::string> expand_hostlist(std::string_view expression) {
  return HostlistParser(expression).expand();
}

SlurmAllocation read_slurm_allocation(const std::map<std::string, std::string>& env) {
  SlurmAllocation a;
  // SLURM_NODELIST is the older name, still set by every Slurm.
  const char* list_name = "SLURM_JOB_NODELIST";
  if (auto it = env.find(list_name); it == env.end() || it->second.empty()) {
    if (auto old = env.find("SLURM_NODELIST"); old != env.end() && !old->second.empty()) {
      list_name = "SLURM_NODELIST";
    }
  }
  const std::string& list = required(env, list_name);
  try {
    a.nodes = expand_hostlist(list);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string(list_name) + ": " + e.what());
  }
  a.job_id = required(env, "SLURM_JOB_ID");
  a.node_name = required(env, "SLURMD_NODENAME");
  a.launch_address = required(env, "SLURM_LAUNCH_NODE_IPADDR");
  const std::string& id = required(env, "SLURM_NODEID");
  const bool digits = id.size() <= 9 && std::all_of(id.begin(), id.end(),
                                                    [](char c) { return c >= '0' && c <= '9'; });
  if (!digits || std::stoul(id) >= a.nodes.size()) {
    throw std::invalid_argument("SLURM_NODEID \"" + id + "\" is not a node index of " + list_name +
                                " (" + std::to_string(a.nodes.size()) + " nodes)");
  }
  a.node_id = std::stoi(id);
  if (std::find(a.nodes.begin(), a.nodes.end(), a.node_name) == a.nodes.end()) {
    throw std::invalid_argument("SLURMD_NODENAME \"" + a.node_name + "\" is not a node of " +
                                list_name + " \"" + list + "\"");
  }
  return a;
}

void apply_slurm_allocation(Plan& plan, const SlurmAllocation& allocation) {
  if (plan.inventory != Inventory::Slurm) {
    throw std::invalid_argument(std::string("the plan's inventory is ") +
                                to_string(plan.inventory) +
                                ", not slurm: compile the job with pai-compile --target slurm "
                                "to run it on a Slurm allocation");
  }
  const std::size_t instances = static_cast<std::size_t>(std::max(plan.nodes, 0));
  if (allocation.nodes.size() < instances) {
    throw std::invalid_argument(
        "the Slurm allocation has " + std::to_string(allocation.nodes.size()) +
        (allocation.nodes.size() == 1 ? " node" : " nodes") + " but the job has " +
        std::to_string(instances) + " instances, each needing its own node: submit it with " +
        "sbatch --nodes=" + std::to_string(instances + plan.spares.size()));
  }
  std::vector<Host> hosts;
  std::vector<Host> spares;
  for (std::size_t i = 0; i < allocation.nodes.size(); ++i) {
    const std::string& name = allocation.nodes[i];
    // Names need DNS; the launch address reaches the first node without it.
    Host host{name, i == 0 ? allocation.launch_address : name, 0};
    // Keep what the plan states about its placeholder, e.g. slots.
    if (i < instances && i < plan.hosts.size()) host.slots = plan.hosts[i].slots;
    (i < instances ? hosts : spares).push_back(std::move(host));
  }
  plan.hosts = std::move(hosts);
  plan.spares = std::move(spares);
  plan.coordinator_host.clear();
  plan.inventory = Inventory::Static;
  place(plan, plan.hosts);
}

}  // namespace pai::launcher
