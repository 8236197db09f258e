#include "launcher/logs/goodput.h"

#include <algorithm>
#include <limits>
#include <utility>
#include <variant>
#include <vector>

namespace pai::launcher::goodput {

namespace {

// Framework init of a process that never reached a step: framework init in a job whose ranks
// record steps, "running (no step data)" in one whose ranks record none (known at the end).
constexpr std::size_t kInitNoStep = kCauses;
constexpr std::size_t kBuckets = kCauses + 1;
using Buckets = std::array<double, kBuckets>;

constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::min();
// Seconds of a backoff or a hang interval beyond this are taken as this (a year): their
// milliseconds stay far from overflow whatever a journal says.
constexpr std::int64_t kMaxSeconds = 365LL * 24 * 3600;

std::size_t bucket(Cause c) { return static_cast<std::size_t>(c); }

std::int64_t seconds_ms(std::int64_t seconds) {
  return std::clamp<std::int64_t>(seconds, 0, kMaxSeconds) * 1000;
}

bool running(Cause c) {
  return c == Cause::FrameworkInit || c == Cause::Productive || c == Cause::Rollback ||
         c == Cause::CheckpointStall;
}

// One rank of an instance (the k-th process an attempt starts), the same over attempts.
struct Slot {
  Cause cause = Cause::StartUp;
  std::int64_t since_ms = 0;
  std::int64_t first_ms = 0;  // when this journal first counted it
  int first_attempt = 0;
  int attempt = 0;
  bool alive = false;                    // its process runs
  std::int64_t backoff_end_ms = kNever;  // while in RestartBackoff
  bool has_step = false;                 // this attempt's process reported a step
  std::int64_t last_step = 0;
  std::int64_t last_step_ms = 0;
  std::int64_t last_progress_ms = 0;  // the last record whose step moved
  bool has_max = false;
  std::int64_t max_step = 0;   // the highest step ever
  std::int64_t prior_max = 0;  // the highest step before this attempt
  bool rolling_back = false;   // this attempt recomputes steps below prior_max
  // The spans credited as rollback since the rank's last `steps` record: the rollback's end,
  // found only at the next one, may lie before some of them (a checkpoint began in between).
  std::vector<std::pair<std::int64_t, std::int64_t>> rollback_spans;
  Cause before_stall = Cause::Productive;
  bool ended = false;  // its journal recorded the end of the launcher's work
};

// A coordinator's decision, applied to the instances' journals in time order.
struct Decision {
  std::int64_t ms = 0;
  bool hang = false;  // else a restart
  std::string instance;
  bool job_wide = false;
  std::int64_t seconds = 0;  // the hang's silence, or the restart's delay
};

struct AttemptTotals {
  std::int64_t first_ms = std::numeric_limits<std::int64_t>::max();
  std::int64_t last_ms = kNever;
  Buckets seconds{};
};

}  // namespace

const char* to_string(Cause cause) {
  switch (cause) {
    case Cause::StartUp:
      return "start-up";
    case Cause::RendezvousChecks:
      return "rendezvous-and-checks";
    case Cause::FrameworkInit:
      return "framework-init";
    case Cause::Productive:
      return "productive";
    case Cause::CheckpointStall:
      return "checkpoint-stall";
    case Cause::HangWait:
      return "hang-detection-wait";
    case Cause::StopTeardown:
      return "stop-and-teardown";
    case Cause::RestartBackoff:
      return "restart-backoff";
    case Cause::Rollback:
      return "rollback";
    case Cause::StragglerLoss:
      return "straggler-loss";
    case Cause::IdleSpare:
      return "idle-spare";
    case Cause::RunningNoStepData:
      return "running-no-step-data";
    case Cause::Unknown:
      return "unknown";
  }
  return "unknown";
}

double CauseSeconds::total() const {
  double sum = 0;
  for (double s : seconds) sum += s;
  return sum;
}

double Account::wall_seconds() const {
  return last_ms > first_ms ? static_cast<double>(last_ms - first_ms) / 1000.0 : 0.0;
}

double Account::ettr() const {
  const double all = causes.total();
  return all > 0 ? causes[Cause::Productive] / all : 0.0;
}

double Account::checkpoint_cost_seconds() const {
  return checkpoint_saves > 0 ? checkpoint_save_seconds / static_cast<double>(checkpoint_saves)
                              : 0.0;
}

struct Accountant::Impl {
  // The job so far.
  std::int64_t first_ms = std::numeric_limits<std::int64_t>::max();
  std::int64_t last_ms = kNever;
  std::map<int, AttemptTotals> attempts;
  std::map<int, std::pair<std::int64_t, std::int64_t>> warm_cold;  // per attempt
  std::vector<Slot> done;            // slots of journals read, their tails open until the job's end
  std::vector<std::int64_t> spares;  // when each spare's journal starts
  std::int64_t ranks_per_node = 0;
  std::vector<Decision> decisions;
  bool step_data = false;
  std::int64_t skipped = 0;
  std::int64_t saves = 0;    // saves that stalled ranks and ended
  std::int64_t save_ms = 0;  // their wall time

  // The journal being read.
  bool coordinator = false;
  bool spare = false;
  std::vector<Slot> slots;
  std::map<std::int64_t, std::size_t> rank_slot;  // this attempt's ranks
  std::size_t next_slot = 0;
  int attempt = 0;
  std::vector<const Decision*> pending;  // the coordinator's, for this instance, in time order
  std::size_t next_pending = 0;
  std::int64_t journal_last = kNever;
  std::int64_t stall_since_ms = kNever;  // the save that stalls this instance's ranks

  void credit(int a, std::size_t b, std::int64_t from, std::int64_t to, double weight = 1) {
    if (to <= from) return;
    AttemptTotals& t = attempts[a];
    t.seconds[b] += weight * static_cast<double>(to - from) / 1000.0;
    t.first_ms = std::min(t.first_ms, from);
    t.last_ms = std::max(t.last_ms, to);
  }

  // Credits the slot's current cause up to `ms` (never before its start: records of one
  // journal may be out of order by a clock step).
  void close(Slot& s, std::int64_t ms) {
    ms = std::max(ms, s.since_ms);
    if (s.cause == Cause::RestartBackoff && s.backoff_end_ms < ms) {
      const std::int64_t mid = std::max(s.backoff_end_ms, s.since_ms);
      credit(s.attempt, bucket(Cause::RestartBackoff), s.since_ms, mid);
      credit(s.attempt, bucket(Cause::RendezvousChecks), mid, ms);
    } else if (s.cause == Cause::FrameworkInit && !s.has_step) {
      credit(s.attempt, kInitNoStep, s.since_ms, ms);
    } else if (s.cause == Cause::Rollback) {
      credit(s.attempt, bucket(Cause::Rollback), s.since_ms, ms);
      if (ms > s.since_ms) s.rollback_spans.emplace_back(s.since_ms, ms);
    } else {
      credit(s.attempt, bucket(s.cause), s.since_ms, ms);
    }
    s.since_ms = ms;
  }

  void set(Slot& s, std::int64_t ms, Cause next) {
    if (s.cause == next) return;
    close(s, ms);
    s.cause = next;
  }

  void ensure_slots(std::int64_t n, std::int64_t ms) {
    n = std::clamp<std::int64_t>(n, 0, 1 << 16);
    while (static_cast<std::int64_t>(slots.size()) < n) {
      Slot s;
      s.since_ms = s.first_ms = ms;
      s.first_attempt = s.attempt = attempt;
      slots.push_back(s);
    }
    ranks_per_node = std::max(ranks_per_node, static_cast<std::int64_t>(slots.size()));
  }

  Slot* slot_of(std::int64_t rank) {
    const auto it = rank_slot.find(rank);
    return it == rank_slot.end() ? nullptr : &slots[it->second];
  }

  // The slots a record of `rank` is about: its own, or every running one when the rank is
  // unknown (a step from a process pai does not know, a checkpoint of the instance).
  template <typename F>
  void for_rank(std::int64_t rank, F f) {
    if (rank >= 0) {
      if (Slot* s = slot_of(rank); s != nullptr && s->alive) f(*s);
      return;
    }
    for (Slot& s : slots) {
      if (s.alive) f(s);
    }
  }

  void hang(std::int64_t ms, std::int64_t seconds) {
    for (Slot& s : slots) {
      if (!s.alive || !running(s.cause)) continue;
      // The verdict knows the silence to the second; the journal's `steps` records come at
      // most every 10 s, so the last one that moved may be long before the last progress.
      const std::int64_t silent_since = ms - seconds_ms(seconds);
      const std::int64_t from =
          s.has_step ? std::max(s.last_progress_ms, silent_since) : silent_since;
      set(s, std::clamp(from, s.since_ms, std::max(ms, s.since_ms)), Cause::HangWait);
      set(s, ms, Cause::StopTeardown);
    }
  }

  void restart(std::int64_t ms, std::int64_t seconds) {
    for (Slot& s : slots) {
      s.alive = false;
      if (s.cause == Cause::RestartBackoff) continue;
      set(s, ms, Cause::RestartBackoff);
      s.backoff_end_ms = std::max(ms, s.since_ms) + seconds_ms(seconds);
    }
  }

  void stop_running(std::int64_t ms) {
    stall_since_ms = kNever;  // a save cut off by a stop is no measure of a save's cost
    for (Slot& s : slots) {
      if (s.alive && running(s.cause)) set(s, ms, Cause::StopTeardown);
    }
  }

  void step(Slot& s, std::int64_t ms, std::int64_t step) {
    step_data = true;
    if (!s.has_step) {
      s.has_step = true;
      s.rolling_back = s.has_max && step < s.prior_max;
      set(s, ms, s.rolling_back ? Cause::Rollback : Cause::Productive);
      s.last_progress_ms = ms;
    } else {
      if (s.rolling_back && step >= s.prior_max && step > s.last_step) {
        // The step passed where an earlier attempt got: the rollback ends in between.
        // In doubles: steps are whatever a rank said, their differences may not fit.
        const double part = (static_cast<double>(s.prior_max) - static_cast<double>(s.last_step)) /
                            (static_cast<double>(step) - static_cast<double>(s.last_step));
        const std::int64_t at =
            s.last_step_ms +
            static_cast<std::int64_t>(
                static_cast<double>(std::max<std::int64_t>(ms - s.last_step_ms, 0)) * part);
        s.rolling_back = false;
        end_rollback_spans(s, at);
        if (s.cause == Cause::Rollback) {
          set(s, at, Cause::Productive);
        } else if (s.before_stall == Cause::Rollback) {
          s.before_stall = Cause::Productive;
        }
      }
      if (step > s.last_step) s.last_progress_ms = ms;
    }
    s.last_step = step;
    s.last_step_ms = ms;
    s.rollback_spans.clear();
    if (!s.has_max || step > s.max_step) s.max_step = step;
    s.has_max = true;
  }

  // The rollback's spans since the rank's last `steps` record that lie after `at`, where the
  // rollback turned out to end, were productive.
  void end_rollback_spans(Slot& s, std::int64_t at) {
    for (const auto& [from, to] : s.rollback_spans) {
      const std::int64_t begin = std::max(from, at);
      if (begin >= to) continue;
      credit(s.attempt, bucket(Cause::Rollback), begin, to, -1);
      credit(s.attempt, bucket(Cause::Productive), begin, to);
    }
    s.rollback_spans.clear();
  }

  // Applies the coordinator's decisions made before a node's record of `before`. Of the same
  // millisecond, a restart comes after the node's records (a rank's exit is journaled before
  // the restart it causes), a hang before them (its verdict is journaled before the stops it
  // causes, often within the millisecond).
  void apply_pending(std::int64_t before) {
    while (next_pending < pending.size() &&
           (pending[next_pending]->ms < before ||
            (pending[next_pending]->ms == before && pending[next_pending]->hang))) {
      const Decision& d = *pending[next_pending++];
      if (d.hang) {
        hang(d.ms, d.seconds);
      } else {
        restart(d.ms, d.seconds);
      }
    }
  }

  void add_coordinator(const journal::Entry& e) {
    if (const auto* r = std::get_if<journal::Restart>(&e.event)) {
      decisions.push_back({e.unix_ms, false, r->instance, false, r->delay_seconds.value_or(0)});
    } else if (const auto* h = std::get_if<journal::Hang>(&e.event)) {
      decisions.push_back({e.unix_ms, true, h->instance, h->job_wide, h->seconds});
    }
  }

  void add_node(const journal::Entry& e);
  void end_journal();
};

void Accountant::Impl::add_node(const journal::Entry& e) {
  const std::int64_t ms = e.unix_ms;
  apply_pending(ms);
  const journal::Event& ev = e.event;
  if (spare) {
    if (std::holds_alternative<journal::LauncherStarted>(ev)) spares.back() = ms;
    return;
  }
  if (const auto* l = std::get_if<journal::LauncherStarted>(&ev)) {
    ensure_slots(std::max<std::int64_t>(l->processes, 1), ms);
    for (Slot& s : slots) {
      s.alive = false;
      s.ended = false;
      set(s, ms, Cause::RendezvousChecks);
    }
  } else if (const auto* st = std::get_if<journal::Start>(&ev)) {
    ensure_slots(std::max<std::int64_t>(st->processes.value_or(1), 1), ms);
    attempt = std::max(st->attempt, 0);
    stall_since_ms = kNever;
    for (Slot& s : slots) {
      close(s, ms);
      s.rollback_spans.clear();
      s.cause = Cause::StartUp;
      s.attempt = attempt;
      s.alive = false;
    }
    rank_slot.clear();
    next_slot = 0;
  } else if (const auto* p = std::get_if<journal::ProcessStarted>(&ev)) {
    if (rank_slot.count(p->rank) == 0) {
      ensure_slots(static_cast<std::int64_t>(next_slot) + 1, ms);
      rank_slot[p->rank] = next_slot++;
    }
    if (p->warm) ++(*p->warm ? warm_cold[attempt].first : warm_cold[attempt].second);
    Slot& s = *slot_of(p->rank);
    set(s, ms, Cause::FrameworkInit);
    s.alive = true;
    s.has_step = false;
    s.rolling_back = false;
    s.prior_max = s.max_step;
  } else if (const auto* x = std::get_if<journal::Exit>(&ev)) {
    if (Slot* s = slot_of(x->rank); s != nullptr && s->alive) {
      set(*s, ms, Cause::StopTeardown);
      s->alive = false;
    }
  } else if (const auto* f = std::get_if<journal::SpawnFailed>(&ev)) {
    if (Slot* s = slot_of(f->rank)) set(*s, ms, Cause::StopTeardown);
  } else if (const auto* sr = std::get_if<journal::Steps>(&ev)) {
    for_rank(sr->rank, [&](Slot& s) { step(s, ms, sr->step); });
  } else if (std::holds_alternative<journal::CheckpointStarted>(ev)) {
    // A save stalls the instance's ranks: they meet the saving rank at the next collective.
    bool stalled = false;
    for_rank(-1, [&](Slot& s) {
      if (s.cause != Cause::Productive && s.cause != Cause::Rollback) return;
      s.before_stall = s.cause;
      set(s, ms, Cause::CheckpointStall);
      stalled = true;
    });
    if (stalled && stall_since_ms == kNever) stall_since_ms = ms;
  } else if (std::holds_alternative<journal::CheckpointResumed>(ev) ||
             std::holds_alternative<journal::Checkpoint>(ev) ||
             std::holds_alternative<journal::CheckpointFailed>(ev) ||
             std::holds_alternative<journal::CheckpointAbandoned>(ev)) {
    // The stall ends when training resumes (an asynchronous save says so as it returns; its
    // write overlaps training), else when the save ends; the save's end after its
    // `checkpoint-resumed` finds nothing stalled.
    for (Slot& s : slots) {
      if (s.cause == Cause::CheckpointStall) set(s, ms, s.before_stall);
    }
    if (stall_since_ms != kNever) {
      ++saves;
      save_ms += std::max<std::int64_t>(ms - stall_since_ms, 0);
      stall_since_ms = kNever;
    }
  } else if (const auto* h = std::get_if<journal::Hang>(&ev)) {
    hang(ms, h->seconds);
  } else if (std::holds_alternative<journal::Stop>(ev)) {
    stop_running(ms);
  } else if (const auto* r = std::get_if<journal::Restart>(&ev)) {
    restart(ms, r->backoff_seconds.value_or(r->delay_seconds.value_or(0)));
  } else if (std::holds_alternative<journal::JobSucceeded>(ev) ||
             std::holds_alternative<journal::JobFailed>(ev) ||
             std::holds_alternative<journal::JobCancelled>(ev) ||
             std::holds_alternative<journal::Finish>(ev) ||
             std::holds_alternative<journal::CoordinatorLost>(ev) ||
             std::holds_alternative<journal::NodeStopping>(ev) ||
             std::holds_alternative<journal::Signal>(ev)) {
    stop_running(ms);
    for (Slot& s : slots) s.ended = true;
  }
}

void Accountant::Impl::end_journal() {
  if (coordinator || spare) return;
  apply_pending(std::numeric_limits<std::int64_t>::max());
  for (Slot& s : slots) {
    close(s, journal_last);
    done.push_back(s);
  }
}

Accountant::Accountant() : impl_(std::make_unique<Impl>()) {}
Accountant::~Accountant() = default;

void Accountant::begin_journal(bool coordinator, const std::string& folder) {
  Impl& m = *impl_;
  m.coordinator = coordinator;
  m.spare = !coordinator && folder.rfind("spare-", 0) == 0;
  m.slots.clear();
  m.rank_slot.clear();
  m.next_slot = 0;
  m.attempt = 0;
  m.journal_last = kNever;
  m.stall_since_ms = kNever;
  m.pending.clear();
  m.next_pending = 0;
  if (!coordinator) {
    for (const Decision& d : m.decisions) {
      if (d.job_wide || d.instance == folder) m.pending.push_back(&d);
    }
    std::stable_sort(m.pending.begin(), m.pending.end(),
                     [](const Decision* a, const Decision* b) { return a->ms < b->ms; });
  }
  if (m.spare) m.spares.push_back(kNever);
}

void Accountant::add(const journal::Entry& entry) {
  Impl& m = *impl_;
  m.first_ms = std::min(m.first_ms, entry.unix_ms);
  m.last_ms = std::max(m.last_ms, entry.unix_ms);
  m.journal_last = std::max(m.journal_last, entry.unix_ms);
  if (m.spare && m.spares.back() == kNever) m.spares.back() = entry.unix_ms;
  if (m.coordinator) {
    m.add_coordinator(entry);
  } else {
    m.add_node(entry);
  }
}

void Accountant::end_journal(std::int64_t skipped_lines) {
  impl_->skipped += std::max<std::int64_t>(skipped_lines, 0);
  impl_->end_journal();
}

Account Accountant::finish() const { return finish_at(kNever); }

Account Accountant::finish_live(std::int64_t now_ms) const {
  return finish_at(std::max(now_ms, kNever + 1));
}

Account Accountant::finish_at(std::int64_t live_now_ms) const {
  Impl m = *impl_;  // the tails are closed on a copy: finish may be called again
  Account out;
  out.step_data = m.step_data;
  out.skipped_lines = m.skipped;
  out.checkpoint_saves = m.saves;
  out.checkpoint_save_seconds = static_cast<double>(m.save_ms) / 1000.0;
  if (m.last_ms == kNever) return out;
  const bool live = live_now_ms != kNever;
  if (live) m.last_ms = std::max(m.last_ms, live_now_ms);
  out.first_ms = m.first_ms;
  out.last_ms = m.last_ms;
  for (Slot& s : m.done) {
    m.credit(s.first_attempt, bucket(Cause::StartUp), m.first_ms, s.first_ms);
    if (s.ended || live) {
      m.close(s, m.last_ms);
    } else {
      m.credit(s.attempt, bucket(Cause::Unknown), s.since_ms, m.last_ms);
    }
  }
  // A spare's ranks are idle for the whole job: once it takes an instance, that instance's
  // ranks count its work and its own stand for the node it replaced. Split over attempts at
  // their starts, so that each attempt's ranks are all its nodes'.
  const std::int64_t spare_ranks = std::max<std::int64_t>(m.ranks_per_node, 1);
  std::vector<std::pair<int, std::int64_t>> starts;
  for (const auto& [a, t] : m.attempts) starts.emplace_back(a, t.first_ms);
  if (starts.empty()) starts.emplace_back(0, m.first_ms);
  std::int64_t spares = 0;  // spares whose journal holds a record
  for (std::int64_t begin : m.spares) {
    if (begin == kNever) continue;
    ++spares;
    std::int64_t from = m.first_ms;
    for (std::size_t i = 0; i < starts.size(); ++i) {
      const std::int64_t to =
          i + 1 < starts.size() ? std::clamp(starts[i + 1].second, from, m.last_ms) : m.last_ms;
      const std::int64_t idle_from = std::clamp(begin, from, to);
      const double w = static_cast<double>(spare_ranks);
      m.credit(starts[i].first, bucket(Cause::StartUp), from, idle_from, w);
      m.credit(starts[i].first, bucket(Cause::IdleSpare), idle_from, to, w);
      from = to;
    }
  }
  out.rank_slots = static_cast<std::int64_t>(m.done.size()) + spares * spare_ranks;
  for (const auto& [a, t] : m.attempts) {
    AttemptAccount acc;
    acc.attempt = a;
    acc.first_ms = t.first_ms;
    acc.last_ms = t.last_ms;
    for (int c = 0; c < kCauses; ++c) acc.causes.seconds[c] = t.seconds[c];
    acc.causes[m.step_data ? Cause::FrameworkInit : Cause::RunningNoStepData] +=
        t.seconds[kInitNoStep];
    for (int c = 0; c < kCauses; ++c) out.causes.seconds[c] += acc.causes.seconds[c];
    if (auto it = m.warm_cold.find(a); it != m.warm_cold.end()) {
      acc.warm_starts = it->second.first;
      acc.cold_starts = it->second.second;
    }
    out.attempts.push_back(acc);
  }
  if (!m.step_data) {
    out.notes.push_back(
        "no rank recorded a step: framework init, productive steps, checkpoint stalls and "
        "rollback are not measured; the ranks' running time is running-no-step-data, and the "
        "ETTR is 0");
  }
  out.notes.push_back(
      "straggler loss is not measured: the journals do not record how long ranks waited for "
      "each other, so that time is counted as productive");
  if (m.skipped > 0) {
    out.notes.push_back(std::to_string(m.skipped) +
                        " journal lines were skipped (not a record, an unknown event, cut off "
                        "or oversized); their time went to the causes around them");
  }
  return out;
}

}  // namespace pai::launcher::goodput
