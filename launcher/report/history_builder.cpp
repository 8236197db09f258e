#include "launcher/report/history_builder.h"

#include <algorithm>

#include "launcher/report/history_builder_impl.h"

namespace pai::launcher::report {

std::string clip(std::string text, std::size_t max) { return clip_text(std::move(text), max); }

void MarkList::add(Mark m) {
  marks.push_back(std::move(m));
  if (marks.size() > kMaxMarksPerLane) compact_marks(marks, kMaxMarksPerLane, &slot_ms);
}

void JobHistoryBuilder::Impl::key_event(std::int64_t ms, std::string where, std::string what,
                                        std::string text) {
  key_events.emplace(ms, KeyEvent{ms, std::move(where), std::move(what), clip(std::move(text))});
  if (key_events.size() > kMaxKeyEvents) {
    key_events.erase(key_events.begin());
    ++key_events_left_out;
  }
}

void JobHistoryBuilder::Impl::instance_mark(const std::string& instance, Mark m) {
  m.text = clip(std::move(m.text));
  if (!coordinator && !journal_node.empty()) {
    node_marks[journal_node].add(std::move(m));
  } else if (!instance.empty()) {
    instance_marks[instance].add(std::move(m));
  } else if (!journal_node.empty()) {
    node_marks[journal_node].add(std::move(m));
  } else {
    job_marks.add(std::move(m));
  }
}

void JobHistoryBuilder::Impl::node_mark(const std::string& node, Mark m) {
  m.text = clip(std::move(m.text));
  if (node.empty()) {
    job_marks.add(std::move(m));
    return;
  }
  nodes.insert(node);
  node_marks[node].add(std::move(m));
}

AttemptBuild* JobHistoryBuilder::Impl::current_attempt(const std::string& instance) {
  const auto it = current.find(instance);
  if (it == current.end()) return nullptr;
  return &attempts[{instance, it->second}];
}

void JobHistoryBuilder::Impl::set_end(const std::string& instance, AttemptEnd end) {
  if (AttemptBuild* a = current_attempt(instance); a != nullptr && a->end == AttemptEnd::Unknown) {
    a->end = end;
  }
}

RootCause JobHistoryBuilder::Impl::root_cause() const {
  RootCauseEvidence ev;
  const std::optional<End>& end = coordinator_end ? coordinator_end : instance_end;
  if (end) ev.end = &end->event;
  ev.job_restarts = restart_decisions.count();
  ev.verdicts.assign(verdict_texts.begin(), verdict_texts.end());
  ev.stack_culprit = stack_culprit;
  ev.failure_summary = failure_summary;
  ev.restart_reasons.assign(restart_reasons.begin(), restart_reasons.end());
  if (!key_events.empty()) ev.latest_event = &std::prev(key_events.end())->second;
  return find_root_cause(ev);
}

std::string JobHistoryBuilder::Impl::lane_of(const std::string& instance, std::int64_t ms) const {
  // The node of the instance's attempt that had started by then (else its first attempt).
  const std::string* node = nullptr;
  std::int64_t best = LLONG_MIN;
  for (auto it = attempts.lower_bound({instance, LLONG_MIN});
       it != attempts.end() && it->first.first == instance; ++it) {
    const AttemptBuild& a = it->second;
    if (a.node.empty()) continue;
    if (node == nullptr || (a.start_ms <= ms && a.start_ms > best)) {
      if (a.start_ms <= ms) best = a.start_ms;
      node = &a.node;
    }
  }
  if (node != nullptr) return *node;
  const auto hint = node_hint.find(instance);
  return hint != node_hint.end() ? hint->second : instance;
}

JobHistory JobHistoryBuilder::Impl::finish(const std::string& log_dir) {
  JobHistory h;
  h.job = job;
  h.log_dir = log_dir;
  h.first_ms = first_ms == LLONG_MAX ? 0 : first_ms;
  h.last_ms = last_ms == LLONG_MIN ? 0 : last_ms;
  h.root_cause = root_cause();
  const JobOutcome outcome = h.root_cause.outcome;

  // Attempts, with how they ended: the last of each instance ends with the job. One whose
  // processes were not seen to exit (the coordinator's journal of a sync restart may only say
  // it started) lasts until the next attempt of its instance starts, or the job ends.
  std::map<std::string, NodeLane> lanes;
  const std::optional<End>& job_end = coordinator_end ? coordinator_end : instance_end;
  const std::int64_t end_of_job = job_end ? job_end->unix_ms : h.last_ms;
  std::map<std::string, std::int64_t> last_attempt;
  for (const auto& [key, a] : attempts) {
    if (a.start_ms == LLONG_MAX) continue;  // records of an attempt whose start is not here
    auto& n = last_attempt[key.first];
    n = std::max(n, key.second);
  }
  for (auto it = attempts.begin(); it != attempts.end(); ++it) {
    const auto& [key, a] = *it;
    if (a.start_ms == LLONG_MAX) continue;
    Attempt at;
    at.instance = key.first;
    at.number = key.second;
    at.start_ms = a.start_ms;
    at.end_ms = std::max(a.start_ms, a.last_ms);
    at.end = a.end;
    const bool latest = last_attempt[key.first] == key.second;
    if (!a.exited) {
      const auto next = std::next(it);
      const bool has_next = next != attempts.end() && next->first.first == key.first &&
                            next->second.start_ms != LLONG_MAX;
      at.end_ms = std::max(at.end_ms, has_next ? next->second.start_ms : end_of_job);
    }
    if (at.end == AttemptEnd::Unknown) {
      switch (outcome) {
        case JobOutcome::Succeeded:
          at.end = latest ? AttemptEnd::Succeeded : AttemptEnd::Stopped;
          break;
        case JobOutcome::Cancelled:
          at.end = latest ? AttemptEnd::Cancelled : AttemptEnd::Stopped;
          break;
        case JobOutcome::Failed:
          at.end = AttemptEnd::Stopped;
          break;
        case JobOutcome::Unfinished:
          at.end = latest ? AttemptEnd::Running : AttemptEnd::Stopped;
          if (latest) at.end_ms = h.last_ms;
          break;
      }
    }
    const std::string node = a.node.empty() ? lane_of(key.first, a.start_ms) : a.node;
    NodeLane& lane = lanes[node];
    lane.node = node;
    lane.attempts.push_back(std::move(at));
    ++h.attempts;
  }
  for (auto& [instance, list] : instance_marks) {
    for (Mark& m : list.marks) {
      const std::string node = lane_of(instance, m.unix_ms);
      node_marks[node].add(std::move(m));
    }
  }
  for (auto& [node, list] : node_marks) {
    NodeLane& lane = lanes[node];
    lane.node = node;
    compact_marks(list.marks, kMaxMarksPerLane);
    lane.marks = std::move(list.marks);
  }
  for (const std::string& node : nodes) lanes[node].node = node;

  std::vector<std::string> names;
  for (const auto& [name, lane] : lanes) names.push_back(name);
  std::sort(names.begin(), names.end(), natural_less);
  for (const std::string& name : names) {
    if (h.lanes.size() >= kMaxLanes) {
      ++h.lanes_left_out;
      continue;
    }
    NodeLane lane = std::move(lanes[name]);
    std::sort(lane.attempts.begin(), lane.attempts.end(),
              [](const Attempt& a, const Attempt& b) { return a.start_ms < b.start_ms; });
    merge_attempts(lane.attempts, kMaxAttemptsPerLane);
    h.lanes.push_back(std::move(lane));
  }

  compact_marks(job_marks.marks, kMaxMarksPerLane);
  h.job_marks = std::move(job_marks.marks);
  h.step_rate = steps.buckets();
  h.step_samples = steps.samples();
  h.restarts = restarts;
  h.job_restarts = restart_decisions.count();
  h.hangs = hangs;
  h.failures = failures;
  h.verdicts = verdicts;
  for (auto& [ms, event] : key_events) h.key_events.push_back(std::move(event));
  h.key_events_left_out = key_events_left_out;
  h.journals = std::move(journals);
  return h;
}

JobHistoryBuilder::JobHistoryBuilder() : impl_(std::make_unique<Impl>()) {}
JobHistoryBuilder::~JobHistoryBuilder() = default;

void JobHistoryBuilder::begin_journal(bool coordinator, const std::string& folder) {
  impl_->coordinator = coordinator;
  impl_->folder = folder;
  impl_->journal_node.clear();
  impl_->current.clear();
  if (coordinator) impl_->has_coordinator = true;
}

void JobHistoryBuilder::add(const journal::Entry& entry) { impl_->add(entry); }

void JobHistoryBuilder::end_journal(const JournalInfo& info) { impl_->journals.push_back(info); }

JobHistory JobHistoryBuilder::finish(const std::string& log_dir) { return impl_->finish(log_dir); }

}  // namespace pai::launcher::report
