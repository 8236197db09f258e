#include "launcher/coordinator/metrics_text.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

#include "machine_harness.h"
#include "support/temp_dir.h"

namespace metrics_text_test {

using namespace pai::launcher::coordinator;
using namespace pai::launcher::coordinator::testing;
using pai::net::HeartbeatInstance;
using pai::net::NodeHeartbeat;
using pai::net::RankTelemetry;
using pai::net::RankUsage;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The value of the sample written exactly as `series` (name and labels); FAILs when absent.
std::string value_of(const std::string& text, const std::string& series) {
  for (const std::string& line : lines_of(text)) {
    if (line.rfind(series + " ", 0) == 0) return line.substr(series.size() + 1);
  }
  FAIL("no sample " << series << " in\n" << text);
  return "";
}

bool has_series(const std::string& text, const std::string& prefix) {
  for (const std::string& line : lines_of(text)) {
    if (line.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

// A heartbeat of `instance` with one telemetry window for each of `ranks`: `steps` steps
// taking `step_us` together, and the kernel's figures.
Json heartbeat(int instance, const std::vector<int>& ranks, std::int64_t steps,
               std::int64_t step_us, std::int64_t step = 7) {
  HeartbeatInstance beat;
  beat.instance = instance;
  beat.step = step;
  for (int r : ranks) {
    RankTelemetry t;
    t.rank = r;
    t.step = step;
    t.steps = steps;
    t.step_us = step_us;
    t.window_us = 1000000;
    t.comm_us = 250000;
    beat.telemetry.push_back(t);
    beat.ranks.push_back(RankUsage{.rank = r,
                                   .pid = 100 + r,
                                   .cpu_ms = 1500,
                                   .memory_bytes = 1 << 20,
                                   .memory_peak_bytes = 2 << 20});
  }
  return pai::net::to_json(NodeHeartbeat{{beat}});
}

pai::Plan one_rank_per_node(int nodes) {
  pai::Plan plan = pai::testing::make_test_plan(nodes, 1);
  return plan;
}

}  // namespace

TEST_CASE("label values are escaped - backslash - quote - newline - bad UTF-8") {
  CHECK(escape_label_value("plain") == "plain");
  CHECK(escape_label_value("a\"b\\c\nd") == "a\\\"b\\\\c\\nd");
  CHECK(escape_label_value("caf\xC3\xA9") == "caf\xC3\xA9");
  CHECK(escape_label_value("x\xFFy") == "x\xEF\xBF\xBDy");
}

TEST_CASE("metrics during the rendezvous - job state - nodes - no rank series") {
  MachineHarness h;
  h.join("node-0");
  h.join("node-1", failing_checks());
  const std::string text = h.machine.metrics(h.now + 2500ms);
  CHECK(value_of(text, "pai_job_info{pai_job=\"test-job\"}") == "1");
  CHECK(value_of(text, "pai_job_state{state=\"rendezvous\"}") == "1");
  CHECK(value_of(text, "pai_job_state{state=\"running\"}") == "0");
  CHECK(value_of(text, "pai_job_uptime_seconds") == "2.5");
  CHECK(value_of(text, "pai_nodes{state=\"ready\"}") == "1");
  CHECK(value_of(text, "pai_nodes{state=\"checking\"}") == "1");
  CHECK(value_of(text, "pai_nodes{state=\"no-connection\"}") == "2");  // node-2, spare-0
  CHECK(value_of(text, "pai_ranks") == "5");
  CHECK(value_of(text, "pai_ranks_up") == "0");
  CHECK(value_of(text, "pai_restarts_total") == "0");
  CHECK(value_of(text, "pai_check_runs_total{check=\"gpu\",status=\"passed\"}") == "2");
  CHECK(value_of(text, "pai_check_runs_total{check=\"burn\",status=\"failed\"}") == "1");
  CHECK(value_of(text, "pai_node_check_passed{node=\"node-1\",check=\"burn\"}") == "0");
  CHECK(value_of(text, "pai_node_check_passed{node=\"node-0\",check=\"burn\"}") == "1");
  CHECK(value_of(text, "pai_instance_restarts_total{pai_instance=\"worker-0\"}") == "0");
  CHECK_FALSE(has_series(text, "pai_rank_"));
  CHECK_FALSE(has_series(text, "pai_goodput_ratio"));
  CHECK_FALSE(has_series(text, "pai_node_heartbeat_age_seconds{"));  // none sent yet
}

TEST_CASE("metrics while running - ranks up - heartbeat age - steps - goodput") {
  MachineHarness h;
  h.join_all();
  h.receive("node-0", heartbeat(0, {0, 1}, 2, 600000));  // two steps of 0.3 s each
  h.now += 1500ms;
  h.receive("node-1", heartbeat(1, {2, 3}, 1, 50000));
  const auto now = h.now + 500ms;
  const std::string text = h.machine.metrics(now);
  CHECK(value_of(text, "pai_job_state{state=\"running\"}") == "1");
  CHECK(value_of(text, "pai_ranks_up") == "5");
  CHECK(value_of(text, "pai_nodes{state=\"running\"}") == "3");
  CHECK(value_of(text, "pai_node_state{node=\"node-0\",state=\"running\"}") == "1");
  CHECK(value_of(text, "pai_node_state{node=\"spare-0\",state=\"no-connection\"}") == "1");
  CHECK(value_of(text, "pai_node_heartbeat_age_seconds{node=\"node-0\"}") == "2");
  CHECK(value_of(text, "pai_node_heartbeat_age_seconds{node=\"node-1\"}") == "0.5");
  CHECK(value_of(text, "pai_instance_step{pai_instance=\"worker-0\"}") == "7");
  CHECK(value_of(text, "pai_instance_attempt{pai_instance=\"worker-1\"}") == "0");
  CHECK(value_of(text, "pai_rank_step{rank=\"1\"}") == "7");
  CHECK(value_of(text, "pai_rank_step_seconds_bucket{rank=\"0\",le=\"0.25\"}") == "0");
  CHECK(value_of(text, "pai_rank_step_seconds_bucket{rank=\"0\",le=\"0.5\"}") == "2");
  CHECK(value_of(text, "pai_rank_step_seconds_bucket{rank=\"0\",le=\"+Inf\"}") == "2");
  CHECK(value_of(text, "pai_rank_step_seconds_sum{rank=\"0\"}") == "0.6");
  CHECK(value_of(text, "pai_rank_step_seconds_count{rank=\"0\"}") == "2");
  CHECK(value_of(text, "pai_rank_step_seconds_bucket{rank=\"2\",le=\"0.05\"}") == "1");
  CHECK(value_of(text, "pai_rank_collective_seconds_total{rank=\"3\"}") == "0.25");
  CHECK(value_of(text, "pai_rank_cpu_seconds_total{rank=\"2\"}") == "1.5");
  CHECK(value_of(text, "pai_rank_memory_bytes{rank=\"2\"}") == "1048576");
  CHECK_FALSE(has_series(text, "pai_rank_step{rank=\"4\"}"));  // ps-0 sent nothing
  // 2 x 0.6 s + 2 x 0.05 s of steps over 5 ranks x 2 s since the coordinator started.
  CHECK(value_of(text, "pai_training_step_seconds_total") == "1.3");
  CHECK(std::stod(value_of(text, "pai_goodput_ratio")) == Approx(0.13));
}

TEST_CASE("the goodput account by cause - once the coordinator's launcher read it") {
  MachineHarness h;
  h.join_all();
  CHECK_FALSE(has_series(h.machine.metrics(h.now), "pai_goodput_seconds_total"));
  CHECK_FALSE(has_series(h.machine.metrics(h.now), "pai_goodput_ettr"));
  GoodputReading reading;
  reading.causes[pai::launcher::goodput::Cause::Productive] = 90;
  reading.causes[pai::launcher::goodput::Cause::RestartBackoff] = 7.5;
  reading.causes[pai::launcher::goodput::Cause::StartUp] = 2.5;
  reading.ettr = 0.9;
  reading.journals = 3;
  h.machine.goodput(reading);
  const std::string text = h.machine.metrics(h.now);
  CHECK(value_of(text, "pai_goodput_seconds_total{cause=\"productive\"}") == "90");
  CHECK(value_of(text, "pai_goodput_seconds_total{cause=\"restart-backoff\"}") == "7.5");
  CHECK(value_of(text, "pai_goodput_seconds_total{cause=\"start-up\"}") == "2.5");
  CHECK(value_of(text, "pai_goodput_seconds_total{cause=\"unknown\"}") == "0");
  CHECK(value_of(text, "pai_goodput_ettr") == "0.9");
  int causes = 0;
  for (const std::string& line : lines_of(text)) {
    if (line.rfind("pai_goodput_seconds_total{", 0) == 0) ++causes;
  }
  CHECK(causes == pai::launcher::goodput::kCauses);
  // A later reading replaces it.
  reading.ettr = 0.5;
  h.machine.goodput(reading);
  CHECK(value_of(h.machine.metrics(h.now), "pai_goodput_ettr") == "0.5");
}

TEST_CASE("histogram buckets are cumulative and end at the count") {
  MachineHarness h;
  h.join_all();
  // Windows of 1 step each, from 5 ms to 100 s: every bucket and +Inf get some.
  for (const std::int64_t us : {5000, 20000, 40000, 90000, 200000, 400000, 900000, 2000000, 4000000,
                                9000000, 20000000, 50000000, 100000000}) {
    h.receive("node-0", heartbeat(0, {0}, 1, us));
  }
  const std::string text = h.machine.metrics(h.now);
  std::vector<double> bounds;
  std::vector<long> counts;
  for (const std::string& line : lines_of(text)) {
    const std::string prefix = "pai_rank_step_seconds_bucket{rank=\"0\",le=\"";
    if (line.rfind(prefix, 0) != 0) continue;
    const std::size_t quote = line.find('"', prefix.size());
    const std::string le = line.substr(prefix.size(), quote - prefix.size());
    bounds.push_back(le == "+Inf" ? HUGE_VAL : std::stod(le));
    counts.push_back(std::stol(line.substr(line.rfind(' ') + 1)));
  }
  REQUIRE(bounds.size() == kStepBuckets.size() + 1);
  for (std::size_t i = 1; i < bounds.size(); ++i) {
    CHECK(bounds[i] > bounds[i - 1]);
    CHECK(counts[i] == counts[i - 1] + 1);  // one window in each
  }
  CHECK(counts.front() == 1);
  CHECK(std::to_string(counts.back()) == value_of(text, "pai_rank_step_seconds_count{rank=\"0\"}"));
}

TEST_CASE("restarts are counted by cause - per instance and in all") {
  MachineHarness h;
  h.join_all();
  h.receive("node-1", exited(1, 0, 1, 0, true, "NCCL error: retryable"));
  h.stopped("node-0", 0);
  h.stopped("node-1", 1);
  h.stopped("node-2", 2);
  REQUIRE(h.records("restart").size() == 3);
  CHECK(h.records("restart")[0].fields.at("signature") == "pattern:NCCL error");
  const std::string text = h.machine.metrics(h.now);
  CHECK(value_of(text, "pai_restarts_total") == "3");
  CHECK(
      value_of(text, "pai_restarts_by_reason_total{reason=\"log-pattern\",class=\"NCCL error\"}") ==
      "3");
  CHECK(value_of(text, "pai_instance_restarts_total{pai_instance=\"worker-1\"}") == "1");
  CHECK(value_of(text, "pai_instance_restarts_total{pai_instance=\"ps-0\"}") == "1");
}

TEST_CASE("every family has one HELP and one TYPE line before its samples - names are pai_") {
  MachineHarness h;
  h.join_all();
  h.receive("node-0", heartbeat(0, {0, 1}, 2, 600000));
  const std::string text = h.machine.metrics(h.now + 1s);
  std::set<std::string> families;
  std::string current;
  for (const std::string& line : lines_of(text)) {
    if (line.rfind("# HELP ", 0) == 0) {
      current = line.substr(7, line.find(' ', 7) - 7);
      CHECK(families.insert(current).second);
      CHECK(current.rfind("pai_", 0) == 0);
      continue;
    }
    if (line.rfind("# TYPE ", 0) == 0) {
      CHECK(line.rfind("# TYPE " + current + " ", 0) == 0);
      continue;
    }
    INFO(line);
    CHECK(line.rfind(current, 0) == 0);
  }
  CHECK(families.count("pai_rank_step_seconds") == 1);
  CHECK(families.size() >= 20);
}

TEST_CASE("at most 50 series per rank - checks per node capped") {
  // One rank per node: its node's and instance's series fall to it alone.
  pai::Plan plan = one_rank_per_node(2);
  MachineHarness h(plan);
  std::vector<pai::checks::CheckResult> many;
  for (int k = 0; k < 40; ++k) {
    many.push_back(pai::checks::make_result("custom-" + std::to_string(k),
                                            pai::checks::CheckResult::Passed, "ok"));
  }
  const Json checks = Json::parse(pai::checks::to_json(many));
  for (const pai::Placement& p : plan.placements) h.join(p.host.name, checks);
  h.receive("node-0", heartbeat(0, {0}, 1, 300000));
  const std::string text = h.machine.metrics(h.now + 1s);
  int node0 = 0;
  int checks_of_node0 = 0;
  for (const std::string& line : lines_of(text)) {
    if (line.empty() || line[0] == '#') continue;
    const bool mine = line.find("node=\"node-0\"") != std::string::npos ||
                      line.find("pai_instance=\"worker-0\"") != std::string::npos ||
                      line.find("rank=\"0\"") != std::string::npos;
    node0 += mine;
    checks_of_node0 += line.rfind("pai_node_check_passed{node=\"node-0\"", 0) == 0;
  }
  CHECK(checks_of_node0 == kMaxChecksPerNode);
  CHECK(node0 <= kMaxSeriesPerRank);
  CHECK(node0 > 30);  // what the test counts is there
}

TEST_CASE("promtool accepts the rendered text") {
  if (std::system("command -v promtool >/dev/null 2>&1") != 0) {
    // Catch2 v2 has no SKIP: said as the other tests of optional tools say it.
    WARN("skipped: promtool is not installed (scripts/deps.sh installs prometheus)");
    return;
  }
  MachineHarness h;
  h.join_all();
  h.receive("node-0", heartbeat(0, {0, 1}, 2, 600000));
  h.receive("node-1", exited(1, 0, 1, 0, true, "NCCL error: retryable"));
  GoodputReading reading;
  reading.causes[pai::launcher::goodput::Cause::Productive] = 12;
  reading.ettr = 0.75;
  h.machine.goodput(reading);
  pai::testing::TempDir dir;
  pai::testing::spit(dir / "metrics.txt", h.machine.metrics(h.now + 1s));
  const std::string command =
      "promtool check metrics < " + dir / "metrics.txt" + " > " + dir / "out.txt" + " 2>&1";
  const int code = std::system(command.c_str());
  INFO(pai::testing::slurp(dir / "out.txt"));
  CHECK(code == 0);
}

TEST_CASE("GPU series stay within 50 per rank - 3 GPUs of a one-rank node - promtool accepts") {
  pai::Plan plan = one_rank_per_node(2);
  plan.monitoring.gpu_idle.window_seconds = 1;
  MachineHarness h(plan);
  std::vector<pai::checks::CheckResult> many;
  for (int k = 0; k < 40; ++k) {
    many.push_back(pai::checks::make_result("custom-" + std::to_string(k),
                                            pai::checks::CheckResult::Passed, "ok"));
  }
  const Json checks = Json::parse(pai::checks::to_json(many));
  for (const pai::Placement& p : plan.placements) h.join(p.host.name, checks);
  Json beat = heartbeat(0, {0}, 1, 300000);
  for (int g = 0; g < 8; ++g) {
    beat["gpus"].push_back(Json{{"index", g},
                                {"utilization", 10 * g},
                                {"memoryUsedBytes", 1 << 30},
                                {"memoryTotalBytes", 80ll << 30}});
  }
  // GPUs 0-2 (0%, 10%, 20%) idle for the whole window of 1 s: three verdicts, counted under
  // their node (a node-level series of its own).
  h.receive("node-0", beat);
  h.advance(1s);
  h.receive("node-0", beat);
  const std::string text = h.machine.metrics(h.now + 1s);
  int node0 = 0;
  int gpus = 0;
  for (const std::string& line : lines_of(text)) {
    if (line.empty() || line[0] == '#') continue;
    node0 += line.find("node=\"node-0\"") != std::string::npos ||
             line.find("pai_instance=\"worker-0\"") != std::string::npos ||
             line.find("rank=\"0\"") != std::string::npos;
    gpus += line.rfind("pai_gpu_utilization_ratio{", 0) == 0;
  }
  CHECK(node0 <= kMaxSeriesPerRank);
  CHECK(node0 > 45);  // the GPU series are among what the test counts
  CHECK(gpus == kMaxGpusPerRank);
  CHECK(value_of(text, "pai_gpu_utilization_ratio{node=\"node-0\",gpu=\"2\"}") == "0.2");
  CHECK(value_of(text, "pai_gpu_memory_used_bytes{node=\"node-0\",gpu=\"0\"}") == "1073741824");
  CHECK(value_of(text, "pai_gpu_idle_verdicts_total{node=\"node-0\"}") == "3");
  CHECK_FALSE(has_series(text, "pai_gpu_utilization_ratio{node=\"node-0\",gpu=\"3\"}"));
  if (std::system("command -v promtool >/dev/null 2>&1") != 0) {
    WARN("skipped promtool: it is not installed (scripts/deps.sh installs prometheus)");
    return;
  }
  pai::testing::TempDir dir;
  pai::testing::spit(dir / "metrics.txt", text);
  const std::string command =
      "promtool check metrics < " + dir / "metrics.txt" + " > " + dir / "out.txt" + " 2>&1";
  const int code = std::system(command.c_str());
  INFO(pai::testing::slurp(dir / "out.txt"));
  CHECK(code == 0);
}

}  // namespace metrics_text_test
