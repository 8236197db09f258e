#include "launcher/coordinator/rendezvous.h"

#include <algorithm>

#include "launcher/coordinator/replacement.h"

namespace pai::launcher::coordinator {

namespace {

// Names listed in one progress line before "and N more".
constexpr std::size_t kListedNodes = 8;
// Nodes a progress record lists by name; "waitingMore" counts the rest (at 8,192 nodes the
// whole list made each record 300 KB).
constexpr std::size_t kRecordedNodes = 64;

}  // namespace

Rendezvous::Rendezvous(CoordinatorState& state)
    : state_(state), deadline_(state.started + state.settings.rendezvous_timeout) {}

bool Rendezvous::node_checked(int node, Clock::time_point now) {
  Node& n = state_.nodes.at(static_cast<std::size_t>(node));
  if (n.health != Health::Ready) unready(node);
  if (n.health == Health::Failed) {
    if (n.instance >= 0) {
      if (handle_failed_checks(state_, node) == CheckOutcome::JobFailed) return false;
    } else {
      state_.release(node, "spare " + n.name + " is not used: " + n.failed_text());
    }
  } else if (n.instance < 0) {
    replace_failed_nodes(state_);
  }
  return settle(now);
}

void Rendezvous::node_lost(int node, Clock::time_point now) {
  unready(node);
  settle(now);
}

void Rendezvous::unready(int node) {
  const int instance = state_.nodes.at(static_cast<std::size_t>(node)).instance;
  if (instance >= 0) ready_upto_ = std::min(ready_upto_, static_cast<std::size_t>(instance));
}

bool Rendezvous::complete() {
  const std::size_t total = state_.instances.size();
  while (ready_upto_ < total && state_.instance_ready(static_cast<int>(ready_upto_))) ++ready_upto_;
  if (ready_upto_ < total) return false;
  // Once, at the end: the whole walk, in case an instance went unready unseen (a spare that
  // took it, a node whose checks run again).
  const auto unready = state_.unready_instances();
  if (unready.empty()) return true;
  ready_upto_ = static_cast<std::size_t>(unready.front());
  return false;
}

bool Rendezvous::tick(Clock::time_point now) {
  if (now >= deadline_) {
    for (int instance : state_.unready_instances()) {
      const int spare = state_.ready_spare();
      if (spare < 0) break;
      const Node& n = state_.nodes[static_cast<std::size_t>(
          state_.instances[static_cast<std::size_t>(instance)].node)];
      replace_node(state_, instance, spare,
                   n.problem(state_.plan.sanity_check.max_attempts) + " at the rendezvous timeout");
    }
    if (state_.unready_instances().empty()) return settle(now);
    const std::size_t total = state_.instances.size();
    const std::string reason = "rendezvous timed out after " +
                               duration_text(state_.settings.rendezvous_timeout) + ": " +
                               std::to_string(total - state_.unready_instances().size()) + "/" +
                               std::to_string(total) + " joined; missing " + missing_text(", ");
    state_.finish_job(1, reason, journal::JobFailed{.reason = reason, .exit_code = 1},
                      "job failed: " + reason);
    return false;
  }
  if (dirty_ && last_progress_ && now >= *last_progress_ + state_.settings.progress_interval) {
    progress(now);
  }
  return false;
}

std::optional<Clock::time_point> Rendezvous::next_deadline() const {
  if (state_.phase != Phase::Rendezvous) return std::nullopt;
  Clock::time_point next = deadline_;
  if (dirty_ && last_progress_) {
    next = std::min(next, *last_progress_ + state_.settings.progress_interval);
  }
  return next;
}

bool Rendezvous::settle(Clock::time_point now) {
  if (state_.phase != Phase::Rendezvous) return false;
  dirty_ = true;
  const bool done = complete();
  if (done || !last_progress_ || now >= *last_progress_ + state_.settings.progress_interval) {
    progress(now);
  }
  return done;
}

void Rendezvous::progress(Clock::time_point now) {
  const std::string text = progress_text();
  const auto unready = state_.unready_instances();
  journal::Progress record{
      .ready = static_cast<std::int64_t>(state_.instances.size() - unready.size()),
      .total = static_cast<std::int64_t>(state_.instances.size())};
  for (std::size_t k = 0; k < std::min(unready.size(), kRecordedNodes); ++k) {
    const Node& n = state_.nodes[static_cast<std::size_t>(
        state_.instances[static_cast<std::size_t>(unready[k])].node)];
    record.waiting.push_back({n.name, n.problem(state_.plan.sanity_check.max_attempts)});
  }
  if (unready.size() > kRecordedNodes) {
    record.waiting_more = static_cast<std::int64_t>(unready.size() - kRecordedNodes);
  }
  state_.record(std::move(record), text);
  for (const auto& [id, session] : state_.sessions) {
    if (session.node >= 0) state_.send(id, net::Progress{text});
  }
  last_progress_ = now;
  dirty_ = false;
}

std::string Rendezvous::progress_text() const {
  const std::size_t total = state_.instances.size();
  const std::size_t unready = state_.unready_instances().size();
  std::string text = std::to_string(total - unready) + "/" + std::to_string(total) + " joined";
  if (unready > 0) text += "; waiting for " + missing_text("; ");
  return text;
}

std::string Rendezvous::missing_text(const char* separator) const {
  const auto unready = state_.unready_instances();
  std::string text;
  const std::size_t shown = std::min(unready.size(), kListedNodes);
  for (std::size_t k = 0; k < shown; ++k) {
    const Node& n = state_.nodes[static_cast<std::size_t>(
        state_.instances[static_cast<std::size_t>(unready[k])].node)];
    if (k > 0) text += separator;
    text += n.name + ": " + n.problem(state_.plan.sanity_check.max_attempts);
  }
  if (shown < unready.size()) {
    text += std::string(separator) + "and " + std::to_string(unready.size() - shown) + " more";
  }
  return text;
}

}  // namespace pai::launcher::coordinator
