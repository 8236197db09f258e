#include "launcher/commands/drill_command.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "launcher/commands/control_channel.h"
#include "launcher/logs/journal.h"
#include "launcher/report/log_folder.h"
#include "libpai/write_all.h"

namespace pai::launcher {

namespace {

using Clock = std::chrono::steady_clock;
using report::FaultScore;

// How often the drill asks for the status while it waits for steady steps, how long the steps
// must move for it, and how often it reads the journals while a fault plays out.
constexpr auto kStatusPoll = std::chrono::milliseconds(500);
constexpr auto kSteadyFor = std::chrono::seconds(2);
constexpr auto kJournalPoll = std::chrono::seconds(1);
// After a bounded fault's seconds, how long a verdict may still come.
constexpr auto kAfterHold = std::chrono::seconds(5);
// How long the node's own record of the fault may take: without it and any verdict, the node
// did not put the fault in (its launcher said why) and nothing is waited for.
constexpr auto kCarryOutWait = std::chrono::seconds(10);
constexpr auto kReplyTimeout = std::chrono::seconds(30);

// One fault of the campaign: scored, or why it was not injected.
struct Row {
  DrillFault fault = DrillFault::RankKill;
  std::string skipped;
  std::optional<FaultScore> score;
};

// The highest step the running ranks of each instance reported.
std::map<int, std::int64_t> steps_of(const net::StatusReply& status) {
  std::map<int, std::int64_t> steps;
  for (const net::NodeStatus& node : status.nodes) {
    if (node.instance < 0) continue;
    std::int64_t best = -1;
    for (const net::RankTelemetry& t : node.telemetry) best = std::max(best, t.step);
    steps[node.instance] = best;
  }
  return steps;
}

// Every instance runs and reports a step.
bool all_stepping(const net::StatusReply& status) {
  if (status.phase != "running") return false;
  bool any = false;
  for (const net::NodeStatus& node : status.nodes) {
    if (node.instance < 0) continue;
    any = true;
    if (node.state != "running" || node.telemetry.empty()) return false;
  }
  if (!any) return false;
  for (const auto& [instance, step] : steps_of(status)) {
    if (step < 0) return false;
  }
  return true;
}

bool passed(const FaultScore& s) {
  return s.detect_ms && s.named_right && (!s.restarted || s.recover_ms) && s.job_ended.empty();
}

class Drill {
 public:
  Drill(const DrillOptions& options, ControlChannel& channel, const JobTarget& target)
      : options_(options), channel_(channel), target_(target) {}

  std::vector<Row> run() {
    std::vector<Row> rows;
    bool over = false;
    for (DrillFault fault : options_.faults) {
      Row row;
      row.fault = fault;
      if (over) {
        row.skipped = "the job ended";
      } else {
        play(row);
        over = row.skipped == "the job ended";
      }
      rows.push_back(std::move(row));
    }
    return rows;
  }

 private:
  void say(const std::string& text) const {
    write_all(options_.err_fd, "pai-launch drill: " + text + "\n");
  }

  net::StatusReply status() {
    return channel_.ask<net::StatusReply>(net::StatusRequest{}, kReplyTimeout);
  }

  // Waits until every instance runs and its steps moved for kSteadyFor; the status then, or
  // nullopt with `why`.
  std::optional<net::StatusReply> steady(std::string& why) {
    const auto deadline = Clock::now() + options_.settle;
    std::optional<std::pair<Clock::time_point, std::map<int, std::int64_t>>> since;
    while (Clock::now() < deadline) {
      net::StatusReply now = status();
      if (now.phase == "finished") {
        why = "the job ended";
        return std::nullopt;
      }
      if (!all_stepping(now)) {
        since.reset();
      } else if (!since) {
        since.emplace(Clock::now(), steps_of(now));
      } else if (Clock::now() - since->first >= kSteadyFor) {
        const auto steps = steps_of(now);
        bool moved = steps.size() == since->second.size();
        for (const auto& [instance, step] : steps) {
          auto it = since->second.find(instance);
          moved = moved && it != since->second.end() && step > it->second;
        }
        if (moved) return now;
        since.emplace(Clock::now(), steps);
      }
      std::this_thread::sleep_for(kStatusPoll);
    }
    why = "the job did not step steadily within " + std::to_string(options_.settle.count()) +
          " s (every instance running, its steps moving)";
    return std::nullopt;
  }

  // The node the faults go into: --instance, else the last instance on a node that does not
  // serve the coordinator (its address is not the coordinator's).
  const net::NodeStatus* pick(const net::StatusReply& status, std::string& why) const {
    const net::NodeStatus* chosen = nullptr;
    for (const net::NodeStatus& node : status.nodes) {
      if (node.instance < 0) continue;
      const std::string name = node.role + "-" + std::to_string(node.index);
      if (!options_.instance.empty()) {
        if (name == options_.instance) return &node;
        continue;
      }
      if (node.address == target_.address) continue;
      if (chosen == nullptr || node.instance > chosen->instance) chosen = &node;
    }
    if (chosen == nullptr) {
      why = options_.instance.empty()
                ? "no instance runs on a node other than the coordinator's: name one with "
                  "--instance"
                : "no instance named \"" + options_.instance + "\" runs in the job";
    }
    return chosen;
  }

  void play(Row& row) {
    std::string why;
    const std::optional<net::StatusReply> now = steady(why);
    if (!now) {
      row.skipped = why;
      return;
    }
    const net::NodeStatus* node = pick(*now, why);
    if (node == nullptr) {
      row.skipped = why;
      return;
    }
    if (row.fault == DrillFault::NodeLoss &&
        std::none_of(now->nodes.begin(), now->nodes.end(),
                     [](const net::NodeStatus& n) { return n.state == "standby"; })) {
      row.skipped = "no spare on standby: a node-loss drill needs one to take the instance";
      return;
    }
    const int ranks =
        node->ranks.size() == 2 ? static_cast<int>(node->ranks[1] - node->ranks[0] + 1) : 1;
    const int rank = options_.rank >= 0 ? options_.rank : ranks - 1;
    const std::string instance = node->role + "-" + std::to_string(node->index);
    const std::size_t before = scores().size();
    const int seconds = bounded(row.fault) ? static_cast<int>(options_.hold.count()) : 0;
    try {
      const auto ok = channel_.ask<net::OkReply>(
          net::InjectRequest{instance, rank, row.fault, seconds}, kReplyTimeout);
      say(ok.text);
    } catch (const Refused& e) {
      row.skipped = "refused: " + e.text;
      return;
    }
    row.score = watch(row.fault, before);
  }

  std::vector<FaultScore> scores() const { return report::read_drill_scores(target_.log_dir); }

  // Reads the journals until the fault's score is complete, the job ended, or the timeout.
  FaultScore watch(DrillFault fault, std::size_t index) {
    const auto injected = Clock::now();
    const auto hold = bounded(fault) ? options_.hold + kAfterHold : Clock::duration::zero();
    const auto deadline = injected + options_.timeout + hold;
    std::optional<FaultScore> last;
    for (;;) {
      std::vector<FaultScore> all = scores();
      if (all.size() > index) last = all[index];
      const auto elapsed = Clock::now() - injected;
      if (last && complete(*last, elapsed >= hold)) return *last;
      if (last && !last->carried_out && !last->detect_ms && elapsed >= kCarryOutWait) {
        say(std::string(to_string(fault)) + ": the node has no record of putting it in after " +
            std::to_string(kCarryOutWait.count()) + " s: its launcher's output says why");
        return *last;
      }
      if (Clock::now() >= deadline) break;
      std::this_thread::sleep_for(kJournalPoll);
    }
    if (!last) {
      throw report::LogFolderError("the coordinator's journal in " + target_.log_dir +
                                   " has no fault-injected record of the fault: is it the job's "
                                   "log folder?");
    }
    return *last;
  }

  // Nothing more will come: the job ended; a restart and the instance's first step after it;
  // a bounded fault without restart, its seconds and kAfterHold over (with or without a
  // verdict). rank-kill and node-loss always restart a job that handles them: their scores
  // wait for that, up to the timeout.
  static bool complete(const FaultScore& s, bool hold_over) {
    if (!s.job_ended.empty()) return true;
    if (s.restarted) return s.recover_ms.has_value();
    return bounded(s.injection.fault) && hold_over;
  }

  const DrillOptions& options_;
  ControlChannel& channel_;
  const JobTarget& target_;
};

std::optional<double> seconds_of(const std::optional<std::int64_t>& ms) {
  if (!ms) return std::nullopt;
  return static_cast<double>(*ms) / 1000.0;
}

std::string render_json(const std::string& job, const std::vector<Row>& rows) {
  nlohmann::ordered_json j;
  j["job"] = job;
  j["faults"] = nlohmann::ordered_json::array();
  for (const Row& row : rows) {
    nlohmann::ordered_json f;
    f["fault"] = to_string(row.fault);
    if (!row.score) {
      f["skipped"] = row.skipped;
    } else {
      const FaultScore& s = *row.score;
      f["instance"] = s.injection.instance;
      f["node"] = s.injection.node;
      f["rank"] = s.injection.rank;
      f["seconds"] = s.injection.seconds;
      f["injected"] = journal::format_time(s.injection.at_ms);
      f["carriedOut"] = s.carried_out;
      auto put = [&](const char* key, const std::optional<double>& value) {
        f[key] = value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
      };
      put("detectSeconds", seconds_of(s.detect_ms));
      f["verdict"] = s.detected_by;
      f["namedRight"] = s.named_right;
      f["restarted"] = s.restarted;
      put("recoverSeconds", seconds_of(s.recover_ms));
      f["lostSteps"] = s.lost_steps ? nlohmann::ordered_json(*s.lost_steps) : nullptr;
      f["jobEnded"] = s.job_ended;
      f["passed"] = passed(s);
    }
    j["faults"].push_back(std::move(f));
  }
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string render_text(const std::string& job, const std::vector<Row>& rows) {
  std::vector<FaultScore> scores;
  std::string skipped;
  for (const Row& row : rows) {
    if (row.score) {
      scores.push_back(*row.score);
    } else {
      skipped += std::string(to_string(row.fault)) + ": not injected: " + row.skipped + "\n";
    }
  }
  const auto count = [&](auto pred) { return std::count_if(scores.begin(), scores.end(), pred); };
  std::string out =
      "drill of job " + job + ": " + std::to_string(scores.size()) + " faults injected, " +
      std::to_string(count([](const FaultScore& s) { return s.detect_ms.has_value(); })) +
      " detected, " +
      std::to_string(count([](const FaultScore& s) { return s.detect_ms && s.named_right; })) +
      " named right, " + std::to_string(count(passed)) + " handled\n";
  if (!scores.empty()) out += report::render_scorecard(scores);
  return out + skipped;
}

}  // namespace

int drill_command(const DrillOptions& options) {
  auto complain = [&](const std::string& text, int code) {
    write_all(options.err_fd, "pai-launch drill: " + text + "\n");
    return code;
  };
  if (options.faults.empty()) return complain("no fault to inject (--faults)", 2);
  if (options.format != "text" && options.format != "json") {
    return complain("--format " + options.format + ": expected text or json", 2);
  }
  JobTarget target;
  try {
    target = locate_job(options.locator);
  } catch (const LocateError& e) {
    return complain(e.what(), 2);
  }
  if (target.log_dir.empty()) {
    return complain("the drill scores faults from the job's journals: give --log-dir (or --plan)",
                    2);
  }
  try {
    report::find_journals(target.log_dir);  // readable before any fault goes in
  } catch (const report::LogFolderError& e) {
    return complain(e.what(), 2);
  }
  std::vector<Row> rows;
  const int failed = talking_to(
      target,
      [&] {
        try {
          std::unique_ptr<net::Client> client = connect_control(target);
          ControlChannel channel(*client, target.endpoint());
          rows = Drill(options, channel, target).run();
          return 0;
        } catch (const report::LogFolderError& e) {
          return complain(e.what(), 1);
        }
      },
      complain);
  if (failed != 0) return failed;
  const std::string text =
      options.format == "json" ? render_json(target.job, rows) : render_text(target.job, rows);
  if (!write_all(options.out_fd, text)) return 1;
  const bool all_passed = std::all_of(
      rows.begin(), rows.end(), [](const Row& row) { return row.score && passed(*row.score); });
  return all_passed ? 0 : 1;
}

}  // namespace pai::launcher
