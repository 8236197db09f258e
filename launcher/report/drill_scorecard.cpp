#include "launcher/report/drill_scorecard.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <sstream>
#include <type_traits>

#include "launcher/report/journal_reader.h"

namespace pai::launcher::report {

namespace {

// How far before a fault the instance's `steps` records count for its highest step: a node
// journals a moving rank's step at least every 10 s.
constexpr std::int64_t kStepsLookBackMs = 15'000;
// How far a node's clock may be behind the coordinator's for its record of a fault to count.
constexpr std::int64_t kClockSkewMs = 2'000;

// The verdict `event` gives on `target`, if it is one: what it says, and whether it names the
// fault's rank (its instance where it names no rank) or, for a fault of the node (node-loss,
// a link's, a full disk's), its node.
struct Verdict {
  std::string text;
  bool named = false;
};

std::optional<Verdict> verdict_of(const journal::Event& event, const DrillInjection& target) {
  const bool of_node = on_node(target.fault);
  if (const auto* e = std::get_if<journal::Exited>(&event)) {
    if (e->stopping) return std::nullopt;  // its stop's, not the fault's
    return Verdict{"exited: " + e->instance + " local rank " + std::to_string(e->local_rank) +
                       " (" + exit_status_text(e->status) + ")",
                   e->instance == target.instance};
  }
  if (const auto* h = std::get_if<journal::Hang>(&event)) {
    if (h->culprit) {
      const bool named = of_node ? h->culprit->node == target.node
                                 : h->culprit->rank == target.rank ||
                                       (h->culprit->rank < 0 && h->culprit->node == target.node);
      return Verdict{"hang: job-wide, culprit rank " + std::to_string(h->culprit->rank) + " on " +
                         h->culprit->node + " (" + h->culprit->cls + ")",
                     named};
    }
    if (h->job_wide) return Verdict{"hang: job-wide, no culprit named", false};
    return Verdict{"hang: " + h->instance, h->instance == target.instance};
  }
  if (const auto* d = std::get_if<journal::Diagnosis>(&event)) {
    const bool named = d->rank >= 0 && !of_node ? d->rank == target.rank : d->node == target.node;
    return Verdict{"diagnosis: " + d->cls +
                       (d->rank >= 0 ? " rank " + std::to_string(d->rank) : "") + " on " + d->node,
                   named};
  }
  if (const auto* n = std::get_if<journal::NodeLost>(&event)) {
    return Verdict{"node-lost: " + n->node, n->node == target.node};
  }
  if (const auto* r = std::get_if<journal::Restart>(&event)) {
    return Verdict{"restart: " + r->instance, r->instance == target.instance};
  }
  return std::nullopt;
}

std::optional<std::string> job_end(const journal::Event& event) {
  if (std::holds_alternative<journal::JobSucceeded>(event)) return "succeeded";
  if (std::holds_alternative<journal::JobFailed>(event)) return "failed";
  if (std::holds_alternative<journal::JobCancelled>(event)) return "cancelled";
  return std::nullopt;
}

std::string seconds_text(std::int64_t ms) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f s", static_cast<double>(ms) / 1000.0);
  return text;
}

}  // namespace

void DrillScorer::begin_journal(bool coordinator) {
  coordinator_ = coordinator;
  if (!coordinator) nodes_began_ = true;
  started_.assign(scores_.size(), false);
}

void DrillScorer::add(const journal::Entry& entry) {
  if (!coordinator_) {
    add_node(entry);
  } else if (!nodes_began_) {
    add_coordinator(entry);
  }
}

void DrillScorer::add_coordinator(const journal::Entry& entry) {
  if (const auto* f = std::get_if<journal::FaultInjected>(&entry.event)) {
    const auto fault = enum_from_string<DrillFault>(f->fault);
    if (!fault || !f->node) return;  // a newer launcher's fault; a node's record
    if (!scores_.empty()) window_end_ms_.back() = entry.unix_ms;
    FaultScore score;
    score.injection = DrillInjection{.fault = *fault,
                                     .instance = f->instance,
                                     .node = *f->node,
                                     .rank = f->rank,
                                     .seconds = f->seconds,
                                     .at_ms = entry.unix_ms};
    scores_.push_back(std::move(score));
    restart_ms_.emplace_back();
    window_end_ms_.push_back(std::numeric_limits<std::int64_t>::max());
    before_max_.emplace_back();
    first_after_ms_.emplace_back();
    first_after_step_.push_back(0);
    checkpoint_.emplace_back();
    return;
  }
  if (scores_.empty()) return;
  FaultScore& score = scores_.back();
  if (!score.detect_ms) {
    if (auto verdict = verdict_of(entry.event, score.injection)) {
      score.detect_ms = std::max<std::int64_t>(0, entry.unix_ms - score.injection.at_ms);
      score.detected_by = std::move(verdict->text);
      score.named_right = verdict->named;
    }
  }
  if (const auto* s = std::get_if<journal::Start>(&entry.event)) {
    if (score.detect_ms && !restart_ms_.back() && s->instance == score.injection.instance) {
      restart_ms_.back() = entry.unix_ms;
      score.restarted = true;
    }
  }
  if (auto end = job_end(entry.event); end && score.job_ended.empty()) score.job_ended = *end;
}

void DrillScorer::add_node(const journal::Entry& entry) {
  if (const auto* f = std::get_if<journal::FaultInjected>(&entry.event)) {
    // The node's record of the latest fault of its kind into its instance the coordinator
    // journaled before it (the hosts' clocks may differ by kClockSkewMs).
    for (std::size_t k = scores_.size(); k-- > 0;) {
      const DrillInjection& target = scores_[k].injection;
      if (to_string(target.fault) != f->fault || target.instance != f->instance) continue;
      if (entry.unix_ms + kClockSkewMs < target.at_ms) continue;
      scores_[k].carried_out = true;
      break;
    }
    return;
  }
  if (const auto* f = std::get_if<journal::CheckpointFailed>(&entry.event)) {
    // A full disk is noticed where the job writes: a save that failed on the node, which no
    // coordinator record may say (the job goes on).
    for (std::size_t k = 0; k < scores_.size(); ++k) {
      FaultScore& score = scores_[k];
      const std::int64_t after = entry.unix_ms - score.injection.at_ms;
      if (score.injection.fault != DrillFault::DiskFull ||
          f->instance != score.injection.instance || after < 0 ||
          entry.unix_ms >= window_end_ms_[k] || (score.detect_ms && *score.detect_ms <= after)) {
        continue;
      }
      score.detect_ms = after;
      score.detected_by = "checkpoint-failed: " + f->instance + " step " + std::to_string(f->step) +
                          " (" + f->reason + ")";
      score.named_right = true;
    }
    return;
  }
  if (const auto* c = std::get_if<journal::Checkpoint>(&entry.event)) {
    // Any instance's: rank 0 saves the job's checkpoint for every rank.
    for (std::size_t k = 0; k < scores_.size(); ++k) {
      if (!restart_ms_[k] || entry.unix_ms >= *restart_ms_[k]) continue;
      if (!checkpoint_[k] || entry.unix_ms >= checkpoint_[k]->first) {
        checkpoint_[k] = std::pair{entry.unix_ms, c->step};
      }
    }
    return;
  }
  if (std::holds_alternative<journal::ProcessStarted>(entry.event)) {
    // The coordinator journals a start after sending it, and a node's clock may be behind its
    // own: the new attempt's first process may carry an earlier time than the restart (the
    // likeliest cause of a recovery missed once), though never one before the verdict.
    for (std::size_t k = 0; k < scores_.size(); ++k) {
      if (!restart_ms_[k] || !scores_[k].detect_ms) continue;
      const std::int64_t from = std::max(*restart_ms_[k] - kClockSkewMs,
                                         scores_[k].injection.at_ms + *scores_[k].detect_ms);
      if (entry.unix_ms >= from && entry.unix_ms < window_end_ms_[k]) started_[k] = true;
    }
    return;
  }
  const auto* s = std::get_if<journal::Steps>(&entry.event);
  if (s == nullptr) return;
  for (std::size_t k = 0; k < scores_.size(); ++k) {
    const DrillInjection& target = scores_[k].injection;
    if (!restart_ms_[k]) continue;
    const std::int64_t t = entry.unix_ms;
    // The highest step before the restart is any instance's: a lost node cannot journal its
    // ranks' last steps, and the ranks of a synchronous job step together. A rank stopped for
    // the restart journals its last step as it exits: before its node starts the new attempt,
    // but at times in the same millisecond as the coordinator's restart or after it.
    if (!started_[k] && t >= target.at_ms - kStepsLookBackMs && t < window_end_ms_[k]) {
      before_max_[k] = std::max(before_max_[k].value_or(s->step), s->step);
    } else if (started_[k] && s->instance == target.instance && t < window_end_ms_[k] &&
               (!first_after_ms_[k] || t < *first_after_ms_[k])) {
      first_after_ms_[k] = t;
      first_after_step_[k] = s->step;
    }
  }
}

std::vector<FaultScore> DrillScorer::scores() const {
  std::vector<FaultScore> out = scores_;
  for (std::size_t k = 0; k < out.size(); ++k) {
    if (!first_after_ms_[k]) continue;
    out[k].recover_ms = *first_after_ms_[k] - out[k].injection.at_ms;
    // Recovered in time: the job ending later is not this fault's.
    out[k].job_ended.clear();
    if (!before_max_[k]) continue;
    const std::int64_t lost = checkpoint_[k] ? *before_max_[k] - checkpoint_[k]->second
                                             : *before_max_[k] - first_after_step_[k] + 1;
    out[k].lost_steps = std::max<std::int64_t>(0, lost);
  }
  return out;
}

std::string verdict_text(const FaultScore& s) {
  std::string out;
  if (!s.detect_ms && !s.carried_out) {
    out = "not detected; no record of the node putting it in (its launcher's output says why)";
  } else if (!s.detect_ms) {
    out = "not detected";
  } else {
    out = s.detected_by;
    if (!s.restarted && bounded(s.injection.fault)) out += "; no restart";
  }
  if (!s.job_ended.empty()) out += "; the job " + s.job_ended + " before it recovered";
  return out;
}

std::string render_scorecard(const std::vector<FaultScore>& scores) {
  std::ostringstream out;
  out << "fault           target                      detect    named  recover   lost steps  "
         "verdict\n";
  for (const FaultScore& s : scores) {
    const DrillInjection& t = s.injection;
    std::string target = on_node(t.fault) ? t.instance + " on " + t.node
                                          : t.instance + " rank " + std::to_string(t.rank);
    char line[160];
    std::snprintf(line, sizeof line, "%-15s %-27s %-9s %-6s %-9s %-11s ", to_string(t.fault),
                  target.c_str(), s.detect_ms ? seconds_text(*s.detect_ms).c_str() : "-",
                  s.detect_ms ? (s.named_right ? "yes" : "NO") : "-",
                  s.recover_ms ? seconds_text(*s.recover_ms).c_str() : "-",
                  s.lost_steps ? std::to_string(*s.lost_steps).c_str() : "-");
    out << line << verdict_text(s) << "\n";
  }
  return out.str();
}

}  // namespace pai::launcher::report
