// The metrics endpoint of a real job (spec `monitoring`): scraped by hand and checked with
// promtool, and scraped by a real Prometheus server whose query API must see the job's
// restart. Each test has its own loopback addresses (127.180.0.0/24, 127.181.0.0/24), so
// ports never collide with other tests.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "launcher/launcher_harness.h"
#include "launcher/multi_node/cluster_harness.h"
#include "support/http_get.h"

namespace served_metrics_test {

using namespace pai;
using namespace pai::testing;
using namespace std::chrono_literals;

namespace {

constexpr int kMetricsPort = 9400;

bool have(const char* tool) {
  return std::system(("command -v " + std::string(tool) + " >/dev/null 2>&1").c_str()) == 0;
}

// A one-node job on 127.<subnet>.0.1 serving metrics there: its first attempt fails with a
// retryable error, its second touches <marks>/running and waits for <marks>/stop.
Plan restarting_job(const std::string& name, int subnet, const std::string& marks) {
  Plan plan = cluster_plan(name, subnet, 1, 0,
                           "if [ \"$PAI_RESTART_COUNT\" = 0 ]; then echo 'NCCL error: injected' "
                           ">&2; exit 1; fi\n"
                           "touch " +
                               marks +
                               "/running\n"
                               "i=0; while [ ! -e " +
                               marks +
                               "/stop ] && [ $i -lt 600 ]; do "
                               "sleep 0.1; i=$((i+1)); done\n");
  plan.monitoring.metrics_port = kMetricsPort;
  plan.monitoring.metrics_address = "127." + std::to_string(subnet) + ".0.1";
  return plan;
}

// A process started with `argv`, its output in `log`; SIGTERM then SIGKILL by PID when done.
class Child {
 public:
  Child(const std::vector<std::string>& argv, const std::string& log) {
    pid_ = ::fork();
    if (pid_ == 0) {
      const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(out, 1);
      ::dup2(out, 2);
      sigset_t none;
      sigemptyset(&none);
      sigprocmask(SIG_SETMASK, &none, nullptr);
      std::vector<char*> args;
      for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      ::execvp(args[0], args.data());
      ::_exit(127);
    }
  }
  ~Child() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    for (int k = 0; k < 100; ++k) {
      if (::waitpid(pid_, nullptr, WNOHANG) == pid_) return;
      std::this_thread::sleep_for(50ms);
    }
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

 private:
  pid_t pid_ = -1;
};

}  // namespace

TEST_CASE("a one-node job serves /metrics - promtool accepts a real scrape") {
  TempDir marks;
  Plan plan = restarting_job("metrics-scrape", 180, marks.path());
  Cluster cluster(plan);
  Launcher& launcher = cluster.start("node-1");
  REQUIRE(wait_for_file(marks / "running", 20));

  const std::string reply = http_get("127.180.0.1", kMetricsPort, "/metrics");
  INFO(reply);
  REQUIRE(reply.rfind("HTTP/1.1 200 OK\r\n", 0) == 0);
  CHECK(reply.find("\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n") !=
        std::string::npos);
  const std::string metrics = http_body(reply);
  CHECK(metrics.find("\npai_restarts_total 1\n") != std::string::npos);
  CHECK(metrics.find("\npai_restarts_by_reason_total{reason=\"log-pattern\",class=\"NCCL "
                     "error\"} 1\n") != std::string::npos);
  CHECK(metrics.find("\npai_job_state{state=\"running\"} 1\n") != std::string::npos);
  CHECK(metrics.find("\npai_ranks_up 1\n") != std::string::npos);
  CHECK(metrics.find("\npai_instance_attempt{pai_instance=\"worker-0\"} 1\n") != std::string::npos);
  CHECK(metrics.find("pai_job_info{pai_job=\"metrics-scrape\"} 1\n") != std::string::npos);
  CHECK(http_get("127.180.0.1", kMetricsPort, "/").rfind("HTTP/1.1 404 Not Found\r\n", 0) == 0);

  if (have("promtool")) {
    spit(marks / "scrape.txt", metrics);
    const int code = std::system(("promtool check metrics < " + marks / "scrape.txt" + " > " +
                                  marks / "promtool.txt" + " 2>&1")
                                     .c_str());
    INFO(slurp(marks / "promtool.txt"));
    CHECK(code == 0);
  } else {
    // Catch2 v2 has no SKIP: said as the other tests of optional tools say it.
    WARN("skipped promtool: it is not installed (scripts/deps.sh installs prometheus)");
  }

  // The job ends: scraped while it ran, the endpoint serves the final state until scraped
  // twice more (monitoring.metricsLinger, 30 s by default), then the launcher exits.
  spit(marks / "stop", "");
  std::string final_state;
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (final_state.find("\npai_job_state{state=\"finished\"} 1\n") == std::string::npos &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(50ms);
    final_state = http_body(http_get("127.180.0.1", kMetricsPort, "/metrics"));
  }
  INFO(final_state);
  CHECK(final_state.find("\npai_job_outcome{outcome=\"succeeded\"} 1\n") != std::string::npos);
  CHECK(final_state.find("\npai_job_exit_code 0\n") != std::string::npos);
  CHECK(final_state.find("\npai_restarts_total 1\n") != std::string::npos);
  // Lingering now (the launcher said so before the first scrape of it could be counted).
  const std::string lingering =
      "pai-launch: coordinator: the job ended; serving its final metrics for up to 30s, until "
      "scraped 2 times (monitoring.metricsLinger)\n";
  const auto said_by = std::chrono::steady_clock::now() + 20s;
  while (launcher.err().find(lingering) == std::string::npos &&
         std::chrono::steady_clock::now() < said_by) {
    std::this_thread::sleep_for(50ms);
  }
  REQUIRE(launcher.err().find(lingering) != std::string::npos);
  for (int i = 0; i < 2; ++i) http_get("127.180.0.1", kMetricsPort, "/metrics");
  const auto ended = std::chrono::steady_clock::now();
  const int code = launcher.wait(60);
  INFO(cluster.transcript());
  CHECK(code == 0);
  // Two scrapes ended the linger: well before its 30 s.
  CHECK(std::chrono::steady_clock::now() - ended < 10s);
  CHECK(launcher.err().find("pai-launch: coordinator: serving metrics at "
                            "http://127.180.0.1:9400/metrics\n") != std::string::npos);
  CHECK(count_lines_with(slurp(cluster.dir() / "logs/coordinator/events.jsonl"),
                         "\"event\":\"metrics-linger\",\"seconds\":30") == 1);
  CHECK(leftover_processes("metrics-scrape").empty());
}

TEST_CASE("an endpoint nobody scraped does not hold the launcher after the job") {
  TempDir marks;
  Plan plan = restarting_job("metrics-unscraped", 182, marks.path());
  Cluster cluster(plan);
  Launcher& launcher = cluster.start("node-1");
  REQUIRE(wait_for_file(marks / "running", 20));
  spit(marks / "stop", "");
  const auto ended = std::chrono::steady_clock::now();
  const int code = launcher.wait(60);
  INFO(cluster.transcript());
  CHECK(code == 0);
  CHECK(std::chrono::steady_clock::now() - ended < 10s);
  CHECK(launcher.err().find("serving its final metrics") == std::string::npos);
  CHECK(leftover_processes("metrics-unscraped").empty());
}

TEST_CASE("a real Prometheus server scrapes a running job and sees its restart") {
  if (!have("prometheus")) {
    WARN("skipped: prometheus is not installed (scripts/deps.sh installs it)");
    return;
  }
  TempDir marks;
  TempDir prom;
  Plan plan = restarting_job("metrics-prometheus", 181, marks.path());
  Cluster cluster(plan);
  Launcher& launcher = cluster.start("node-1");
  REQUIRE(wait_for_file(marks / "running", 20));

  spit(prom / "prometheus.yml",
       "global: {scrape_interval: 1s, evaluation_interval: 1s}\n"
       "scrape_configs:\n"
       "  - job_name: pai\n"
       "    static_configs: [{targets: ['127.181.0.1:" +
           std::to_string(kMetricsPort) + "']}]\n");
  std::string value;
  std::string last;
  {
    // Prometheus on an address of its own: no port to find free.
    Child prometheus(
        {"prometheus", "--config.file=" + prom / "prometheus.yml",
         "--storage.tsdb.path=" + prom / "data", "--web.listen-address=127.181.0.2:9090"},
        prom / "prometheus.log");
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    while (std::chrono::steady_clock::now() < deadline) {
      last = http_body(http_get("127.181.0.2", 9090, "/api/v1/query?query=pai_restarts_total"));
      const auto answer = nlohmann::json::parse(last, nullptr, false);
      if (!answer.is_discarded() && answer.value("status", "") == "success" &&
          !answer["data"]["result"].empty()) {
        value = answer["data"]["result"][0]["value"][1].get<std::string>();
        CHECK(answer["data"]["result"][0]["metric"]["job"] == "pai");
        // The job's name in a label of its own: no `exported_job` beside the scrape's `job`.
        const auto info = nlohmann::json::parse(
            http_body(http_get("127.181.0.2", 9090, "/api/v1/query?query=pai_job_info")), nullptr,
            false);
        INFO(info.dump());
        REQUIRE(!info.is_discarded());
        REQUIRE(info["data"]["result"].size() == 1);
        const auto& labels = info["data"]["result"][0]["metric"];
        CHECK(labels["pai_job"] == "metrics-prometheus");
        CHECK(labels["job"] == "pai");
        CHECK_FALSE(labels.contains("exported_job"));
        break;
      }
      std::this_thread::sleep_for(250ms);
    }
    INFO("last answer: " << last);
    INFO("prometheus: " << slurp(prom / "prometheus.log"));
    CHECK(value == "1");

    // The job ends; the endpoint lingers until Prometheus scraped the final state twice, so the
    // end is in the time series (it never was: the endpoint died with the job).
    spit(marks / "stop", "");
    bool recorded = false;
    const auto stopped = std::chrono::steady_clock::now();
    const auto ended_by = stopped + 30s;
    while (!recorded && std::chrono::steady_clock::now() < ended_by) {
      last =
          http_body(http_get("127.181.0.2", 9090,
                             "/api/v1/query?query=pai_job_outcome%7Boutcome%3D%22succeeded%22%7D"));
      const auto answer = nlohmann::json::parse(last, nullptr, false);
      recorded = !answer.is_discarded() && answer.value("status", "") == "success" &&
                 !answer["data"]["result"].empty();
      if (!recorded) std::this_thread::sleep_for(250ms);
    }
    INFO("last answer: " << last);
    CHECK(recorded);

    // Scraped twice after the end (every second here), the launcher goes: it does not sit out
    // the 30 s of monitoring.metricsLinger. Prometheus runs until then: stopped earlier, it
    // would leave the launcher waiting for its second scrape for them.
    const int code = launcher.wait(60);
    INFO(cluster.transcript());
    CHECK(code == 0);
    CHECK(std::chrono::steady_clock::now() - stopped < 15s);
  }
  CHECK(leftover_processes("metrics-prometheus").empty());
}

}  // namespace served_metrics_test
