#include "libpai/placement.h"

#include <algorithm>
#include <stdexcept>
#include <string_view>
#include <unordered_map>

namespace pai {
namespace {

// Ports are tracked per address rather than per host name: two inventory names for one
// machine (a local test cluster) must still never be handed the same port.
class PortAllocator {
 public:
  PortAllocator(int min, int max) : min_(min), max_(max) {}

  /// Marks `port` as taken on `host` without drawing it from the range.
  void reserve(const Host& host, int port) { state(host).explicit_port = port; }

  /// The first of `count` consecutive free ports on `host`.
  int take(const Host& host, int count) {
    State& s = state(host);
    int first = s.next;
    if (s.explicit_port >= first && s.explicit_port < first + count) first = s.explicit_port + 1;
    if (first > max_ - count + 1) {
      throw std::invalid_argument("port range " + std::to_string(min_) + "-" +
                                  std::to_string(max_) + " exhausted on host " + host.name);
    }
    s.next = first + count;
    return first;
  }

 private:
  struct State {
    int next;
    int explicit_port = 0;
  };

  State& state(const Host& host) {
    return states_.try_emplace(std::string_view(host.address), State{min_}).first->second;
  }

  int min_;
  int max_;
  std::unordered_map<std::string_view, State> states_;
};

const Host* find_host(const std::vector<Host>& hosts, const std::string& name) {
  for (const Host& h : hosts) {
    if (h.name == name) return &h;
  }
  return nullptr;
}

}  // namespace

void place(Plan& plan, const std::vector<Host>& hosts) {
  std::size_t instances = 0;
  for (const Role& role : plan.roles)
    instances += static_cast<std::size_t>(std::max(role.instances, 0));
  if (instances == 0) throw std::invalid_argument("the plan has no role instances to place");
  if (hosts.size() < instances) {
    throw std::invalid_argument("need " + std::to_string(instances) +
                                " hosts for the instances of all roles, have " +
                                std::to_string(hosts.size()));
  }

  // `hosts` may alias plan.hosts, so resolve the coordinator before touching the plan.
  const Host* coordinator_host = &hosts.front();
  if (!plan.coordinator_host.empty()) {
    coordinator_host = find_host(hosts, plan.coordinator_host);
    if (!coordinator_host) coordinator_host = find_host(plan.hosts, plan.coordinator_host);
    if (!coordinator_host) {
      throw std::invalid_argument("coordinator host \"" + plan.coordinator_host +
                                  "\" is not in the inventory");
    }
  }

  PortAllocator ports(plan.port_range_min, plan.port_range_max);
  Endpoint coordinator{coordinator_host->name, coordinator_host->address, plan.coordinator_port};
  if (coordinator.port != 0) {
    ports.reserve(*coordinator_host, coordinator.port);
  } else {
    coordinator.port = ports.take(*coordinator_host, 1);
  }
  const Host& master_host = hosts.front();
  Endpoint master{master_host.name, master_host.address, ports.take(master_host, 1)};

  // An MPI job's launcher role holds no ranks (its process runs mpirun): its processes are
  // numbered after every rank, so ranks 0..world_size-1 are the job's real ranks.
  int ranked = 0;
  for (const Role& role : plan.roles) {
    if (holds_ranks(plan, role)) ranked += role.instances * role.nproc_per_node;
  }
  std::vector<Placement> placements;
  placements.reserve(instances);
  int node_rank = 0;
  int rank = 0;
  int unranked = ranked;
  for (std::size_t r = 0; r < plan.roles.size(); ++r) {
    const Role& role = plan.roles[r];
    int& next = holds_ranks(plan, role) ? rank : unranked;
    std::vector<const PortRequest*> requests;
    for (const PortRequest& request : role.ports) requests.push_back(&request);
    std::sort(requests.begin(), requests.end(),
              [](const PortRequest* a, const PortRequest* b) { return a->label < b->label; });
    for (int i = 0; i < role.instances; ++i) {
      Placement& p = placements.emplace_back();
      p.role = role.name;
      p.role_index = static_cast<int>(r);
      p.index = i;
      p.node_rank = node_rank;
      p.first_rank = next;
      p.first_role_rank = i * role.nproc_per_node;
      p.host = hosts[static_cast<std::size_t>(node_rank)];
      for (const PortRequest* request : requests) {
        int first = ports.take(hosts[static_cast<std::size_t>(node_rank)], request->count);
        std::vector<int>& list = p.ports[request->label];
        for (int k = 0; k < request->count; ++k) list.push_back(first + k);
      }
      ++node_rank;
      next += role.nproc_per_node;
    }
  }

  plan.placements = std::move(placements);
  plan.coordinator = std::move(coordinator);
  plan.master = std::move(master);
  plan.world_size = rank;
  plan.nodes = node_rank;
}

}  // namespace pai
