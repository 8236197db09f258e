#include "launcher/commands/coordinator_ha.h"

#include <charconv>
#include <sstream>

#include "launcher/os/signals.h"

namespace pai::launcher {

namespace {

constexpr std::chrono::milliseconds kPoll{100};

}  // namespace

std::string leader_value(const std::string& node, const std::string& address, int port) {
  return node + " " + address + " " + std::to_string(port);
}

std::optional<HaLeader> parse_leader(const ha::Leader& leader) {
  std::istringstream in(leader.value);
  HaLeader out;
  std::string port;
  std::string extra;
  if (!(in >> out.node >> out.address >> port) || (in >> extra)) return std::nullopt;
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), out.port);
  if (ec != std::errc() || end != port.data() + port.size() || out.port < 1 || out.port > 65535) {
    return std::nullopt;
  }
  out.revision = leader.revision;
  return out;
}

std::string state_key(const std::string& job, const std::string& seal) {
  return "pai/jobs/" + job + "/" + seal.substr(0, 16) + "/state";
}

CoordinatorHa::CoordinatorHa(const Plan& plan, const std::string& node, const std::string& address)
    : plan_(plan), node_(node) {
  ha::ElectionOptions options;
  options.etcd.endpoints = plan.coordinator_ha.etcd;
  options.job = plan.name;
  options.seal = plan.seal;
  options.lease = std::chrono::seconds(plan.coordinator_ha.lease_seconds);
  options.address = leader_value(node, address, plan.coordinator.port);
  try {
    election_ = std::make_unique<ha::CoordinatorElection>(std::move(options));
  } catch (const ha::EtcdError& e) {
    throw std::runtime_error(std::string("coordinator.ha: cannot take a lease from etcd: ") +
                             e.what());
  }
}

CoordinatorHa::~CoordinatorHa() {
  stopping_ = true;
  if (watcher_.joinable()) watcher_.join();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    publisher_.reset();
  }
  election_.reset();
}

std::optional<HaLeader> CoordinatorHa::lead(Clock::time_point deadline) {
  try {
    const auto led = election_->lead(deadline, [] { return pending_stop_signal() != 0; });
    if (!led) return std::nullopt;
    std::lock_guard<std::mutex> lock(mutex_);
    led_ = *led;
    return parse_leader(*led);
  } catch (const ha::EtcdCancelled&) {
    return std::nullopt;
  }
}

std::optional<HaLeader> CoordinatorHa::find_leader(const std::string& lost,
                                                   Clock::time_point deadline, std::string* error) {
  for (;;) {
    try {
      if (const auto leader = election_->leader()) {
        const auto parsed = parse_leader(*leader);
        if (!parsed) {
          *error = "the election's leader has a value that is not NODE ADDRESS PORT";
        } else if (parsed->node != lost) {
          return parsed;
        } else {
          *error = "the lost coordinator on " + lost + " still leads";
        }
      } else {
        *error = "no launcher leads";
      }
    } catch (const ha::EtcdError& e) {
      *error = e.what();
    }
    if (Clock::now() + kPoll >= deadline || pending_stop_signal() != 0) return std::nullopt;
    std::this_thread::sleep_for(kPoll);
  }
}

std::optional<HaLeader> CoordinatorHa::current_leader() {
  try {
    if (const auto leader = election_->leader()) return parse_leader(*leader);
  } catch (const ha::EtcdError&) {
  }
  return std::nullopt;
}

void CoordinatorHa::stand_by() {
  if (standing_) return;
  standing_ = true;
  election_->stand_by([this](const ha::Leader& led) {
    std::lock_guard<std::mutex> lock(mutex_);
    led_ = led;
    by_standing_ = true;
  });
}

std::optional<HaLeader> CoordinatorHa::elected() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!by_standing_) return std::nullopt;
  return parse_leader(*led_);
}

void CoordinatorHa::watch(std::function<void(const std::string&)> step_down) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!led_) return;
    publisher_ = std::make_unique<ha::StatePublisher>(election_->etcd(), *led_,
                                                      state_key(plan_.name, plan_.seal));
  }
  if (watcher_.joinable()) return;
  watcher_ = std::thread([this, step_down = std::move(step_down)] {
    while (!stopping_) {
      if (!election_->may_act()) {
        const std::string error = election_->lease().last_error();
        step_down("its etcd lease may have expired" + (error.empty() ? "" : ": " + error));
        return;
      }
      std::optional<ha::Leader> led;
      std::string why;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!resign_why_.empty()) {
          why = resign_why_;
          led = led_;
        }
      }
      if (!why.empty()) {
        step_down(why);
        try {
          election_->etcd().resign(*led);
        } catch (const ha::EtcdError&) {
          // Unreachable: the lease lapses instead, and the next candidate leads then.
        }
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
}

void CoordinatorHa::resign(const std::string& why) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (resign_why_.empty()) resign_why_ = why.empty() ? "resigned" : why;
}

void CoordinatorHa::publish(const coordinator::TakeoverState& state) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (publisher_) publisher_->publish(to_json(state).dump());
}

std::optional<coordinator::TakeoverState> CoordinatorHa::read_state(std::string* problem) {
  std::optional<std::string> text;
  try {
    text = election_->etcd().get(state_key(plan_.name, plan_.seal));
  } catch (const ha::EtcdError& e) {
    *problem = std::string("cannot read the lost coordinator's state from etcd: ") + e.what();
    return std::nullopt;
  }
  if (!text) return std::nullopt;
  const auto json = nlohmann::json::parse(*text, nullptr, false);
  try {
    if (json.is_discarded()) throw coordinator::TakeoverStateError("not JSON");
    return coordinator::takeover_state_from_json(json, plan_.placements.size(),
                                                 plan_.hosts.size() + plan_.spares.size() + 1);
  } catch (const coordinator::TakeoverStateError& e) {
    *problem = std::string("the lost coordinator's state in etcd is refused: ") + e.what();
    return std::nullopt;
  }
}

}  // namespace pai::launcher
