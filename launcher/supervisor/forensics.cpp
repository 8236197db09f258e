#include "launcher/supervisor/forensics.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "launcher/os/fd.h"
#include "launcher/os/process.h"
#include "launcher/policy/diagnosis.h"
#include "launcher/policy/failure_classifier.h"
#include "libpai/write_all.h"

namespace pai::launcher {

namespace {

// What is kept of a tool's output, of a rank's log past the dump and of the kernel log.
constexpr std::size_t kMaxToolOutput = 1 << 20;
constexpr std::size_t kMaxLogGain = 256 << 10;
constexpr std::size_t kMaxKernelLog = 8 << 20;

std::string errno_text(int error) { return std::strerror(error); }

// Up to `max` bytes of `fd` from `offset`.
std::string read_from(int fd, std::int64_t offset, std::size_t max) {
  std::string out;
  char buf[65536];
  while (out.size() < max) {
    const ssize_t n = ::pread(fd, buf, std::min(sizeof buf, max - out.size()), offset);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
    offset += n;
  }
  return out;
}

// What `path` gained past `offset`, or the reason it cannot be read.
std::string log_gain(const std::string& path, std::int64_t offset, std::string* error) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = "cannot read " + path + ": " + errno_text(errno);
    return {};
  }
  std::string text = read_from(fd, offset, kMaxLogGain);
  close_fd(fd);
  return text;
}

// The kernel log's "NVRM: Xid" lines, or why they cannot be read. /dev/kmsg gives one record
// per read and EAGAIN at its end; a plain file (tests) gives 0 at its end.
std::string xid_lines(const std::string& kmsg, std::string* error) {
  int fd = ::open(kmsg.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    *error = "cannot read " + kmsg + ": " + errno_text(errno);
    return {};
  }
  std::string log;
  char buf[8192];
  while (log.size() < kMaxKernelLog) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EPIPE)) continue;  // EPIPE: a record was overwritten
    if (n < 0 && errno != EAGAIN) *error = "cannot read " + kmsg + ": " + errno_text(errno);
    if (n <= 0) break;
    log.append(buf, static_cast<std::size_t>(n));
    if (buf[n - 1] != '\n') log += '\n';
  }
  close_fd(fd);
  std::string out;
  for (std::size_t start = 0; start < log.size();) {
    std::size_t nl = log.find('\n', start);
    if (nl == std::string::npos) nl = log.size();
    const std::string_view line(log.data() + start, nl - start);
    if (line.find("NVRM: Xid") != std::string_view::npos) {
      out.append(line);
      out += '\n';
    }
    start = nl + 1;
  }
  return out;
}

// Writes `text` to `path`; false with `error` set when it could not be written whole.
bool write_file(const std::string& path, const std::string& text, std::string* error) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
  if (fd < 0) {
    *error = path + ": " + errno_text(errno);
    return false;
  }
  bool ok = write_all(fd, text);
  if (!ok) *error = path + ": " + errno_text(errno);
  if (::close(fd) != 0 && ok) {
    ok = false;
    *error = path + ": " + errno_text(errno);
  }
  return ok;
}

std::string seconds_text(std::chrono::milliseconds ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", static_cast<double>(ms.count()) / 1000.0);
  return buf;
}

// A rank's telemetry standing, one figure a line.
std::string standing_text(const std::optional<RankTelemetrySummary>& s) {
  if (!s) return "none: the rank wrote no telemetry ring\n";
  std::string text = "last step: " + (s->step >= 0 ? std::to_string(s->step) : "none") + "\n";
  text += "collectives (world group): entered #" + std::to_string(s->entered) + ", exited #" +
          std::to_string(s->exited) + "\n";
  text += s->open_ms >= 0
              ? "open: " + collective_op_name(s->op) + " #" + std::to_string(s->exited + 1) +
                    " for " + seconds_text(std::chrono::milliseconds(s->open_ms)) + "\n"
              : "open: none\n";
  if (s->quiet_ms >= 0) {
    text += "last record: " + seconds_text(std::chrono::milliseconds(s->quiet_ms)) + " ago\n";
  }
  if (s->lost > 0) text += "records lost: " + std::to_string(s->lost) + "\n";
  return text;
}

}  // namespace

ForensicsTools ForensicsTools::from_path(const std::string& path_list) {
  return ForensicsTools{search_path("py-spy", path_list), search_path("eu-stack", path_list),
                        search_path("gdb", path_list)};
}

struct Forensics::Impl {
  // One run of a tool for one rank.
  struct Tool {
    std::size_t rank = 0;  // index into ranks
    bool python = false;   // a Python stack (py-spy), else a native one
    std::vector<std::string> argv;
    int pid = -1;
    int out_fd = -1;  // memfd: the tool's stdout and stderr
    bool ended = false;
    bool timed_out = false;
    int wait_status = 0;
    std::string error;  // it could not start
    std::string output;
  };

  ForensicsOptions options;
  std::vector<ForensicsRank> ranks;
  Clock::time_point started;
  Clock::time_point deadline;
  bool tools_started = false;
  bool finished = false;
  std::vector<Tool> tools;
  std::string xid;
  std::string xid_error;

  ~Impl() {
    for (Tool& t : tools) {
      // Reaped by the loop as an unknown child.
      if (t.pid > 0 && !t.ended) ::kill(-t.pid, SIGKILL);
      close_fd(t.out_fd);
    }
  }

  void start_tools() {
    tools_started = true;
    for (std::size_t r = 0; r < ranks.size(); ++r) {
      const std::string pid = std::to_string(ranks[r].pid);
      if (!options.tools.py_spy.empty()) {
        start(r, true, {options.tools.py_spy, "dump", "--pid", pid});
      }
      if (!options.tools.eu_stack.empty()) {
        start(r, false, {options.tools.eu_stack, "-p", pid});
      } else if (!options.tools.gdb.empty()) {
        start(r, false,
              {options.tools.gdb, "-p", pid, "-batch", "-nx", "-ex", "thread apply all bt"});
      }
    }
  }

  void start(std::size_t rank, bool python, std::vector<std::string> argv) {
    Tool tool;
    tool.rank = rank;
    tool.python = python;
    tool.argv = std::move(argv);
    tool.out_fd = ::memfd_create("pai-forensics", MFD_CLOEXEC);
    if (tool.out_fd < 0) {
      tool.error = "cannot hold its output: " + errno_text(errno);
      tool.ended = true;
      tools.push_back(std::move(tool));
      return;
    }
    SpawnRequest request;
    request.argv = tool.argv;
    request.env = {{"PATH", "/usr/local/bin:/usr/bin:/bin"}, {"LC_ALL", "C"}};
    request.stdout_fd = tool.out_fd;
    request.stderr_fd = tool.out_fd;
    try {
      tool.pid = spawn_process(request);
    } catch (const std::exception& e) {
      tool.error = e.what();
      tool.ended = true;
    }
    tools.push_back(std::move(tool));
  }

  void collect(Tool& t) {
    if (t.out_fd >= 0) t.output = read_from(t.out_fd, 0, kMaxToolOutput);
    close_fd(t.out_fd);
    t.out_fd = -1;
  }

  bool all_ended() const {
    return std::all_of(tools.begin(), tools.end(), [](const Tool& t) { return t.ended; });
  }

  // The tool's section of a rank's file: its command, output, and how it ended.
  std::string section(const Tool& t) const {
    std::string out = "== " + std::string(t.python ? "python" : "native") + " stack: ";
    for (std::size_t k = 0; k < t.argv.size(); ++k) {
      out += (k == 0 ? std::filesystem::path(t.argv[k]).filename().string() : " " + t.argv[k]);
    }
    out += " ==\n";
    if (!t.error.empty()) return out + "(could not run: " + t.error + ")\n\n";
    out += t.output;
    if (!t.output.empty() && t.output.back() != '\n') out += '\n';
    if (t.timed_out) {
      const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - started) -
                        options.tool_delay;
      out += "(timed out after " + seconds_text(took) + ": killed)\n";
    } else {
      const ExitStatus status = ExitStatus::from_wait_status(t.wait_status);
      if (!status.success()) out += "(" + describe(status) + ")\n";
    }
    return out + "\n";
  }

  std::string rank_file(std::size_t r, const std::string& gained, const std::string& gain_error,
                        const StackVerdict& python, const StackVerdict& native,
                        const StackVerdict& verdict) const {
    const ForensicsRank& rank = ranks[r];
    auto line = [](const char* what, const StackVerdict& v) {
      return std::string(what) + to_string(v.place) + (v.frame.empty() ? "" : ": " + v.frame) +
             "\n";
    };
    std::string out = "pai-launch hang forensics: " + options.instance + " rank " +
                      std::to_string(rank.rank) + " (local rank " +
                      std::to_string(rank.local_rank) + "), pid " + std::to_string(rank.pid) + "\n";
    out += line("verdict: ", verdict);
    out += line("  python stack: ", python);
    out += line("  native stack: ", native);
    out += "\n== telemetry ==\n";
    out += standing_text(rank.telemetry);
    out += "\n== python stack: what its log gained after SIGUSR1 (" + rank.log_path + ") ==\n";
    if (!gain_error.empty()) {
      out += "(" + gain_error + ")\n";
    } else if (gained.empty()) {
      out +=
          "(nothing: it does not catch SIGUSR1, or was stuck where signals wait; the pai SDK "
          "registers faulthandler for it)\n";
    } else {
      out += gained;
      if (gained.back() != '\n') out += '\n';
    }
    out += "\n";
    bool native_tool = false;
    for (const Tool& t : tools) {
      if (t.rank != r) continue;
      native_tool = native_tool || !t.python;
      out += section(t);
    }
    if (!native_tool) out += "== native stack ==\n(neither eu-stack nor gdb is on PATH)\n";
    return out;
  }
};

Forensics::Forensics(ForensicsOptions options, std::vector<ForensicsRank> ranks,
                     Clock::time_point now, Clock::time_point deadline)
    : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  impl_->ranks = std::move(ranks);
  impl_->started = now;
  impl_->deadline = std::max(deadline, now);
  impl_->xid = xid_lines(impl_->options.kmsg_path, &impl_->xid_error);
}

Forensics::~Forensics() = default;

std::optional<Forensics::Clock::time_point> Forensics::next_deadline() const {
  if (impl_->finished) return std::nullopt;
  if (!impl_->tools_started) {
    return std::min(impl_->deadline, impl_->started + impl_->options.tool_delay);
  }
  if (impl_->all_ended()) {
    return std::max(impl_->started + impl_->options.min_window,
                    impl_->started + impl_->options.tool_delay);
  }
  return impl_->deadline;
}

void Forensics::on_deadline(Clock::time_point now) {
  if (impl_->finished) return;
  if (!impl_->tools_started && now >= impl_->started + impl_->options.tool_delay &&
      now < impl_->deadline) {
    impl_->start_tools();
  }
  if (now < impl_->deadline) return;
  impl_->tools_started = true;  // too late to start any
  for (Impl::Tool& t : impl_->tools) {
    if (t.ended) continue;
    ::kill(-t.pid, SIGKILL);  // reaped by the loop as an unknown child
    t.ended = true;
    t.timed_out = true;
    impl_->collect(t);
  }
}

bool Forensics::on_child_exit(int pid, int wait_status) {
  for (Impl::Tool& t : impl_->tools) {
    if (t.pid != pid || t.ended) continue;
    t.ended = true;
    t.wait_status = wait_status;
    impl_->collect(t);
    return true;
  }
  return false;
}

bool Forensics::ready(Clock::time_point now) const {
  if (impl_->finished) return false;
  if (now >= impl_->deadline) return true;
  return impl_->tools_started && impl_->all_ended() &&
         now >= impl_->started + impl_->options.min_window;
}

Forensics::Report Forensics::finish() {
  Impl& m = *impl_;
  m.finished = true;
  Report report;
  report.folder = m.options.folder;
  std::error_code ec;
  std::filesystem::create_directories(m.options.folder, ec);
  const bool folder_ok = !ec && std::filesystem::is_directory(m.options.folder, ec);
  report.kept = folder_ok;
  if (!folder_ok) {
    report.errors.push_back("cannot create " + m.options.folder + ": " +
                            (ec ? ec.message() : std::string("not a directory")));
  }
  for (std::size_t r = 0; r < m.ranks.size(); ++r) {
    const ForensicsRank& rank = m.ranks[r];
    std::string gain_error;
    const std::string gained = log_gain(rank.log_path, rank.log_offset, &gain_error);
    StackVerdict python = judge_python_stack(gained);
    StackVerdict native;
    for (const Impl::Tool& t : m.tools) {
      if (t.rank != r || !t.error.empty()) continue;
      if (t.python && python.place == StackPlace::Unknown) python = judge_python_stack(t.output);
      if (!t.python) native = judge_native_stack(t.output, rank.pid);
    }
    const StackVerdict verdict = combine_verdicts(python, native);
    report.ranks.push_back(RankStackVerdict{rank.rank, verdict});
    if (!folder_ok) continue;
    std::string error;
    const std::string path = m.options.folder + "/rank-" + std::to_string(rank.rank) + ".txt";
    if (!write_file(path, m.rank_file(r, gained, gain_error, python, native, verdict), &error)) {
      report.errors.push_back(error);
    }
  }
  for (const Impl::Tool& t : m.tools) {
    if (!t.error.empty()) {
      report.errors.push_back(std::filesystem::path(t.argv[0]).filename().string() + " for rank " +
                              std::to_string(m.ranks[t.rank].rank) + ": " + t.error);
    }
  }
  if (folder_ok) {
    std::string text = "pai-launch hang forensics: kernel Xid lines (" + m.options.kmsg_path +
                       ") on the node of " + m.options.instance + "\n";
    if (!m.xid_error.empty()) {
      text += "(not readable: " + m.xid_error + ")\n";
    } else if (m.xid.empty()) {
      text += "(none)\n";
    } else {
      text += m.xid;
    }
    std::string error;
    if (!write_file(m.options.folder + "/xid." + m.options.instance + ".txt", text, &error)) {
      report.errors.push_back(error);
    }
  }
  return report;
}

}  // namespace pai::launcher
