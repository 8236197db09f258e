#include "launcher/policy/stack_verdict.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <optional>

namespace pai::launcher {

namespace {

// Splits `text` into lines (without their '\n' or '\r').
std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.push_back(line);
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return out;
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}
bool contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

std::string clip(std::string_view text) {
  return std::string(text.substr(0, std::min(text.size(), kMaxFrameText)));
}

// ---- Python ----

struct PythonFrame {
  std::string_view function;
  std::string_view file;
  std::string_view line;
};

// Collective functions whose name says so wherever they are defined.
constexpr std::array<std::string_view, 20> kCollectiveFunctions = {"all_reduce",
                                                                   "all_reduce_coalesced",
                                                                   "all_reduce_multigpu",
                                                                   "broadcast",
                                                                   "broadcast_multigpu",
                                                                   "broadcast_object_list",
                                                                   "barrier",
                                                                   "monitored_barrier",
                                                                   "all_gather",
                                                                   "all_gather_object",
                                                                   "all_gather_into_tensor",
                                                                   "_all_gather_base",
                                                                   "all_gather_coalesced",
                                                                   "reduce_scatter",
                                                                   "reduce_scatter_tensor",
                                                                   "_reduce_scatter_base",
                                                                   "all_to_all",
                                                                   "all_to_all_single",
                                                                   "gather_object",
                                                                   "scatter_object_list"};
// Names too common to trust outside torch.distributed's own files.
constexpr std::array<std::string_view, 10> kDistributedOnly = {
    "wait",           "send",    "recv",
    "isend",          "irecv",   "reduce",
    "gather",         "scatter", "batch_isend_irecv",
    "reduce_multigpu"};

bool collective_frame(const PythonFrame& f) {
  if (std::find(kCollectiveFunctions.begin(), kCollectiveFunctions.end(), f.function) !=
      kCollectiveFunctions.end()) {
    return true;
  }
  const bool distributed = contains(f.file, "torch/distributed/") || contains(f.file, "c10d");
  return distributed && std::find(kDistributedOnly.begin(), kDistributedOnly.end(), f.function) !=
                            kDistributedOnly.end();
}

// `  File "x.py", line 3 in f` (faulthandler).
std::optional<PythonFrame> faulthandler_frame(std::string_view line) {
  constexpr std::string_view kFile = "  File \"";
  if (!starts_with(line, kFile)) return std::nullopt;
  line.remove_prefix(kFile.size());
  const std::size_t quote = line.find("\", line ");
  if (quote == std::string_view::npos) return std::nullopt;
  PythonFrame f;
  f.file = line.substr(0, quote);
  std::string_view rest = line.substr(quote + 8);
  const std::size_t in = rest.find(" in ");
  if (in == std::string_view::npos) return std::nullopt;
  f.line = rest.substr(0, in);
  f.function = rest.substr(in + 4);
  return f;
}

// `    f (x.py:3)` (py-spy dump).
std::optional<PythonFrame> py_spy_frame(std::string_view line) {
  if (!starts_with(line, "    ") || line.size() < 8 || line.back() != ')') return std::nullopt;
  line.remove_prefix(4);
  const std::size_t open = line.rfind(" (");
  if (open == std::string_view::npos || open == 0) return std::nullopt;
  std::string_view where = line.substr(open + 2, line.size() - open - 3);
  const std::size_t colon = where.rfind(':');
  if (colon == std::string_view::npos) return std::nullopt;
  int number = 0;
  const std::string_view digits = where.substr(colon + 1);
  if (digits.empty() || std::from_chars(digits.data(), digits.data() + digits.size(), number).ptr !=
                            digits.data() + digits.size()) {
    return std::nullopt;
  }
  return PythonFrame{line.substr(0, open), where.substr(0, colon), digits};
}

std::string describe(const PythonFrame& f) {
  return clip(std::string(f.function) + " (" + std::string(f.file) + ":" + std::string(f.line) +
              ")");
}

// ---- Native ----

bool collective_symbol(std::string_view symbol) {
  return contains(symbol, "c10d") || contains(symbol, "gloo") || contains(symbol, "nccl") ||
         contains(symbol, "MPI_") || contains(symbol, "ompi_coll");
}

// The thread a header line starts, or nullopt: eu-stack's "TID 123:", gdb's
// "Thread 2 (Thread 0x7f... (LWP 123) "python3"):" or "Thread 2 (LWP 123):".
struct NativeThread {
  long tid = -1;
  long number = -1;  // gdb's thread number
};
std::optional<NativeThread> native_thread(std::string_view line) {
  auto number_at = [](std::string_view s) {
    long value = -1;
    std::from_chars(s.data(), s.data() + s.size(), value);
    return value;
  };
  if (starts_with(line, "TID ")) return NativeThread{number_at(line.substr(4)), -1};
  if (!starts_with(line, "Thread ")) return std::nullopt;
  NativeThread t;
  t.number = number_at(line.substr(7));
  const std::size_t lwp = line.find("(LWP ");
  if (lwp != std::string_view::npos) t.tid = number_at(line.substr(lwp + 5));
  return t;
}

// The symbol of a frame line "#3  0x00007f... symbol" (eu-stack), "#3  0x... in symbol (...)
// from lib" or "#0  symbol (...) at file:line" (gdb); "" when unnamed; nullopt when not a frame.
std::optional<std::string_view> native_frame(std::string_view line) {
  if (!starts_with(line, "#") || line.size() < 2 || line[1] < '0' || line[1] > '9') {
    return std::nullopt;
  }
  std::size_t at = line.find(' ');
  if (at == std::string_view::npos) return std::string_view();
  std::string_view rest = line.substr(at);
  rest.remove_prefix(std::min(rest.find_first_not_of(' '), rest.size()));
  if (starts_with(rest, "0x")) {
    const std::size_t end = rest.find(' ');
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    if (starts_with(rest, "in ")) rest.remove_prefix(3);
  }
  // gdb's arguments and library follow " (": only the symbol counts.
  return rest.substr(0, rest.find(" ("));
}

}  // namespace

StackVerdict judge_python_stack(std::string_view text) {
  std::optional<PythonFrame> first;        // innermost frame of the first thread
  std::optional<PythonFrame> main_thread;  // innermost frame of the current or main thread
  bool in_main = false;
  bool innermost = false;  // the next frame is its thread's innermost
  for (std::string_view line : lines_of(text)) {
    if (starts_with(line, "Current thread 0x") || starts_with(line, "Thread ")) {
      in_main = starts_with(line, "Current thread") || contains(line, "\"MainThread\"");
      innermost = true;
      continue;
    }
    std::optional<PythonFrame> frame = faulthandler_frame(line);
    if (!frame) frame = py_spy_frame(line);
    if (!frame) continue;
    if (collective_frame(*frame)) return {StackPlace::Collective, describe(*frame)};
    // faulthandler writes a thread's frames without a header when it dumps only one.
    if (!first) first = frame;
    if (innermost && in_main && !main_thread) main_thread = frame;
    innermost = false;
  }
  if (main_thread) return {StackPlace::Outside, describe(*main_thread)};
  if (first) return {StackPlace::Outside, describe(*first)};
  return {};
}

StackVerdict judge_native_stack(std::string_view text, int pid) {
  // Frames by thread: the main one is TID == pid, else gdb's thread 1, else the first.
  struct Thread {
    NativeThread id;
    std::vector<std::string_view> frames;
  };
  std::vector<Thread> threads;
  for (std::string_view line : lines_of(text)) {
    if (auto t = native_thread(line)) {
      threads.push_back(Thread{*t, {}});
      continue;
    }
    if (auto frame = native_frame(line)) {
      if (threads.empty()) threads.push_back(Thread{});  // one thread without a header
      threads.back().frames.push_back(*frame);
    }
  }
  const Thread* main = nullptr;
  for (const Thread& t : threads) {
    if (t.id.tid == pid) main = &t;
  }
  for (const Thread& t : threads) {
    if (main == nullptr && t.id.number == 1) main = &t;
  }
  if (main == nullptr && !threads.empty()) main = &threads.front();
  if (main == nullptr || main->frames.empty()) return {};
  for (std::string_view symbol : main->frames) {
    if (collective_symbol(symbol)) return {StackPlace::Collective, clip(symbol)};
  }
  return {StackPlace::Outside, clip(main->frames.front())};
}

StackVerdict combine_verdicts(const StackVerdict& python, const StackVerdict& native) {
  if (python.place == StackPlace::Collective) return python;
  if (native.place == StackPlace::Collective) return native;
  if (python.place == StackPlace::Outside) return python;
  return native;
}

std::vector<int> stack_culprits(const std::vector<RankStackVerdict>& ranks) {
  std::vector<int> outside;
  bool waiting = false;
  for (const RankStackVerdict& r : ranks) {
    if (r.verdict.place == StackPlace::Outside) outside.push_back(r.rank);
    if (r.verdict.place == StackPlace::Collective) waiting = true;
  }
  if (!waiting) return {};
  std::sort(outside.begin(), outside.end());
  outside.erase(std::unique(outside.begin(), outside.end()), outside.end());
  return outside;
}

namespace {

std::vector<RankStackVerdict> sorted_at(std::vector<RankStackVerdict> ranks, StackPlace place) {
  std::erase_if(ranks, [&](const RankStackVerdict& r) { return r.verdict.place != place; });
  std::sort(ranks.begin(), ranks.end(),
            [](const RankStackVerdict& a, const RankStackVerdict& b) { return a.rank < b.rank; });
  return ranks;
}

std::string joined(const std::vector<RankStackVerdict>& ranks, const char* separator) {
  std::string out;
  for (const RankStackVerdict& r : ranks) {
    out += (out.empty() ? "" : separator) + std::to_string(r.rank);
  }
  return out;
}

std::string at_frame(const RankStackVerdict& r) {
  return r.verdict.frame.empty() ? std::string() : " at " + r.verdict.frame;
}

}  // namespace

std::string ranks_at(const std::vector<RankStackVerdict>& ranks, StackPlace place) {
  return joined(sorted_at(ranks, place), ",");
}

std::string stack_evidence(const std::vector<RankStackVerdict>& ranks) {
  if (stack_culprits(ranks).empty()) return {};
  const auto outside = sorted_at(ranks, StackPlace::Outside);
  const auto waiting = sorted_at(ranks, StackPlace::Collective);
  std::string text = outside.size() == 1 ? "rank " + joined(outside, ", ") + " is"
                                         : "ranks " + joined(outside, ", ") + " are";
  text += " outside any collective (rank " + std::to_string(outside.front().rank) +
          at_frame(outside.front()) + ") while ";
  text += waiting.size() == 1 ? "1 rank waits" : std::to_string(waiting.size()) + " ranks wait";
  return text + " in one (rank " + std::to_string(waiting.front().rank) +
         at_frame(waiting.front()) + ")";
}

}  // namespace pai::launcher
