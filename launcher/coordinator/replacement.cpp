#include "launcher/coordinator/replacement.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "launcher/net/host_changes.h"
#include "launcher/coordinator/node_checks.h"
#include "libpai/placement.h"

namespace pai::launcher::coordinator {

void replace_node(CoordinatorState& state, int instance, int spare, const std::string& reason) {
  Instance& inst = state.instances.at(static_cast<std::size_t>(instance));
  const int old = inst.node;
  Node& from = state.nodes.at(static_cast<std::size_t>(old));
  Node& to = state.nodes.at(static_cast<std::size_t>(spare));
  const std::string name = state.instance_name(instance);

  from.instance = -1;
  from.replaced_by = to.name;
  from.last_event = "replaced by spare " + to.name + ": " + reason;
  to.instance = instance;
  to.replaced_by.clear();
  to.last_event = "took " + name + " from " + from.name;
  inst.node = spare;
  inst.heartbeat.reset();
  state.took_instance.push_back(spare);

  state.record(
      journal::NodeReplaced{
          .instance = name, .node = from.name, .spare = to.name, .reason = reason},
      from.name + " replaced by spare " + to.name + " as " + name + ": " + reason);
  state.release(old, "replaced by spare " + to.name + ": " + reason);
}

std::vector<int> replace_failed_nodes(CoordinatorState& state) {
  std::vector<int> moved;
  for (std::size_t i = 0; i < state.instances.size(); ++i) {
    const Node& n = state.nodes[static_cast<std::size_t>(state.instances[i].node)];
    // An excluded node's instance moves whether or not its launcher is still there (a
    // takeover excludes the lost coordinator's node).
    if (n.excluded.empty() && (n.session < 0 || n.health == Health::Ready || n.failed_checks.empty())) {
      continue;
    }
    const int spare = state.ready_spare();
    if (spare < 0) break;
    replace_node(state, static_cast<int>(i), spare,
                 n.excluded.empty() ? n.failed_text() : "excluded: " + n.excluded);
    moved.push_back(static_cast<int>(i));
  }
  return moved;
}

CheckOutcome handle_failed_checks(CoordinatorState& state, int node) {
  Node& n = state.nodes.at(static_cast<std::size_t>(node));
  if (const int spare = state.ready_spare(); spare >= 0) {
    replace_node(state, n.instance, spare, n.failed_text());
    return CheckOutcome::Replaced;
  }
  const int max_attempts = std::max(1, state.plan.sanity_check.max_attempts);
  if (n.check_attempt < max_attempts) {
    request_checks(state, node, false);
    return CheckOutcome::Retrying;
  }
  if (state.phase == Phase::Rendezvous && state.spare_may_join()) {
    // Spares start as slowly as any node: one may still join and take this instance.
    state.record(journal::WaitingForSpare{.node = n.name, .checks = n.failed_checks},
                 n.name + " " + n.failed_text() + "; waiting for a spare to join");
    return CheckOutcome::Waiting;
  }
  const std::string attempts =
      n.check_attempt == 1 ? "once" : std::to_string(n.check_attempt) + " times";
  std::string reason =
      "node " + n.name + " " + n.failed_text() + " " + attempts + " with no ready spare left";
  if (!n.check_summary.empty()) reason += ": " + n.check_summary;
  state.finish_job(1, reason,
                   journal::JobFailed{
                       .reason = reason, .exit_code = 1, .node = n.name, .checks = n.failed_checks},
                   "job failed: " + reason);
  return CheckOutcome::JobFailed;
}

bool assign_all(CoordinatorState& state, const std::string& why) {
  const std::vector<Host> hosts = state.instance_hosts();
  Plan placed = state.plan;
  try {
    place(placed, hosts);
  } catch (const std::invalid_argument& e) {
    const std::string reason = std::string("cannot place the job on its nodes: ") + e.what();
    state.finish_job(1, reason, journal::JobFailed{.reason = reason, .exit_code = 1},
                     "job failed: " + reason);
    return false;
  }
  state.placed = std::move(placed);

  journal::Assignment record;
  for (std::size_t i = 0; i < state.instances.size(); ++i) {
    const Node& n = state.nodes[static_cast<std::size_t>(state.instances[i].node)];
    record.instances.push_back({state.instance_name(static_cast<int>(i)), n.name, n.host.address});
  }
  const Endpoint& master = state.placed.master;
  record.master = {master.host, master.address, master.port};
  state.record(std::move(record), why + "; MASTER_ADDR " + master.address + ":" +
                                      std::to_string(master.port) + " (" + master.host + ")");
  net::Assign assign{0, net::host_changes(net::planned_hosts(state.plan), hosts)};
  for (std::size_t i = 0; i < state.instances.size(); ++i) {
    assign.instance = static_cast<int>(i);
    state.send_to_node(state.instances[i].node, assign);
  }
  return true;
}

net::Assign assign_message(const CoordinatorState& state, int instance) {
  return net::Assign{instance,
                     net::host_changes(net::planned_hosts(state.plan), state.instance_hosts())};
}

}  // namespace pai::launcher::coordinator
