#include "launcher/report/log_folder.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "launcher/report/history_builder.h"

namespace pai::launcher::report {

namespace fs = std::filesystem;

namespace {

constexpr const char* kJournal = "events.jsonl";

bool is_file(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

}  // namespace

std::vector<std::string> find_journals(const std::string& log_dir) {
  std::error_code ec;
  if (!fs::is_directory(log_dir, ec)) {
    const std::string why = fs::exists(log_dir, ec) ? "not a directory" : "no such directory";
    throw LogFolderError("cannot read the log folder " + log_dir + ": " + why);
  }
  if (is_file(fs::path(log_dir) / kJournal)) return {(fs::path(log_dir) / kJournal).string()};
  std::vector<std::string> folders;
  fs::directory_iterator it(log_dir, ec), end;
  if (ec) throw LogFolderError("cannot read the log folder " + log_dir + ": " + ec.message());
  for (; it != end; it.increment(ec)) {
    if (ec) break;
    if (it->is_directory(ec) && is_file(it->path() / kJournal)) {
      folders.push_back(it->path().filename().string());
    }
  }
  if (ec) throw LogFolderError("cannot read the log folder " + log_dir + ": " + ec.message());
  if (folders.empty()) {
    throw LogFolderError("no journal in " + log_dir + ": expected " + log_dir +
                         "/coordinator/events.jsonl or " + log_dir +
                         "/<role>-<i>/events.jsonl (is this the job's log folder?)");
  }
  std::sort(folders.begin(), folders.end(), [](const std::string& a, const std::string& b) {
    if ((a == "coordinator") != (b == "coordinator")) return a == "coordinator";
    return natural_less(a, b);
  });
  std::vector<std::string> paths;
  for (const std::string& f : folders) paths.push_back((fs::path(log_dir) / f / kJournal).string());
  return paths;
}

namespace {

// Reads each journal of `paths` in order: begin(coordinator, folder), every record to add,
// then end(info). Returns the records read.
template <typename Begin, typename Add, typename End>
std::int64_t read_journals(const std::vector<std::string>& paths, Begin begin, Add add, End end) {
  std::int64_t records = 0;
  for (const std::string& path : paths) {
    const std::string folder = fs::path(path).parent_path().filename().string();
    begin(folder == "coordinator", folder);
    JournalInfo info;
    info.path = path;
    try {
      info.stats = read_journal(path, add);
    } catch (const std::system_error& e) {
      throw LogFolderError(e.what());
    }
    records += info.stats.records;
    end(info);
  }
  return records;
}

// The journal lines an account could not read.
std::int64_t skipped_lines(const JournalInfo& info) {
  return info.stats.malformed + info.stats.unknown + info.stats.oversized +
         (info.stats.partial_last_line ? 1 : 0);
}

}  // namespace

JobHistory read_log_folder(const std::string& log_dir) {
  const std::vector<std::string> paths = find_journals(log_dir);
  JobHistoryBuilder builder;
  goodput::Accountant accountant;
  DrillScorer drill;
  const std::int64_t records = read_journals(
      paths,
      [&](bool coordinator, const std::string& folder) {
        builder.begin_journal(coordinator, folder);
        accountant.begin_journal(coordinator, folder);
        drill.begin_journal(coordinator);
      },
      [&](const journal::Entry& r) {
        builder.add(r);
        accountant.add(r);
        drill.add(r);
      },
      [&](const JournalInfo& info) {
        builder.end_journal(info);
        accountant.end_journal(skipped_lines(info));
      });
  if (records == 0) {
    throw LogFolderError(paths.size() == 1
                             ? paths.front() + ": the journal is empty"
                             : "no record in any journal of " + log_dir + " (" + paths.front() +
                                   " and " + std::to_string(paths.size() - 1) + " more)");
  }
  JobHistory history = builder.finish(log_dir);
  history.goodput = accountant.finish();
  history.drill = drill.scores();
  return history;
}

std::vector<FaultScore> read_drill_scores(const std::string& log_dir) {
  DrillScorer drill;
  read_journals(
      find_journals(log_dir),
      [&](bool coordinator, const std::string&) { drill.begin_journal(coordinator); },
      [&](const journal::Entry& r) { drill.add(r); }, [](const JournalInfo&) {});
  return drill.scores();
}

LiveAccount read_live_goodput(const std::string& log_dir, std::int64_t now_ms) {
  const std::vector<std::string> paths = find_journals(log_dir);
  goodput::Accountant accountant;
  LiveAccount out;
  read_journals(
      paths,
      [&](bool coordinator, const std::string& folder) {
        accountant.begin_journal(coordinator, folder);
        if (!coordinator) ++out.journals;
      },
      [&](const journal::Entry& r) { accountant.add(r); },
      [&](const JournalInfo& info) { accountant.end_journal(skipped_lines(info)); });
  out.account = accountant.finish_live(now_ms);
  return out;
}

}  // namespace pai::launcher::report
