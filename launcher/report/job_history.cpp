#include "launcher/report/job_history.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <utility>

#include "libpai/utf8.h"

namespace pai::launcher::report {

std::string clip_text(std::string text, std::size_t max) {
  if (text.size() <= max) return text;
  std::size_t end = 0;
  while (end < max) {
    const std::size_t n = utf8_sequence_length(text, end);
    if (end + (n == 0 ? 1 : n) > max) break;
    end += n == 0 ? 1 : n;
  }
  text.resize(end);
  return text + "...";
}

void compact_marks(std::vector<Mark>& marks, std::size_t cap, std::int64_t* slot_ms) {
  std::stable_sort(marks.begin(), marks.end(),
                   [](const Mark& a, const Mark& b) { return a.unix_ms < b.unix_ms; });
  constexpr std::int64_t kWidest = std::int64_t{1} << 50;  // 35,000 years
  std::int64_t width =
      slot_ms != nullptr ? std::clamp<std::int64_t>(*slot_ms, 1000, kWidest) : 1000;
  while (marks.size() > cap / 2) {
    std::vector<Mark> merged;
    std::vector<std::pair<std::int64_t, std::size_t>> slot_of_kind(kMarkKinds, {LLONG_MIN, 0});
    for (Mark& m : marks) {
      auto& [slot, at] = slot_of_kind[static_cast<int>(m.kind)];
      const std::int64_t s = m.unix_ms / width;
      if (slot == s) {
        merged[at].count += m.count;
      } else {
        slot = s;
        at = merged.size();
        merged.push_back(std::move(m));
      }
    }
    marks = std::move(merged);
    // The width that was enough is where the next merge starts.
    if (marks.size() <= cap / 2 || width >= kWidest) break;
    width *= 2;
  }
  if (slot_ms != nullptr) *slot_ms = width;
}

namespace {

// Which end a merged bar shows: a failure or hang among its attempts before anything else.
int severity(AttemptEnd end) {
  switch (end) {
    case AttemptEnd::Failed:
      return 6;
    case AttemptEnd::Hung:
      return 5;
    case AttemptEnd::Running:
      return 4;
    case AttemptEnd::Cancelled:
      return 3;
    case AttemptEnd::Succeeded:
      return 2;
    case AttemptEnd::Stopped:
      return 1;
    case AttemptEnd::Unknown:
      return 0;
  }
  return 0;
}

}  // namespace

void merge_attempts(std::vector<Attempt>& attempts, std::size_t cap) {
  while (attempts.size() > cap) {
    std::vector<Attempt> merged;
    for (std::size_t k = 0; k < attempts.size(); ++k) {
      Attempt a = std::move(attempts[k]);
      if (k + 1 < attempts.size() && attempts[k + 1].instance == a.instance) {
        const Attempt& b = attempts[++k];
        a.end_ms = std::max(a.end_ms, b.end_ms);
        if (severity(b.end) > severity(a.end)) a.end = b.end;
        a.count += b.count;
      }
      merged.push_back(std::move(a));
    }
    if (merged.size() == attempts.size()) break;  // nothing to merge: different instances
    attempts = std::move(merged);
  }
}

const char* to_string(MarkKind kind) {
  switch (kind) {
    case MarkKind::CheckPassed:
      return "check passed";
    case MarkKind::CheckFailed:
      return "check failed";
    case MarkKind::Failure:
      return "failure";
    case MarkKind::Restart:
      return "restart";
    case MarkKind::Hang:
      return "hang";
    case MarkKind::Diagnosis:
      return "diagnosis";
    case MarkKind::Forensics:
      return "forensics";
    case MarkKind::NodeChange:
      return "node change";
    case MarkKind::Notify:
      return "message";
    case MarkKind::Checkpoint:
      return "checkpoint";
    case MarkKind::Signal:
      return "stop or signal";
  }
  return "?";
}

const char* to_string(AttemptEnd end) {
  switch (end) {
    case AttemptEnd::Running:
      return "running";
    case AttemptEnd::Succeeded:
      return "succeeded";
    case AttemptEnd::Failed:
      return "failed";
    case AttemptEnd::Hung:
      return "hung";
    case AttemptEnd::Stopped:
      return "stopped";
    case AttemptEnd::Cancelled:
      return "cancelled";
    case AttemptEnd::Unknown:
      return "unknown";
  }
  return "?";
}

const char* to_string(JobOutcome outcome) {
  switch (outcome) {
    case JobOutcome::Succeeded:
      return "succeeded";
    case JobOutcome::Failed:
      return "failed";
    case JobOutcome::Cancelled:
      return "cancelled";
    case JobOutcome::Unfinished:
      return "unfinished";
  }
  return "?";
}

bool natural_less(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const bool da = std::isdigit(static_cast<unsigned char>(a[i])) != 0;
    const bool db = std::isdigit(static_cast<unsigned char>(b[j])) != 0;
    if (da && db) {
      std::size_t ie = i, je = j;
      while (ie < a.size() && std::isdigit(static_cast<unsigned char>(a[ie]))) ++ie;
      while (je < b.size() && std::isdigit(static_cast<unsigned char>(b[je]))) ++je;
      std::size_t is = i, js = j;  // without leading zeros
      while (is + 1 < ie && a[is] == '0') ++is;
      while (js + 1 < je && b[js] == '0') ++js;
      if (ie - is != je - js) return ie - is < je - js;
      const int c = a.compare(is, ie - is, b, js, je - js);
      if (c != 0) return c < 0;
      i = ie;
      j = je;
    } else {
      if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
      ++i;
      ++j;
    }
  }
  if (a.size() - i != b.size() - j) return a.size() - i < b.size() - j;
  return a < b;
}

}  // namespace pai::launcher::report
