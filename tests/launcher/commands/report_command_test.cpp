// `pai-launch report` and the report a job's end writes next to its logs, end to end: the
// real binary on journals, real jobs with an injected restart, and the page in headless
// Chromium (skipped where Debian's chromium is not installed; scripts/deps.sh installs it).
#include "launcher/commands/report_command.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "launcher/launcher_harness.h"
#include "launcher/multi_node/cluster_harness.h"
#include "launcher/report/journal_fixture.h"

namespace report_command_test {

using namespace pai;
using namespace pai::testing;

namespace {

bool exists(const std::string& path) { return std::filesystem::exists(path); }

// A 3-node job with a spare as its coordinator and nodes journal it: node-2's rank fails with
// an NCCL error, the job restarts, node-3 hangs and is replaced by node-4, the job succeeds.
void write_cluster_logs(const TempDir& logs) {
  auto start = [](std::int64_t ms, const std::string& inst, const std::string& node, int attempt) {
    return line(ms, "start", {{"instance", s(inst)}, {"node", s(node)}, {"attempt", i(attempt)}});
  };
  auto restart = [](std::int64_t ms, const std::string& inst) {
    return line(ms, "restart",
                {{"instance", s(inst)},
                 {"attempt", i(1)},
                 {"delaySeconds", i(1)},
                 {"reason", s("exit code 1: retryable (\"NCCL error\" in the log)")}});
  };
  std::string coordinator;
  for (int n = 1; n <= 4; ++n) {
    coordinator += line(n, "join",
                        {{"node", s("node-" + std::to_string(n))},
                         {"ready", true},
                         {"checks", s("[{\"name\":\"gpu\",\"status\":\"passed\"}]")}});
  }
  coordinator +=
      start(100, "worker-0", "node-1", 0) + start(101, "worker-1", "node-2", 0) +
      start(102, "worker-2", "node-3", 0) +
      line(20000, "exited",
           {{"instance", s("worker-1")},
            {"localRank", i(0)},
            {"status", s("{\"code\":1,\"signal\":0}")},
            {"reason", s("exit code 1: retryable (\"NCCL error\" in the log)")},
            {"stopping", false}}) +
      restart(21000, "worker-0") + restart(21001, "worker-1") + restart(21002, "worker-2") +
      start(23000, "worker-0", "node-1", 1) + start(23001, "worker-1", "node-2", 1) +
      start(23002, "worker-2", "node-3", 1) +
      line(40000, "diagnosis",
           {{"class", s("RankNonCommHang")},
            {"rank", i(4)},
            {"node", s("node-3")},
            {"gpu", i(0)},
            {"evidence", s("rank 4 never entered all_reduce #10")},
            {"severity", s("critical")}}) +
      line(45000, "hang", {{"instance", s("worker-2")}, {"exiting", false}, {"seconds", i(60)}}) +
      line(46000, "node-replaced",
           {{"instance", s("worker-2")},
            {"node", s("node-3")},
            {"spare", s("node-4")},
            {"reason", s("hang")}}) +
      start(48000, "worker-0", "node-1", 2) + start(48001, "worker-1", "node-2", 2) +
      start(48002, "worker-2", "node-4", 2) + line(90000, "job-succeeded");
  put_journal(logs, "coordinator", coordinator);
  for (int n = 0; n < 3; ++n) {
    std::string journal = line(0, "launcher-started",
                               {{"job", s("cluster-demo")},
                                {"node", s("node-" + std::to_string(n + 1))},
                                {"instance", s("worker-" + std::to_string(n))}});
    for (int k = 0; k < 80; ++k) {
      journal += line(500 + k * 1000, "checkpoint",
                      {{"instance", s("worker-" + std::to_string(n))},
                       {"step", i(k * (k < 40 ? 20 : 12))},
                       {"path", s("/ckpt")}});
    }
    put_journal(logs, "worker-" + std::to_string(n), journal);
  }
}

// Colours of the PNG at argv[1], in its first argv[2] rows, counted: "size WxH", then "R,G,B
// COUNT" for each colour given as an argument ("R,G,B", matched within 3 per channel). Only
// zlib: Debian's python3, no PIL.
constexpr const char* kPngColours = R"PY(
import sys, zlib, struct
from collections import Counter
data = open(sys.argv[1], 'rb').read()
assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
pos, idat = 8, b''
while pos < len(data):
    n, kind = struct.unpack('>I4s', data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b'IHDR':
        w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
    elif kind == b'IDAT':
        idat += body
    pos += 12 + n
assert depth == 8 and ctype in (2, 6), 'unexpected PNG format %d/%d' % (depth, ctype)
bpp = 3 if ctype == 2 else 4
raw = zlib.decompress(idat)
stride = w * bpp
rows_wanted = min(h, int(sys.argv[2]))
pixels, prev, at = Counter(), bytes(stride), 0
for y in range(rows_wanted):
    f = raw[at]; cur = raw[at + 1:at + 1 + stride]; at += 1 + stride
    if f == 0:
        line = cur
    elif f == 2:
        line = bytes([(x + p) & 255 for x, p in zip(cur, prev)])
    else:
        line = bytearray(cur)
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
                continue
            b = prev[x]
            if f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
                continue
            c = prev[x - bpp] if x >= bpp else 0
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        line = bytes(line)
    pixels.update(zip(line[0::bpp], line[1::bpp], line[2::bpp]))
    prev = line
print('size %dx%d' % (w, h))
for arg in sys.argv[3:]:
    r, g, b = (int(v) for v in arg.split(','))
    n = sum(k for (pr, pg, pb), k in pixels.items()
            if abs(pr - r) <= 3 and abs(pg - g) <= 3 and abs(pb - b) <= 3)
    print('%d,%d,%d %d' % (r, g, b, n))
)PY";

// Runs `command` with /bin/sh; its exit status.
int shell(const std::string& command) {
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// "R,G,B N" lines of kPngColours' output, as a map.
std::map<std::string, long> colour_counts(const std::string& output) {
  std::map<std::string, long> counts;
  std::istringstream in(output);
  for (std::string key; in >> key;) {
    long n = 0;
    if (key == "size") {
      in >> key;
      continue;
    }
    in >> n;
    counts[key] = n;
  }
  return counts;
}

}  // namespace

TEST_CASE("pai-launch report writes the report of a log folder where -o says") {
  TempDir dir;
  write_cluster_logs(dir);
  const std::string out = dir / "out.html";
  auto r = run_launcher(dir, {"report", dir.path(), "-o", out});
  CHECK(r.code == 0);
  CHECK(r.err == "pai-launch: report: " + out + "\n");
  const std::string html = slurp(out);
  CHECK(html.find("<title>pai job report: cluster-demo (succeeded)</title>") != std::string::npos);
  CHECK(html.find("the job succeeded after 1 restart</p>") != std::string::npos);
  CHECK(html.find("instance restarts <b>3</b>") != std::string::npos);
  CHECK(html.find(">node-4</text>") != std::string::npos);
  CHECK(html.find("<svg id=\"step-rate-svg\"") != std::string::npos);
  CHECK_FALSE(exists(dir / "report.html"));

  auto by_default = run_launcher(dir, {"report", dir.path()});
  CHECK(by_default.code == 0);
  CHECK(slurp(dir / "report.html") == html);

  auto to_stdout = run_launcher(dir, {"report", dir.path(), "-o", "-"});
  CHECK(to_stdout.code == 0);
  CHECK(to_stdout.out == html);
}

TEST_CASE("pai-launch report without a journal to read exits 2 naming the folder or file") {
  TempDir dir;
  auto missing = run_launcher(dir, {"report", dir / "logs"});
  CHECK(missing.code == 2);
  CHECK(missing.err ==
        "pai-launch: error: cannot read the log folder " + dir / "logs" + ": no such directory\n");
  ::mkdir((dir / "logs").c_str(), 0755);
  auto none = run_launcher(dir, {"report", dir / "logs"});
  CHECK(none.code == 2);
  CHECK(none.err.rfind("pai-launch: error: no journal in " + dir / "logs" + ": expected ", 0) == 0);
  ::mkdir((dir / "logs/worker-0").c_str(), 0755);
  spit(dir / "logs/worker-0/events.jsonl", "");
  auto empty = run_launcher(dir, {"report", dir / "logs"});
  CHECK(empty.code == 2);
  CHECK(empty.err ==
        "pai-launch: error: " + dir / "logs/worker-0/events.jsonl" + ": the journal is empty\n");
  CHECK_FALSE(exists(dir / "logs/report.html"));

  auto usage = run_launcher(dir, {"report"});
  CHECK(usage.code == 2);
  CHECK(usage.err.find("logdir is required") != std::string::npos);
}

TEST_CASE("pai-launch report exits 1 when the report cannot be written") {
  TempDir dir;
  put_journal(dir, "worker-0", restarted_job_journal());
  auto r = run_launcher(dir, {"report", dir.path(), "-o", dir / "no/such/dir/r.html"});
  CHECK(r.code == 1);
  CHECK(r.err == "pai-launch: error: cannot write " + dir / "no/such/dir/r.html" +
                     ": No such file or directory\n");
}

TEST_CASE("a one-node job's end writes report.html next to its logs - with its restart") {
  TempDir dir;
  Plan plan = local_plan("report-restart",
                         "if [ \"$PAI_RESTART_COUNT\" = 0 ]; then echo 'NCCL error: injected' >&2; "
                         "exit 1; fi; exit 0");
  auto r = run_launcher(dir, {"run", "--plan", write_plan(dir, plan), "--log-dir", dir / "logs"});
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(count_lines_with(r.err, "pai-launch: report: " + dir / "logs/report.html") == 1);
  const std::string html = slurp(dir / "logs/report.html");
  CHECK(html.find("<title>pai job report: report-restart (succeeded)</title>") !=
        std::string::npos);
  CHECK(html.find("the job succeeded after 1 restart") != std::string::npos);
  CHECK(html.find("<g class=\"attempt a-failed\"><title>worker-0 #0 on localhost") !=
        std::string::npos);
  CHECK(html.find("<g class=\"attempt a-succeeded\"><title>worker-0 #1 on localhost") !=
        std::string::npos);
  CHECK(html.find("<g class=\"mark k-restart\">") != std::string::npos);
  CHECK(html.find("NCCL error: injected") != std::string::npos);
}

TEST_CASE("a report that cannot be written is one warning - the job's exit code and logs stand") {
  TempDir dir;
  Plan plan = local_plan("report-unwritable", "echo hello; exit 3");
  plan.fault_tolerance.max_restarts = 0;
  ::mkdir((dir / "logs").c_str(), 0755);
  ::mkdir((dir / "logs/report.html").c_str(), 0755);  // in the way of the report
  auto r = run_launcher(dir, {"run", "--plan", write_plan(dir, plan), "--log-dir", dir / "logs"});
  INFO(r.err);
  CHECK(r.code == 1);
  CHECK(count_lines_with(r.err, "pai-launch: warning: cannot write the job report " +
                                    dir / "logs/report.html" +
                                    ": Is a directory; the logs are intact") == 1);
  CHECK(count_lines_with(r.err, "warning") == 1);
  CHECK(slurp(dir / "logs/worker-0/rank-0.attempt-0.log") == "hello\n");
  CHECK(slurp(dir / "logs/worker-0/events.jsonl").find("\"event\":\"job-failed\"") !=
        std::string::npos);
  CHECK(std::filesystem::is_directory(dir / "logs/report.html"));
  std::size_t entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir / "logs"))
    entries += !e.path().empty();
  CHECK(entries == 2);  // worker-0 and the folder in the way: no temporary file left
}

TEST_CASE(
    "a multi-node job's report is written once - by the coordinator's launcher - with the "
    "restart") {
  TempDir out;
  const std::string marks = out / "marks";
  ::mkdir(marks.c_str(), 0755);
  // Rank 1 (node-2) fails on its first attempt once both ranks started; the job restarts.
  Plan plan = cluster_plan("report-cluster", 176, 2, 0,
                           "touch " + marks +
                               "/rank-$RANK.attempt-$PAI_RESTART_COUNT\n"
                               "if [ \"$RANK\" = 1 ] && [ \"$PAI_RESTART_COUNT\" = 0 ]; then\n"
                               "  while [ $(ls " +
                               marks +
                               " | grep -c 'attempt-0') -lt 2 ]; do sleep 0.05; done\n"
                               "  echo 'NCCL error: injected on node-2' >&2; exit 1\n"
                               "fi\nsleep 0.3\n");
  Cluster cluster(plan);
  cluster.start_all();
  const auto codes = cluster.wait_all();
  INFO(cluster.transcript());
  for (const auto& [node, code] : codes) CHECK(code == 0);
  const std::string report = cluster.dir() / "logs/report.html";
  CHECK(count_lines_with(cluster.launcher("node-1").err(), "pai-launch: report: " + report) == 1);
  CHECK(count_lines_with(cluster.launcher("node-2").err(), "pai-launch: report:") == 0);
  const std::string html = slurp(report);
  CHECK(html.find("the job succeeded after 1 restart</p>") != std::string::npos);
  CHECK(html.find("instance restarts <b>2</b>") != std::string::npos);
  CHECK(html.find(">node-1</text>") != std::string::npos);
  CHECK(html.find(">node-2</text>") != std::string::npos);
  CHECK(html.find("<g class=\"attempt a-failed\"><title>worker-1 #0 on node-2") !=
        std::string::npos);
  CHECK(html.find("<g class=\"mark k-restart\"><title>") != std::string::npos);
  CHECK(html.find("NCCL error") != std::string::npos);
  CHECK(leftover_processes("report-cluster").empty());
}

TEST_CASE("headless Chromium loads the report without console errors and shows the timeline") {
  if (shell("command -v chromium >/dev/null 2>&1") != 0) {
    // Catch2 v2 has no SKIP: said as the other tests of optional tools say it.
    WARN("skipped: chromium is not installed (scripts/deps.sh installs it)");
    return;
  }
  TempDir dir;
  write_cluster_logs(dir);
  auto r = run_launcher(dir, {"report", dir.path()});
  REQUIRE(r.code == 0);
  const std::string page = "file://" + dir / "report.html";
  const std::string chromium =
      "timeout 60 chromium --headless --no-sandbox --disable-gpu "
      "--no-first-run --user-data-dir=" +
      dir / "profile" + " --window-size=1400,900 --enable-logging=stderr --v=0 ";
  const std::string png = dir / "shot.png";
  CHECK(shell(chromium + "--screenshot=" + png + " " + page + " >" + dir / "shot.out" + " 2>" +
              dir / "shot.err") == 0);
  // Console messages (errors, uncaught exceptions) are logged as "...:CONSOLE(N)] ...".
  const std::string log = slurp(dir / "shot.err") + slurp(dir / "shot.out");
  INFO(log);
  CHECK(count_lines_with(log, ":CONSOLE") == 0);
  CHECK(count_lines_with(log, "Uncaught") == 0);
  CHECK(count_lines_with(log, "Failed to load resource") == 0);

  // The screenshot's top 600 rows (the header and the timeline): the attempts' bars in their
  // colours, far more of each than the legend's swatch: green (succeeded, #2da44e), red
  // (failed, #e5484d), grey (stopped, #99a3ad), amber (hung, #e3a008).
  spit(dir / "png_colours.py", kPngColours);
  REQUIRE(shell("/usr/bin/python3 " + dir / "png_colours.py" + " " + png +
                " 600 45,164,78 229,72,77 153,163,173 227,160,8 >" + dir / "colours.txt") == 0);
  const std::string colours = slurp(dir / "colours.txt");
  INFO(colours);
  CHECK(colours.rfind("size 1400x900\n", 0) == 0);
  auto counts = colour_counts(colours);
  CHECK(counts["45,164,78"] > 2000);
  CHECK(counts["229,72,77"] > 1000);
  CHECK(counts["153,163,173"] > 2000);
  CHECK(counts["227,160,8"] > 1000);

  // The DOM Chromium built has the SVG and its shapes (a parse error would drop them).
  CHECK(shell(chromium + "--dump-dom " + page + " >" + dir / "dom.html" + " 2>/dev/null") == 0);
  const std::string dom = slurp(dir / "dom.html");
  CHECK(dom.find("<svg id=\"timeline-svg\"") != std::string::npos);
  std::size_t attempts = 0;
  for (std::size_t at = dom.find("class=\"attempt "); at != std::string::npos;
       at = dom.find("class=\"attempt ", at + 1)) {
    ++attempts;
  }
  CHECK(attempts == 9);
}

}  // namespace report_command_test
