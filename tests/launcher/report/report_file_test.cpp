#include "launcher/report/report_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <system_error>

#include "launcher/report/journal_fixture.h"
#include "launcher/report/log_folder.h"

namespace report_file_test {

using namespace pai::launcher::report;
using namespace pai::testing;

namespace {

// Names in `dir`, sorted.
std::vector<std::string> names_in(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// What write_report_beside_logs says on a pipe.
std::string said_by(const std::string& log_dir, bool* ok) {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  *ok = write_report_beside_logs(log_dir, fds[1]);
  ::close(fds[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) text.append(buf, n);
  ::close(fds[0]);
  return text;
}

}  // namespace

TEST_CASE("the report replaces the file whole and leaves no temporary file") {
  TempDir dir;
  put_journal(dir, "worker-0", restarted_job_journal());
  spit(dir / "report.html", "an older report");
  write_report(dir.path(), dir / "report.html");
  const std::string html = slurp(dir / "report.html");
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(html.find("the job succeeded after 1 restart") != std::string::npos);
  CHECK(names_in(dir.path()) == std::vector<std::string>{"report.html", "worker-0"});
}

TEST_CASE("a report that cannot be written is an error naming it - and nothing is left behind") {
  TempDir dir;
  put_journal(dir, "worker-0", restarted_job_journal());
  ::mkdir((dir / "report.html").c_str(), 0755);  // rename(2) cannot replace a folder by a file
  try {
    write_report(dir.path(), dir / "report.html");
    FAIL("no error");
  } catch (const std::system_error& e) {
    CHECK(std::string(e.what()) == "cannot write " + dir / "report.html" + ": Is a directory");
  }
  CHECK(names_in(dir.path()) == std::vector<std::string>{"report.html", "worker-0"});
  CHECK_THROWS_AS(write_report(dir.path(), dir / "no/such/folder/r.html"), std::system_error);
}

TEST_CASE("at a job's end the report goes next to the logs and a failure is one warning") {
  TempDir dir;
  put_journal(dir, "worker-0", restarted_job_journal());
  bool ok = false;
  CHECK(said_by(dir.path(), &ok) == "pai-launch: report: " + dir / "report.html" + "\n");
  CHECK(ok);
  CHECK(slurp(dir / "report.html").find("<svg id=\"timeline-svg\"") != std::string::npos);

  std::filesystem::remove(dir / "report.html");
  ::mkdir((dir / "report.html").c_str(), 0755);
  CHECK(said_by(dir.path(), &ok) == "pai-launch: warning: cannot write the job report " +
                                        dir / "report.html" +
                                        ": Is a directory; the logs are intact\n");
  CHECK_FALSE(ok);
  CHECK(slurp(dir / "worker-0/events.jsonl") == restarted_job_journal());

  // Journals over the limit: no report at the end, and a line saying how to write one.
  std::filesystem::remove(dir / "report.html");
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  CHECK_FALSE(write_report_beside_logs(dir.path(), fds[1], 10));
  ::close(fds[1]);
  char buf[512];
  const ssize_t n = ::read(fds[0], buf, sizeof buf);
  ::close(fds[0]);
  REQUIRE(n > 0);
  CHECK(std::string(buf, static_cast<std::size_t>(n)) ==
        "pai-launch: report: not written at the end: the journals hold 0 MiB; pai-launch "
        "report " + dir.path() + " writes it\n");
  CHECK_FALSE(std::filesystem::exists(dir / "report.html"));

  TempDir empty;
  CHECK(said_by(empty / "nope", &ok) == "pai-launch: warning: cannot write the job report " +
                                            empty / "nope/report.html" +
                                            ": cannot read the log folder " + empty / "nope" +
                                            ": no such directory; the logs are intact\n");
  CHECK_FALSE(ok);
}

}  // namespace report_file_test
