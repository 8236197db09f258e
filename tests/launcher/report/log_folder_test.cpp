#include "launcher/report/log_folder.h"

#include <catch2/catch.hpp>

#include "launcher/report/journal_fixture.h"
#include "launcher/report/report_html.h"

namespace log_folder_test {

using namespace pai::launcher::report;
using namespace pai::testing;

namespace {

// The message of the LogFolderError that reading `dir` throws ("" when none).
std::string error_of(const std::string& dir) {
  try {
    read_log_folder(dir);
  } catch (const LogFolderError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("the coordinator's journal is read first, then the others in natural order") {
  TempDir dir;
  put_journal(dir, "worker-10", line(0, "start"));
  put_journal(dir, "worker-2", line(0, "start"));
  put_journal(dir, "coordinator", line(0, "start"));
  put_journal(dir, "spare-node-4", line(0, "standby"));
  ::mkdir((dir / "forensics").c_str(), 0755);  // a folder without a journal
  spit(dir / "report.html", "old");
  CHECK(find_journals(dir.path()) == std::vector<std::string>{
                                         dir / "coordinator/events.jsonl",
                                         dir / "spare-node-4/events.jsonl",
                                         dir / "worker-2/events.jsonl",
                                         dir / "worker-10/events.jsonl",
                                     });
}

TEST_CASE("one instance's folder is a log folder of its own") {
  TempDir dir;
  const std::string path = put_journal(dir, "worker-0", restarted_job_journal());
  CHECK(find_journals(dir / "worker-0") == std::vector<std::string>{path});
  const JobHistory h = read_log_folder(dir / "worker-0");
  CHECK(h.restarts == 1);
  REQUIRE(h.journals.size() == 1);
  CHECK(h.journals[0].path == path);
  CHECK(h.journals[0].stats.records == 10);
}

TEST_CASE(
    "a missing log folder - one without journals - one with only empty journals - are errors "
    "naming it") {
  TempDir dir;
  CHECK(error_of(dir / "nope") ==
        "cannot read the log folder " + dir / "nope" + ": no such directory");
  spit(dir / "file", "x");
  CHECK(error_of(dir / "file") ==
        "cannot read the log folder " + dir / "file" + ": not a directory");
  CHECK(error_of(dir.path()) == "no journal in " + dir.path() + ": expected " + dir.path() +
                                    "/coordinator/events.jsonl or " + dir.path() +
                                    "/<role>-<i>/events.jsonl (is this the job's log folder?)");
  const std::string empty = put_journal(dir, "worker-0", "");
  CHECK(error_of(dir.path()) == empty + ": the journal is empty");
  // A partial line alone is no record either.
  spit(empty, "{\"time\":\"2026-01-02T03:0");
  CHECK(error_of(dir.path()) == empty + ": the journal is empty");
  put_journal(dir, "worker-1", "\n");
  CHECK(error_of(dir.path()) ==
        "no record in any journal of " + dir.path() + " (" + empty + " and 1 more)");
}

TEST_CASE("a job killed mid-way is read up to its last whole record") {
  TempDir dir;
  const std::string journal = restarted_job_journal();
  put_journal(dir, "worker-0", journal.substr(0, journal.size() - 20));
  const JobHistory h = read_log_folder(dir.path());
  CHECK(h.root_cause.outcome == JobOutcome::Unfinished);
  REQUIRE(h.journals.size() == 1);
  CHECK(h.journals[0].stats.partial_last_line);
  CHECK(h.journals[0].stats.records == 9);
}

TEST_CASE("the report of a log folder of format 1 is the one the launcher that wrote it made") {
  // tests/fixtures/journal-format1: a real run's journals and its launcher's report.html.
  const std::string dir = std::string(PAI_SOURCE_DIR) + "/tests/fixtures/journal-format1";
  std::string html = render_report_html(read_log_folder(dir));
  for (std::size_t at = 0; (at = html.find(dir, at)) != std::string::npos;) {
    html.replace(at, dir.size(), "/tmp/j1/out/logs");
  }
  CHECK(html == slurp(dir + "/report.html"));
}

}  // namespace log_folder_test
