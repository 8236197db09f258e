// Drives a CoordinatorMachine as its server would, without sockets: sessions per node, a clock
// that only moves when the test says so, and queries over the actions since the last clear().
#pragma once

#include <catch2/catch.hpp>
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "launcher/checks/check_result_json.h"
#include "launcher/coordinator/coordinator_machine.h"
#include "launcher/net/host_changes.h"
#include "launcher/net/message.h"
#include "launcher/net/protocol.h"
#include "support/plan_fixture.h"

namespace pai::launcher::coordinator::testing {

using namespace std::chrono_literals;

/// Checks that all pass: gpu (with a driver fact) and burn.
inline Json passing_checks(const std::string& driver = "550.54.15") {
  checks::CheckResult gpu =
      checks::make_result("gpu", checks::CheckResult::Passed, "8x NVIDIA H100 80GB HBM3");
  gpu.facts = {{"driver", driver}};
  const checks::CheckResult burn =
      checks::make_result("burn", checks::CheckResult::Passed, "412.3 TFLOPS");
  return Json::parse(checks::to_json(std::vector<checks::CheckResult>{gpu, burn}));
}

/// gpu passes, `check` fails with `summary`.
inline Json failing_checks(const std::string& check = "burn",
                           const std::string& summary = "12.1 TFLOPS below the floor of 100.5") {
  const checks::CheckResult gpu =
      checks::make_result("gpu", checks::CheckResult::Passed, "8x NVIDIA H100 80GB HBM3");
  const checks::CheckResult bad = checks::make_result(check, checks::CheckResult::Failed, summary);
  return Json::parse(checks::to_json(std::vector<checks::CheckResult>{gpu, bad}));
}

/// An `exited` report of a failed rank.
inline Json exited(int instance, int local_rank, int code, int signal, bool retryable,
                   const std::string& reason, bool stopping = false) {
  return net::to_json(net::Exited{
      .instance = instance,
      .local_rank = local_rank,
      .status = {.code = code, .signal = signal},
      .classification = {.retryable = retryable,
                         .reason = reason,
                         .matched_line = "",
                         .signature = retryable ? "pattern:NCCL error" : "exit:1"},
      .stopping = stopping});
}

class MachineHarness {
 public:
  explicit MachineHarness(Plan p = pai::testing::make_test_plan(), CoordinatorSettings s = {})
      : plan(std::move(p)),
        settings(s),
        start(Clock::time_point{} + 1h),
        now(start),
        machine(plan, settings, start) {}

  Plan plan;
  CoordinatorSettings settings;
  Clock::time_point start;
  Clock::time_point now;
  CoordinatorMachine machine;
  std::vector<Action> log;              ///< actions since clear()
  std::map<std::string, int> sessions;  ///< node or control name -> session
  int next_session = 1;

  void clear() { log.clear(); }

  const std::vector<Action>& take(std::vector<Action> actions) {
    log.insert(log.end(), actions.begin(), actions.end());
    last = std::move(actions);
    return last;
  }

  /// The plan address of `node` (hosts and spares).
  std::string address_of(const std::string& node) const {
    for (const auto* list : {&plan.hosts, &plan.spares}) {
      for (const Host& h : *list) {
        if (h.name == node) return h.address;
      }
    }
    return "192.0.2.1";
  }

  int connect(const std::string& node, const std::string& address = "",
              const std::string& kind = "launcher") {
    const int id = next_session++;
    sessions[node] = id;
    take(
        machine.connected(id, Peer{kind, node, address.empty() ? address_of(node) : address}, now));
    return id;
  }

  int control(const std::string& host = "admin-host") {
    return connect(host, "192.0.2.10", "control");
  }

  void receive(int session, const Json& message) { take(machine.received(session, message, now)); }
  void receive(const std::string& name, const Json& message) {
    receive(sessions.at(name), message);
  }

  int join(const std::string& node, const Json& checks = passing_checks(),
           const std::string& address = "") {
    const int id = connect(node, address);
    receive(id, Json{{"type", "join"}, {"node", node}, {"checks", checks}, {"pid", 4242}});
    return id;
  }

  /// Joins node-0, node-1 and node-2 (the plan's three instances) with passing checks.
  void join_all() {
    for (const Placement& p : plan.placements) join(p.host.name);
  }

  void disconnect(const std::string& name, const std::string& why = "missed 5 heartbeats") {
    take(machine.disconnected(sessions.at(name), why, now));
  }

  /// Time passes by `d`: the machine is ticked at each of its deadlines on the way, as the
  /// server's timer does, then at the end. (A stalled coordinator is `now += d` untold.)
  void advance(std::chrono::milliseconds d) {
    const Clock::time_point target = now + d;
    // A deadline already due is ticked where it is; one the tick leaves in place ends the walk.
    for (int steps = 0; steps < 100000; ++steps) {
      const auto next = machine.next_deadline();
      if (!next || *next >= target) break;
      const bool due = *next <= now;
      now = std::max(now, *next);
      take(machine.tick(now));
      const auto after = machine.next_deadline();
      if (due && after && *after <= now) break;
    }
    now = target;
    take(machine.tick(now));
  }

  /// Messages of `type` sent to `name`'s session since clear().
  std::vector<Json> sent(const std::string& name, const std::string& type) const {
    return sent_to(sessions.at(name), type);
  }
  std::vector<Json> sent_to(int session, const std::string& type) const {
    std::vector<Json> out;
    for (const Action& a : log) {
      if (const auto* s = std::get_if<Send>(&a)) {
        if (s->session == session && s->message.value("type", "") == type)
          out.push_back(s->message);
      }
    }
    return out;
  }
  /// The one message of `type` sent to `name` since clear().
  Json only(const std::string& name, const std::string& type) const {
    auto messages = sent(name, type);
    INFO("messages of type " << type << " sent to " << name);
    REQUIRE(messages.size() == 1);
    return messages[0];
  }

  std::vector<Record> records(const std::string& kind) const {
    std::vector<Record> out;
    for (const Action& a : log) {
      if (const auto* r = std::get_if<Record>(&a)) {
        if (r->kind == kind) out.push_back(*r);
      }
    }
    return out;
  }

  bool closed(const std::string& name) const {
    for (const Action& a : log) {
      if (const auto* c = std::get_if<Close>(&a)) {
        if (c->session == sessions.at(name)) return true;
      }
    }
    return false;
  }

  std::optional<Finish> finish() const {
    for (const Action& a : log) {
      if (const auto* f = std::get_if<Finish>(&a)) return *f;
    }
    return std::nullopt;
  }

  /// `name` reports the last process of `instance` gone.
  void stopped(const std::string& name, int instance) {
    receive(name, Json{{"type", "stopped"}, {"instance", instance}});
  }

  /// `name` answers run-checks.
  void checks(const std::string& name, const Json& results = passing_checks()) {
    receive(name, Json{{"type", "checks"}, {"checks", results}});
  }

 private:
  std::vector<Action> last;
};

/// The host of every instance an `assign` message gives, its changes applied to `plan`'s.
inline std::vector<pai::Host> assigned_hosts(const pai::Plan& plan, const Json& assign) {
  return net::apply_host_changes(net::planned_hosts(plan), net::parse_host_changes(assign.at("hosts")));
}

}  // namespace pai::launcher::coordinator::testing
