// What each journal event means for the job's history: one handler per event type
// (history_builder_impl.h), chosen by the event's type, never by its name.
#include <algorithm>
#include <nlohmann/json.hpp>
#include <type_traits>
#include <variant>

#include "launcher/report/history_builder_impl.h"
#include "libpai/rank_name.h"

namespace pai::launcher::report {

namespace {

const std::string& text_of(const std::string& text) { return text; }
std::string text_of(const std::optional<std::string>& text) { return text.value_or(""); }

// Events after which a process of the instance's attempt is gone.
template <class E>
constexpr bool ends_a_process =
    std::is_same_v<E, journal::Exit> || std::is_same_v<E, journal::Exited> ||
    std::is_same_v<E, journal::SpawnFailed>;

}  // namespace

void JobHistoryBuilder::Impl::add(const journal::Entry& entry) {
  first_ms = std::min(first_ms, entry.unix_ms);
  last_ms = std::max(last_ms, entry.unix_ms);
  std::visit([&](const auto& e) { on(entry.unix_ms, e); }, entry.event);
}

// ---- Starts ----

void JobHistoryBuilder::Impl::on(std::int64_t, const journal::LauncherStarted& e) {
  if (job.empty()) job = e.job;
  journal_node = e.node;
  if (!journal_node.empty()) nodes.insert(journal_node);
  if (!e.instance.empty() && e.instance.rfind("spare-", 0) != 0) {
    node_hint[e.instance] = journal_node;
  }
  current.clear();
}

void JobHistoryBuilder::Impl::on(std::int64_t ms, const journal::Start& e) {
  if (e.instance.empty()) return;
  current[e.instance] = e.attempt;
  AttemptBuild& a = attempts[{e.instance, e.attempt}];
  a.start_ms = std::min(a.start_ms, ms);
  a.last_ms = std::max(a.last_ms, ms);
  const std::string node = coordinator ? e.node.value_or("") : journal_node;
  if (!node.empty() && (a.node.empty() || (coordinator && !a.node_from_coordinator))) {
    a.node = node;
    a.node_from_coordinator = coordinator;
  }
  if (!node.empty()) nodes.insert(node);
}

template <class E>
void JobHistoryBuilder::Impl::on(std::int64_t ms, const E& e) {
  track(ms, e);
  handle(ms, e);
}

// What any event says besides its meaning: the job's name (the job-* events), that its
// instance's current attempt was alive then (or lost a process), and the step it stood at.
template <class E>
void JobHistoryBuilder::Impl::track(std::int64_t ms, const E& e) {
  if constexpr (requires { e.job; }) {
    if (job.empty()) job = text_of(e.job);
  }
  if constexpr (requires { e.instance; }) {
    const std::string instance = text_of(e.instance);
    if (instance.empty()) return;
    if (AttemptBuild* a = current_attempt(instance)) {
      a->last_ms = std::max(a->last_ms, ms);
      if constexpr (ends_a_process<E>) a->exited = true;
    }
    if constexpr (requires { e.step; }) {
      if (e.step < 0) return;
      std::string key = instance;
      if constexpr (requires { e.rank; }) {
        if (e.rank >= 0) key += "/" + std::to_string(e.rank);
      }
      steps.sample(key, ms, e.step);
    }
  }
}

// ---- Checks ----

void JobHistoryBuilder::Impl::handle(std::int64_t ms, const journal::Check& e) {
  if (!decides()) return;
  const bool failed = e.status == "failed";
  node_mark(journal_node, Mark{ms, failed ? MarkKind::CheckFailed : MarkKind::CheckPassed,
                               "check " + e.name + ": " + e.status + ": " + e.summary, 1});
  if (failed) key_event(ms, journal_node, "check failed", e.name + ": " + e.summary);
}

void JobHistoryBuilder::Impl::handle(std::int64_t ms, const journal::Join& e) {
  if (coordinator) checks_mark(ms, e.node, e.checks, e.ready);
}

void JobHistoryBuilder::Impl::handle(std::int64_t ms, const journal::Checks& e) {
  if (coordinator) checks_mark(ms, e.node, e.checks, e.ready);
}

void JobHistoryBuilder::Impl::checks_mark(std::int64_t ms, const std::string& node,
                                          const journal::RawJson& checks, bool ready) {
  // The check results are the protocol's (docs/checks.md): name, status, summary are read.
  const nlohmann::json list = nlohmann::json::parse(checks.text, nullptr, false);
  std::string failed;
  std::size_t count = 0;
  for (const auto& c : list.is_array() ? list : nlohmann::json::array()) {
    if (!c.is_object()) continue;
    ++count;
    if (c.value("status", nlohmann::json()) == "failed") {
      const auto name = c.value("name", nlohmann::json());
      const auto summary = c.value("summary", nlohmann::json());
      failed += (failed.empty() ? "" : "; ") + (name.is_string() ? name.get<std::string>() : "?") +
                ": " + (summary.is_string() ? summary.get<std::string>() : "");
    }
  }
  if (count == 0 && ready) return;  // checks disabled: nothing ran
  if (ready) {
    node_mark(node, Mark{ms, MarkKind::CheckPassed, std::to_string(count) + " checks passed", 1});
  } else {
    const std::string text = "checks failed: " + (failed.empty() ? "not ready" : failed);
    key_event(ms, node, "check failed", text);
    node_mark(node, Mark{ms, MarkKind::CheckFailed, text, 1});
  }
}

// ---- Failures, restarts, hangs ----

void JobHistoryBuilder::Impl::failure(std::int64_t ms, const std::string& instance,
                                      const std::string& text) {
  ++failures;
  set_end(instance, AttemptEnd::Failed);
  key_event(ms, instance, "failure", text);
  instance_mark(instance, Mark{ms, MarkKind::Failure, text, 1});
}

void JobHistoryBuilder::Impl::handle(std::int64_t ms, const journal::Exit& e) {
  if (!decides() || e.exit_code == 0 || e.classification == "stopped by pai-launch") return;
  std::string text = to_string(RankName{.rank = static_cast<int>(e.rank), .instance = e.instance}) +
                     ": " + e.status + ": " + e.classification;
  if (!e.matched_line.empty()) text += " | " + e.matched_line;
  failure(ms, e.instance, text);
}

void JobHistoryBuilder::Impl::handle(std::int64_t ms, const journal::Exited& e) {
  if (!coordinator || e.stopping) return;
  bool failed = false;
  const std::string status = exit_status_text(e.status, &failed);
  if (!failed) return;
  failure(
      ms, e.instance,
      to_string(RankName{.instance = e.instance, .local_rank = static_cast<int>(e.local_rank)}) +
          ": " + status + ": " + e.reason);
}

void JobHistoryBuilder::Impl::handle(std::int64_t ms, const journal::SpawnFailed& e) {
  if (!decides()) return;
  failure(ms, e.instance,
          to_string(RankName{.rank = static_cast<int>(e.rank), .instance = e.instance}) +
              " could not start: " + e.error);
}

void JobHistoryBuilder::Impl::handle(std::int64_t, const journal::Failure& e) {
  if (coordinator) failure_summary = clip(e.summary, kMaxSummary);
}

void JobHistoryBuilder::Impl::handle(std::int64_t ms, const journal::Restart& e) {
  if (!decides()) return;
  ++restarts;
  const bool decided = restart_decisions.add(e);
  const std::optional<std::int64_t>& backoff = coordinator ? e.delay_seconds : e.backoff_seconds;
  const std::string text = "restart " + std::to_string(e.attempt) +
                           (backoff ? " in " + std::to_string(*backoff) + "s" : "") + ": " +
                           e.reason;
  if (decided && (restart_reasons.count(clip(e.reason)) || restart_reasons.size() < kMaxReasons)) {
    ++restart_reasons[clip(e.reason)];
  }
  key_event(ms, e.instance, "restart", text);
  instance_mark(e.instance, Mark{ms, MarkKind::Restart, text, 1});
}

void JobHistoryBuilder::Impl::handle(std::int64_t ms, const journal::Hang& e) {
  if (!decides()) return;
  ++hangs;
  const std::string seconds = std::to_string(e.seconds);
  std::string text = e.exiting ? "ranks still running " + seconds + "s after one exited"
                               : "no output or progress for " + seconds + "s";
  if (e.job_wide) text = "job-wide hang: " + text;
  if (e.culprit) {
    text += "; culprit " + e.culprit->cls + ": rank " + std::to_string(e.culprit->rank) + " on " +
            e.culprit->node;
  }
  if (e.last_step && *e.last_step >= 0) text += "; last step " + std::to_string(*e.last_step);
  set_end(e.instance, AttemptEnd::Hung);
  key_event(ms, e.instance, "hang", text);
  instance_mark(e.instance, Mark{ms, MarkKind::Hang, text, 1});
}

void JobHistoryBuilder::Impl::handle(std::int64_t ms, const journal::Diagnosis& e) {
  ++verdicts;
  const std::string text = e.cls + " (" + e.severity + "): " + e.evidence;
  verdict_texts.push_back(clip(text));
  if (verdict_texts.size() > kMaxVerdicts) verdict_texts.pop_front();
  key_event(ms, e.node, "diagnosis", text);
  node_mark(e.node, Mark{ms, MarkKind::Diagnosis, text, 1});
}

void JobHistoryBuilder::Impl::handle(std::int64_t ms, const journal::Forensics& e) {
  if (!decides()) return;
  // The coordinator names the culprits over all nodes; a node its own, -1 for none.
  std::string culprits = e.culprits.value_or("");
  if (!coordinator) culprits = e.culprit && *e.culprit >= 0 ? std::to_string(*e.culprit) : "";
  if (!culprits.empty() && !e.evidence.empty()) stack_culprit = clip(e.evidence);
  const std::string text = e.evidence.empty() ? "stacks collected in " + e.folder : e.evidence;
  if (!culprits.empty()) key_event(ms, e.instance, "forensics", text);
  instance_mark(e.instance, Mark{ms, MarkKind::Forensics, text, 1});
}

void JobHistoryBuilder::Impl::handle(std::int64_t ms, const journal::Nic& e) {
  const std::string text =
      "nic (" + e.severity + "): " + e.port + " " + e.problem + ": " + e.evidence;
  // A critical port is a cause a reader looks for; a warning stays a mark on its node.
  if (e.severity == "critical") key_event(ms, e.node, journal::Nic::kName, text);
  node_mark(e.node, Mark{ms, MarkKind::Diagnosis, text, 1});
}

// ---- Nodes ----

void JobHistoryBuilder::Impl::handle(std::int64_t ms, const journal::NodeReplaced& e) {
  const std::string text = "replaced by spare " + e.spare + " as " + e.instance + ": " + e.reason;
  key_event(ms, e.node, journal::NodeReplaced::kName, text);
  node_mark(e.node, Mark{ms, MarkKind::NodeChange, text, 1});
  node_mark(e.spare, Mark{ms, MarkKind::NodeChange,
                          "took " + e.instance + " from " + e.node + ": " + e.reason, 1});
}

// "node-lost (worker-1): <reason>": what happened to a node, in the event's words.
template <class E>
void JobHistoryBuilder::Impl::node_change(std::int64_t ms, const E& e) {
  std::string instance;
  if constexpr (requires { e.instance; }) instance = text_of(e.instance);
  std::string text = E::kName + (instance.empty() ? "" : " (" + instance + ")");
  if constexpr (requires { e.reason; }) {
    if (const std::string reason = text_of(e.reason); !reason.empty()) text += ": " + reason;
  }
  if constexpr (requires { e.cls; }) {
    if (const std::string cls = text_of(e.cls); !cls.empty()) text += ": " + cls;
  }
  const std::string node = text_of(e.node);
  // A node leaving the rendezvous is no event of the job's run.
  if constexpr (!std::is_same_v<E, journal::Disconnected>) key_event(ms, node, E::kName, text);
  node_mark(node, Mark{ms, MarkKind::NodeChange, text, 1});
}

void JobHistoryBuilder::Impl::handle(std::int64_t ms, const journal::NodeLost& e) {
  node_change(ms, e);
}
void JobHistoryBuilder::Impl::handle(std::int64_t ms, const journal::NodeExcluded& e) {
  node_change(ms, e);
}
void JobHistoryBuilder::Impl::handle(std::int64_t ms, const journal::Disconnected& e) {
  node_change(ms, e);
}
void JobHistoryBuilder::Impl::handle(std::int64_t ms, const journal::SpareLost& e) {
  node_change(ms, e);
}
void JobHistoryBuilder::Impl::handle(std::int64_t ms, const journal::WaitingForSpare& e) {
  node_change(ms, e);
}

void JobHistoryBuilder::Impl::handle(std::int64_t, const journal::Assignment& e) {
  if (!coordinator) return;
  for (const journal::AssignedInstance& row : e.instances) {
    if (row.instance.empty() || row.node.empty()) continue;
    node_hint[row.instance] = row.node;
    nodes.insert(row.node);
  }
}

void JobHistoryBuilder::Impl::handle(std::int64_t, const journal::Assigned& e) {
  if (!journal_node.empty() && !e.instance.empty()) node_hint.emplace(e.instance, journal_node);
}

// ---- Marks of the ranks and the launcher ----

void JobHistoryBuilder::Impl::handle(std::int64_t ms, const journal::Notify& e) {
  instance_mark(e.instance, Mark{ms, MarkKind::Notify, e.message, 1});
}

void JobHistoryBuilder::Impl::handle(std::int64_t ms, const journal::Checkpoint& e) {
  instance_mark(e.instance,
                Mark{ms, MarkKind::Checkpoint,
                     "checkpoint of step " + std::to_string(e.step) + ": " + e.path, 1});
}

void JobHistoryBuilder::Impl::handle(std::int64_t ms, const journal::CheckpointFailed& e) {
  instance_mark(e.instance,
                Mark{ms, MarkKind::Checkpoint,
                     "checkpoint of step " + std::to_string(e.step) + " failed: " + e.reason, 1});
}

void JobHistoryBuilder::Impl::handle(std::int64_t ms, const journal::Signal& e) {
  node_mark(journal_node, Mark{ms, MarkKind::Signal,
                               "the launcher received signal " + std::to_string(e.signal), 1});
}

void JobHistoryBuilder::Impl::handle(std::int64_t ms, const journal::Kill& e) {
  const std::string by = e.by.value_or("");
  instance_mark(e.instance,
                Mark{ms, MarkKind::Signal,
                     by.empty() ? "SIGKILL: " + e.reason.value_or("") : "killed by " + by, 1});
}

void JobHistoryBuilder::Impl::handle(std::int64_t ms, const journal::DiagnosisRestart& e) {
  std::string suspects;
  for (const std::string& node : e.suspects) suspects += (suspects.empty() ? "" : ", ") + node;
  key_event(ms, "", journal::DiagnosisRestart::kName, "restarted to test the links of " + suspects);
}

// ---- Job control and the end ----

void JobHistoryBuilder::Impl::job_control(std::int64_t ms, const char* what,
                                          const std::string& by) {
  const std::string text = std::string("job ") + what + " by " + by;
  key_event(ms, "", what, text);
  job_marks.add(Mark{ms, MarkKind::Signal, clip(text), 1});
}

void JobHistoryBuilder::Impl::handle(std::int64_t ms, const journal::Paused& e) {
  job_control(ms, journal::Paused::kName, e.by);
}
void JobHistoryBuilder::Impl::handle(std::int64_t ms, const journal::Resumed& e) {
  job_control(ms, journal::Resumed::kName, e.by);
}

void JobHistoryBuilder::Impl::handle(std::int64_t ms, const journal::JobSucceeded& e) {
  end_candidate(ms, e, 2);
}
void JobHistoryBuilder::Impl::handle(std::int64_t ms, const journal::JobFailed& e) {
  end_candidate(ms, e, 2);
}
void JobHistoryBuilder::Impl::handle(std::int64_t ms, const journal::JobCancelled& e) {
  end_candidate(ms, e, 2);
}
void JobHistoryBuilder::Impl::handle(std::int64_t ms, const journal::Finish& e) {
  end_candidate(ms, e, 1);
}

void JobHistoryBuilder::Impl::end_candidate(std::int64_t ms, JobEnd end, int rank) {
  std::optional<End>& slot = coordinator ? coordinator_end : instance_end;
  if (slot && (slot->rank > rank || (slot->rank == rank && slot->unix_ms > ms))) return;
  slot = End{ms, std::move(end), rank};
}

}  // namespace pai::launcher::report
