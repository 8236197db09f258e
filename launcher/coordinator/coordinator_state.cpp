#include "launcher/coordinator/coordinator_state.h"

#include <cstdio>
#include <stdexcept>
#include <utility>

#include "launcher/logs/journal_json.h"

namespace pai::launcher::coordinator {

std::string Node::failed_text() const {
  return (failed_checks.find(',') == std::string::npos ? "failed check " : "failed checks ") +
         failed_checks;
}

std::string Node::problem(int max_attempts) const {
  if (session < 0) return "no connection";
  const std::string failed = failed_text();
  switch (health) {
    case Health::Ready:
      return "ready";
    case Health::Failed:
      return failed;
    case Health::Checking:
      if (failed_checks.empty()) return "running checks";
      return failed + ", re-running checks (attempt " + std::to_string(check_attempt) + " of " +
             std::to_string(max_attempts) + ")";
    case Health::Absent:
      break;
  }
  return "no connection";
}

CoordinatorState::CoordinatorState(Plan loaded, CoordinatorSettings s, Clock::time_point now)
    : plan(std::move(loaded)), placed(plan), settings(s), started(now) {
  if (plan.placements.empty()) throw std::invalid_argument("the plan has no placements");
  instances.resize(plan.placements.size());
  auto add = [&](const Host& host) {
    if (!node_index.emplace(host.name, static_cast<int>(nodes.size())).second) return;
    Node node;
    node.name = host.name;
    node.host = host;
    nodes.push_back(std::move(node));
  };
  for (std::size_t i = 0; i < plan.placements.size(); ++i) {
    const Host& host = plan.placements[i].host;
    if (find_node(host.name) >= 0) {
      throw std::invalid_argument("the plan places two instances on host " + host.name);
    }
    add(host);
    nodes.back().instance = static_cast<int>(i);
    instances[i].node = static_cast<int>(nodes.size()) - 1;
  }
  // Inventory hosts beyond the instances serve as spares, like the listed spares.
  for (const Host& host : plan.hosts) add(host);
  for (const Host& host : plan.spares) add(host);
}

int CoordinatorState::find_node(const std::string& name) const {
  const auto it = node_index.find(name);
  return it == node_index.end() ? -1 : it->second;
}

std::string CoordinatorState::instance_name(int instance) const {
  const Placement& p = placed.placements.at(static_cast<std::size_t>(instance));
  return p.role + "-" + std::to_string(p.index);
}

int CoordinatorState::find_instance(const std::string& name) const {
  const auto dash = name.rfind('-');
  // At most 9 digits: an index that fits an int.
  if (dash == std::string::npos || dash + 1 == name.size() || name.size() - dash > 10 ||
      name.find_first_not_of("0123456789", dash + 1) != std::string::npos) {
    return -1;
  }
  const Placement* p =
      pai::find_placement(placed, name.substr(0, dash), std::stoi(name.substr(dash + 1)));
  return p != nullptr ? p->node_rank : -1;
}

int CoordinatorState::ready_spare() const {
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    if (n.instance < 0 && n.session >= 0 && n.health == Health::Ready && n.excluded.empty()) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

bool CoordinatorState::spare_may_join() const {
  for (const Node& n : nodes) {
    if (n.instance >= 0 || !n.replaced_by.empty()) continue;
    if (n.health == Health::Checking || (n.session < 0 && n.check_attempt == 0)) return true;
  }
  return false;
}

bool CoordinatorState::instance_ready(int i) const {
  const Node& n = nodes[static_cast<std::size_t>(instances[static_cast<std::size_t>(i)].node)];
  return n.session >= 0 && n.health == Health::Ready;
}

std::vector<int> CoordinatorState::unready_instances() const {
  std::vector<int> out;
  for (int i = 0; i < static_cast<int>(instances.size()); ++i) {
    if (!instance_ready(i)) out.push_back(i);
  }
  return out;
}

std::vector<Host> CoordinatorState::instance_hosts() const {
  std::vector<Host> hosts;
  hosts.reserve(instances.size());
  for (const Instance& inst : instances) {
    hosts.push_back(nodes[static_cast<std::size_t>(inst.node)].host);
  }
  return hosts;
}

void CoordinatorState::send(int session, const net::CoordinatorToNode& message) {
  out->emplace_back(std::in_place_type<Send>, session, net::to_json(message));
}

void CoordinatorState::send(int session, const net::ControlReply& message) {
  out->emplace_back(std::in_place_type<Send>, session, net::to_json(message));
}

bool CoordinatorState::send_to_node(int node, const net::CoordinatorToNode& message) {
  const int session = nodes.at(static_cast<std::size_t>(node)).session;
  if (session < 0) return false;
  send(session, message);
  return true;
}

Record::Record(journal::Event e, std::string l)
    : event(std::move(e)),
      line(std::move(l)),
      kind(journal::name_of(event)),
      fields(journal::fields_json(event)) {}

void CoordinatorState::record(journal::Event event, std::string line) {
  metrics.recorded(event);
  out->emplace_back(std::in_place_type<Record>, std::move(event), std::move(line));
}

void CoordinatorState::close(int session, const std::string& reason) {
  out->emplace_back(std::in_place_type<Close>, session, reason);
  auto it = sessions.find(session);
  if (it == sessions.end()) return;
  closed.emplace_back(session, reason);
  if (it->second.node >= 0) {
    Node& n = nodes[static_cast<std::size_t>(it->second.node)];
    if (n.session == session) {
      n.session = -1;
      n.health = Health::Absent;
    }
  }
  sessions.erase(it);
}

void CoordinatorState::release(int node, const std::string& reason) {
  const int session = nodes.at(static_cast<std::size_t>(node)).session;
  if (session < 0) return;
  send(session, net::Finish{0, reason});
  close(session, reason);
}

void CoordinatorState::finish_job(int exit_code, const std::string& reason, journal::Event event,
                                  const std::string& line) {
  finish_all(net::Finish{.exit_code = exit_code, .reason = reason}, std::move(event), line);
}

void CoordinatorState::cancel_job(int exit_code, const std::string& who) {
  const std::string reason = "cancelled by " + who;
  finish_all(net::Finish{.exit_code = exit_code, .reason = reason, .cancelled = true},
             journal::JobCancelled{.by = who, .exit_code = exit_code}, "job " + reason);
}

std::string seconds_text(std::chrono::milliseconds d) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1fs", static_cast<double>(d.count()) / 1000.0);
  return text;
}

const char* job_outcome(const net::Finish& finish) {
  if (finish.cancelled) return "cancelled";
  return finish.exit_code == 0 ? "succeeded" : "failed";
}

void CoordinatorState::finish_all(const net::Finish& finish, journal::Event event,
                                  const std::string& line) {
  for (const auto& [id, session] : sessions) {
    if (session.launcher()) send(id, finish);
  }
  record(std::move(event), line);
  std::vector<std::string> absent;
  for (const Node& n : nodes) {
    if (n.session < 0) absent.push_back(n.name);
  }
  out->emplace_back(std::in_place_type<Finish>, finish.exit_code, finish.reason, std::move(absent));
  phase = Phase::Finished;
  ended = finish;
}

std::string name_list(const std::vector<std::string>& names, std::size_t max) {
  std::string text;
  const std::size_t shown = names.size() <= max ? names.size() : max;
  for (std::size_t i = 0; i < shown; ++i) {
    if (i > 0) text += (i + 1 == names.size() ? " and " : ", ");
    text += names[i];
  }
  if (shown < names.size()) text += " and " + std::to_string(names.size() - shown) + " more";
  return text;
}

std::string duration_text(std::chrono::milliseconds duration) {
  const auto ms = duration.count();
  if (ms % 1000 == 0) return std::to_string(ms / 1000) + "s";
  char text[32];
  std::snprintf(text, sizeof text, "%.1fs", static_cast<double>(ms) / 1000.0);
  return text;
}

}  // namespace pai::launcher::coordinator
