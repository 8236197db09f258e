#include "launcher/report/history_builder.h"

#include <algorithm>
#include <climits>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "launcher/report/root_cause.h"

namespace pai::launcher::report {

namespace {

constexpr std::size_t kMaxText = 600;           // a mark's or event's text
constexpr std::size_t kMaxSummary = 16 * 1024;  // a failure summary
constexpr std::size_t kMaxVerdicts = 5;         // diagnosis verdicts quoted in the root cause
constexpr std::size_t kMaxReasons = 64;         // distinct restart reasons tallied

std::string clip(std::string text, std::size_t max = kMaxText) {
  return clip_text(std::move(text), max);
}

// A key's marks, merged (compact_marks) whenever there are more than kMaxMarksPerLane; each
// merge starts from the slot width the last one reached.
struct MarkList {
  std::vector<Mark> marks;
  std::int64_t slot_ms = 1000;
  void add(Mark m) {
    marks.push_back(std::move(m));
    if (marks.size() > kMaxMarksPerLane) compact_marks(marks, kMaxMarksPerLane, &slot_ms);
  }
};

struct AttemptBuild {
  std::string node;
  bool node_from_coordinator = false;
  std::int64_t start_ms = LLONG_MAX;
  std::int64_t last_ms = LLONG_MIN;
  bool exited = false;  // a process of it exited (or could not start): it ended by last_ms
  AttemptEnd end = AttemptEnd::Unknown;
};

// How a journal ended the job.
struct End {
  std::int64_t unix_ms = 0;  // when the journal says the job ended
  JournalRecord record;
  int rank = 0;  // job-* beats finish
};

}  // namespace

struct JobHistoryBuilder::Impl {
  // The journal being read.
  bool coordinator = false;
  std::string folder;
  std::string journal_node;                     // its launcher's node (launcher-started)
  std::map<std::string, std::int64_t> current;  // instance -> its attempt in this journal

  bool has_coordinator = false;
  std::string job;
  std::int64_t first_ms = LLONG_MAX;
  std::int64_t last_ms = LLONG_MIN;
  std::map<std::pair<std::string, std::int64_t>, AttemptBuild> attempts;
  std::map<std::string, MarkList> instance_marks;  // placed on a node by time at the end
  std::map<std::string, MarkList> node_marks;
  MarkList job_marks;
  std::map<std::string, std::string> node_hint;  // instance -> node, when no attempt says
  std::set<std::string> nodes;
  StepRate steps{kMaxStepBuckets};
  std::int64_t restarts = 0, hangs = 0, failures = 0, verdicts = 0;
  std::int64_t job_restarts = 0;  // the highest restart count: restarts of the job in sync mode
  std::multimap<std::int64_t, KeyEvent> key_events;
  std::int64_t key_events_left_out = 0;
  std::optional<End> coordinator_end, instance_end;
  std::deque<std::string> verdict_texts;
  std::string stack_culprit;
  std::string failure_summary;
  std::map<std::string, std::int64_t> restart_reasons;
  std::vector<JournalInfo> journals;

  void key_event(std::int64_t ms, std::string where, std::string what, std::string text) {
    key_events.emplace(ms, KeyEvent{ms, std::move(where), std::move(what), clip(std::move(text))});
    if (key_events.size() > kMaxKeyEvents) {
      key_events.erase(key_events.begin());
      ++key_events_left_out;
    }
  }

  // A mark about `instance` (or, without one, the journal's node).
  void instance_mark(const std::string& instance, Mark m) {
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

  void node_mark(const std::string& node, Mark m) {
    m.text = clip(std::move(m.text));
    if (node.empty()) {
      job_marks.add(std::move(m));
      return;
    }
    nodes.insert(node);
    node_marks[node].add(std::move(m));
  }

  AttemptBuild* current_attempt(const std::string& instance) {
    const auto it = current.find(instance);
    if (it == current.end()) return nullptr;
    return &attempts[{instance, it->second}];
  }

  void set_end(const std::string& instance, AttemptEnd end) {
    if (AttemptBuild* a = current_attempt(instance);
        a != nullptr && a->end == AttemptEnd::Unknown) {
      a->end = end;
    }
  }

  void add(const JournalRecord& r);
  void add_checks(const JournalRecord& r);
  void end_candidate(const JournalRecord& r, int rank);
  JobHistory finish(const std::string& log_dir);
  RootCause root_cause() const;
  std::string lane_of(const std::string& instance, std::int64_t ms) const;
};

void JobHistoryBuilder::Impl::add(const JournalRecord& r) {
  first_ms = std::min(first_ms, r.unix_ms);
  last_ms = std::max(last_ms, r.unix_ms);
  const std::string& e = r.event;
  const std::string instance = r.text("instance").value_or("");
  // With the coordinator's journal, it alone tells the instances' starts, failures, restarts
  // and hangs; the instances' journals say the same a second time.
  const bool decisions = coordinator || !has_coordinator;
  if (job.empty() && (e == "launcher-started" || e.rfind("job-", 0) == 0)) {
    job = r.text("job").value_or("");
  }

  if (e == "launcher-started") {
    journal_node = r.text("node").value_or("");
    if (!journal_node.empty()) nodes.insert(journal_node);
    if (!instance.empty() && instance.rfind("spare-", 0) != 0) node_hint[instance] = journal_node;
    current.clear();
    return;
  }
  if (e == "start" && !instance.empty()) {
    const std::int64_t n = r.integer("attempt").value_or(0);
    current[instance] = n;
    AttemptBuild& a = attempts[{instance, n}];
    a.start_ms = std::min(a.start_ms, r.unix_ms);
    a.last_ms = std::max(a.last_ms, r.unix_ms);
    const std::string node = coordinator ? r.text("node").value_or("") : journal_node;
    if (!node.empty() && (a.node.empty() || (coordinator && !a.node_from_coordinator))) {
      a.node = node;
      a.node_from_coordinator = coordinator;
    }
    if (!node.empty()) nodes.insert(node);
    return;
  }
  if (!instance.empty()) {
    if (AttemptBuild* a = current_attempt(instance)) {
      a->last_ms = std::max(a->last_ms, r.unix_ms);
      if (e == "exit" || e == "exited" || e == "spawn-failed") a->exited = true;
    }
  }
  // Steps: any record that says where an instance was.
  if (const auto step = r.integer("step"); step && *step >= 0 && !instance.empty()) {
    const auto rank = r.integer("rank");
    steps.sample(instance + (rank ? "/" + std::to_string(*rank) : ""), r.unix_ms, *step);
  }

  if (e == "check" && decisions) {
    const std::string status = r.text("status").value_or("");
    node_mark(journal_node,
              Mark{r.unix_ms, status == "failed" ? MarkKind::CheckFailed : MarkKind::CheckPassed,
                   "check " + r.text("name").value_or("?") + ": " + status + ": " +
                       r.text("summary").value_or(""),
                   1});
    if (status == "failed") {
      key_event(r.unix_ms, journal_node, "check failed",
                r.text("name").value_or("?") + ": " + r.text("summary").value_or(""));
    }
  } else if ((e == "join" || e == "checks") && coordinator) {
    add_checks(r);
  } else if (e == "exit" && decisions) {
    const std::string why = r.text("classification").value_or("");
    if (r.integer("exitCode").value_or(0) != 0 && why != "stopped by pai-launch") {
      ++failures;
      std::string text = "rank " + r.text("rank").value_or("?") + ": " +
                         r.text("status").value_or("") + ": " + why;
      const std::string line = r.text("matchedLine").value_or("");
      if (!line.empty()) text += " | " + line;
      set_end(instance, AttemptEnd::Failed);
      key_event(r.unix_ms, instance, "failure", text);
      instance_mark(instance, Mark{r.unix_ms, MarkKind::Failure, text, 1});
    }
  } else if (e == "exited" && coordinator) {
    bool failed = false;
    const std::string status = exit_status_text(r.object("status"), &failed);
    if (!r.flag("stopping").value_or(false) && failed) {
      ++failures;
      const std::string text = "local rank " + r.text("localRank").value_or("?") + ": " + status +
                               ": " + r.text("reason").value_or("");
      set_end(instance, AttemptEnd::Failed);
      key_event(r.unix_ms, instance, "failure", text);
      instance_mark(instance, Mark{r.unix_ms, MarkKind::Failure, text, 1});
    }
  } else if (e == "spawn-failed" && decisions) {
    ++failures;
    const std::string text = "rank " + r.text("rank").value_or("?") +
                             " could not start: " + r.text("error").value_or("");
    set_end(instance, AttemptEnd::Failed);
    key_event(r.unix_ms, instance, "failure", text);
    instance_mark(instance, Mark{r.unix_ms, MarkKind::Failure, text, 1});
  } else if (e == "failure" && coordinator) {
    failure_summary = clip(r.text("summary").value_or(""), kMaxSummary);
  } else if (e == "restart" && decisions) {
    ++restarts;
    job_restarts = std::max(job_restarts, r.integer("attempt").value_or(1));
    const std::string reason = r.text("reason").value_or("");
    const auto backoff = r.integer(coordinator ? "delaySeconds" : "backoffSeconds");
    const std::string text = "restart " + r.text("attempt").value_or("?") +
                             (backoff ? " in " + std::to_string(*backoff) + "s" : "") + ": " +
                             reason;
    if (restart_reasons.count(reason) || restart_reasons.size() < kMaxReasons) {
      ++restart_reasons[clip(reason)];
    }
    key_event(r.unix_ms, instance, "restart", text);
    instance_mark(instance, Mark{r.unix_ms, MarkKind::Restart, text, 1});
  } else if (e == "hang" && decisions) {
    ++hangs;
    std::string text =
        r.flag("exiting").value_or(false)
            ? "ranks still running " + r.text("seconds").value_or("?") + "s after one exited"
            : "no output or progress for " + r.text("seconds").value_or("?") + "s";
    if (r.flag("jobWide").value_or(false)) text = "job-wide hang: " + text;
    if (const RecordFields culprit = r.object("culprit"); !culprit.fields.empty()) {
      text += "; culprit " + culprit.text("class").value_or("?") + ": rank " +
              culprit.text("rank").value_or("?") + " on " + culprit.text("node").value_or("?");
    }
    if (const auto step = r.integer("lastStep"); step && *step >= 0) {
      text += "; last step " + std::to_string(*step);
    }
    set_end(instance, AttemptEnd::Hung);
    key_event(r.unix_ms, instance, "hang", text);
    instance_mark(instance, Mark{r.unix_ms, MarkKind::Hang, text, 1});
  } else if (e == "diagnosis") {
    ++verdicts;
    const std::string node = r.text("node").value_or("");
    const std::string text = r.text("class").value_or("?") + " (" +
                             r.text("severity").value_or("?") +
                             "): " + r.text("evidence").value_or("");
    verdict_texts.push_back(clip(text));
    if (verdict_texts.size() > kMaxVerdicts) verdict_texts.pop_front();
    key_event(r.unix_ms, node, "diagnosis", text);
    node_mark(node, Mark{r.unix_ms, MarkKind::Diagnosis, text, 1});
  } else if (e == "forensics" && decisions) {
    const std::string evidence = r.text("evidence").value_or("");
    std::string culprits = r.text(coordinator ? "culprits" : "culprit").value_or("");
    if (culprits == "-1") culprits.clear();
    if (!culprits.empty() && !evidence.empty()) stack_culprit = clip(evidence);
    const std::string text =
        evidence.empty() ? "stacks collected in " + r.text("folder").value_or("?") : evidence;
    if (!culprits.empty()) key_event(r.unix_ms, instance, "forensics", text);
    instance_mark(instance, Mark{r.unix_ms, MarkKind::Forensics, text, 1});
  } else if (e == "node-replaced") {
    const std::string node = r.text("node").value_or("");
    const std::string spare = r.text("spare").value_or("");
    const std::string reason = r.text("reason").value_or("");
    key_event(r.unix_ms, node, e, "replaced by spare " + spare + " as " + instance + ": " + reason);
    node_mark(node, Mark{r.unix_ms, MarkKind::NodeChange,
                         "replaced by spare " + spare + " as " + instance + ": " + reason, 1});
    node_mark(spare, Mark{r.unix_ms, MarkKind::NodeChange,
                          "took " + instance + " from " + node + ": " + reason, 1});
  } else if (e == "node-lost" || e == "node-excluded" || e == "disconnected" || e == "spare-lost" ||
             e == "waiting-for-spare") {
    std::string text = e + (instance.empty() ? "" : " (" + instance + ")");
    for (const char* key : {"reason", "class"}) {
      if (const auto v = r.text(key); v && !v->empty()) text += ": " + *v;
    }
    if (e != "disconnected") key_event(r.unix_ms, r.text("node").value_or(""), e, text);
    node_mark(r.text("node").value_or(""), Mark{r.unix_ms, MarkKind::NodeChange, text, 1});
  } else if (e == "notify") {
    instance_mark(instance, Mark{r.unix_ms, MarkKind::Notify, r.text("message").value_or(""), 1});
  } else if (e == "checkpoint" || e == "checkpoint-failed") {
    const std::string step = r.text("step").value_or("?");
    instance_mark(
        instance,
        Mark{r.unix_ms, MarkKind::Checkpoint,
             e == "checkpoint"
                 ? "checkpoint of step " + step + ": " + r.text("path").value_or("")
                 : "checkpoint of step " + step + " failed: " + r.text("reason").value_or(""),
             1});
  } else if (e == "signal") {
    node_mark(journal_node,
              Mark{r.unix_ms, MarkKind::Signal,
                   "the launcher received signal " + r.text("signal").value_or("?"), 1});
  } else if (e == "kill") {
    const std::string by = r.text("by").value_or("");
    instance_mark(
        instance,
        Mark{r.unix_ms, MarkKind::Signal,
             by.empty() ? "SIGKILL: " + r.text("reason").value_or("") : "killed by " + by, 1});
  } else if (e == "diagnosis-restart") {
    std::string suspects;
    for (const std::string& node : r.strings("suspects")) {
      suspects += (suspects.empty() ? "" : ", ") + node;
    }
    key_event(r.unix_ms, "", e, "restarted to test the links of " + suspects);
  } else if (e == "paused" || e == "resumed") {
    const std::string text = "job " + e + " by " + r.text("by").value_or("?");
    key_event(r.unix_ms, "", e, text);
    job_marks.add(Mark{r.unix_ms, MarkKind::Signal, clip(text), 1});
  } else if (e == "assignment" && coordinator) {
    for (const RecordFields& row : r.objects("instances")) {
      const std::string inst = row.text("instance").value_or("");
      const std::string node = row.text("node").value_or("");
      if (!inst.empty() && !node.empty()) {
        node_hint[inst] = node;
        nodes.insert(node);
      }
    }
  } else if (e == "assigned" && !journal_node.empty() && !instance.empty()) {
    node_hint.emplace(instance, journal_node);
  } else if (e == "job-succeeded" || e == "job-failed" || e == "job-cancelled") {
    end_candidate(r, 2);
  } else if (e == "finish") {
    end_candidate(r, 1);
  }
}

void JobHistoryBuilder::Impl::add_checks(const JournalRecord& r) {
  const std::string node = r.text("node").value_or("");
  const std::vector<RecordFields> checks = r.objects("checks");
  std::string failed;
  const std::size_t count = checks.size();
  for (const RecordFields& c : checks) {
    if (c.text("status") == "failed") {
      failed += (failed.empty() ? "" : "; ") + c.text("name").value_or("?") + ": " +
                c.text("summary").value_or("");
    }
  }
  const bool ready = r.flag("ready").value_or(failed.empty());
  if (count == 0 && ready) return;  // checks disabled: nothing ran
  if (ready) {
    node_mark(node,
              Mark{r.unix_ms, MarkKind::CheckPassed, std::to_string(count) + " checks passed", 1});
  } else {
    const std::string text = "checks failed: " + (failed.empty() ? "not ready" : failed);
    key_event(r.unix_ms, node, "check failed", text);
    node_mark(node, Mark{r.unix_ms, MarkKind::CheckFailed, text, 1});
  }
}

void JobHistoryBuilder::Impl::end_candidate(const JournalRecord& r, int rank) {
  std::optional<End>& slot = coordinator ? coordinator_end : instance_end;
  if (slot && (slot->rank > rank || (slot->rank == rank && slot->unix_ms > r.unix_ms))) return;
  slot = End{r.unix_ms, r, rank};
}

RootCause JobHistoryBuilder::Impl::root_cause() const {
  RootCauseEvidence ev;
  const std::optional<End>& end = coordinator_end ? coordinator_end : instance_end;
  if (end) ev.end = &end->record;
  ev.job_restarts = job_restarts;
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

void JobHistoryBuilder::add(const JournalRecord& record) { impl_->add(record); }

void JobHistoryBuilder::end_journal(const JournalInfo& info) { impl_->journals.push_back(info); }

JobHistory JobHistoryBuilder::finish(const std::string& log_dir) { return impl_->finish(log_dir); }

}  // namespace pai::launcher::report
