// The coordinator server with the plan's `monitoring`: its metrics endpoint on the server's own
// loop (addresses 127.182.0.0/24: no port collides with another test's).
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <thread>

#include "coordinator_server_harness.h"
#include "launcher/coordinator/coordinator_server.h"
#include "support/http_get.h"

namespace coordinator_server_metrics_test {

using namespace pai;
using namespace pai::testing;
using launcher::coordinator::CoordinatorServer;

namespace {

Plan monitored_plan(int port) {
  Plan plan = loopback_plan();
  plan.monitoring.metrics_port = port;
  plan.monitoring.metrics_address = "127.182.0.1";
  return plan;
}

bool has_line(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos;
}

}  // namespace

TEST_CASE("the server serves the plan's metrics on its loop - and journals where") {
  Journal journal;
  CoordinatorServer server(monitored_plan(9400), server_options(journal));
  const auto endpoint = journal.wait_for("metrics-endpoint");
  REQUIRE(endpoint);
  CHECK(endpoint->fields == Json{{"url", "http://127.182.0.1:9400/metrics"}});
  CHECK(endpoint->line == "serving metrics at http://127.182.0.1:9400/metrics");

  const std::string before = http_get("127.182.0.1", 9400, "/metrics");
  REQUIRE(http_status(before) == "HTTP/1.1 200 OK");
  CHECK(has_line(http_body(before), "pai_job_state{state=\"rendezvous\"} 1"));
  CHECK(has_line(http_body(before), "pai_nodes{state=\"no-connection\"} 4"));

  auto node0 = join(server.port(), 0);
  REQUIRE(journal.wait_for("join"));
  const std::string after = http_body(http_get("127.182.0.1", 9400, "/metrics"));
  CHECK(has_line(after, "pai_nodes{state=\"ready\"} 1"));
  CHECK(has_line(after, "pai_node_state{node=\"node-0\",state=\"ready\"} 1"));
  CHECK(http_status(http_get("127.182.0.1", 9400, "/")) == "HTTP/1.1 404 Not Found");

  // A goodput reading handed over from another thread shows in the next scrapes.
  launcher::coordinator::GoodputReading reading;
  reading.causes[launcher::goodput::Cause::Productive] = 42;
  reading.ettr = 0.25;
  reading.journals = 1;
  std::thread([&] { server.goodput(reading); }).join();
  std::string scraped;
  for (int i = 0; i < 100 && !has_line(scraped, "pai_goodput_ettr 0.25"); ++i) {
    scraped = http_body(http_get("127.182.0.1", 9400, "/metrics"));
  }
  CHECK(has_line(scraped, "pai_goodput_ettr 0.25"));
  CHECK(has_line(scraped, "pai_goodput_seconds_total{cause=\"productive\"} 42"));
}

TEST_CASE("without metricsAddress the metrics are served on the coordinator's own address") {
  Journal journal;
  Plan plan = loopback_plan();
  plan.monitoring.metrics_port = 9402;
  plan.monitoring.metrics_address = "";
  auto options = server_options(journal);
  options.listen_address = "127.182.0.2";
  CoordinatorServer server(plan, options);
  const auto endpoint = journal.wait_for("metrics-endpoint");
  REQUIRE(endpoint);
  CHECK(endpoint->fields == Json{{"url", "http://127.182.0.2:9402/metrics"}});
  CHECK(http_status(http_get("127.182.0.2", 9402, "/metrics")) == "HTTP/1.1 200 OK");
  CHECK(http_get("127.182.0.1", 9402, "/metrics").empty());  // not every address
}

TEST_CASE("a plan without monitoring serves no metrics") {
  Journal journal;
  Plan plan = loopback_plan();
  plan.monitoring.metrics_address = "127.182.0.1";  // no port: nothing served
  CoordinatorServer server(plan, server_options(journal));
  CHECK_FALSE(journal.wait_for("metrics-endpoint", nullptr, 300ms).has_value());
  CHECK(http_get("127.182.0.1", 9400, "/metrics").empty());
}

TEST_CASE("a metrics port in use fails the server's start - naming it") {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(9401);
  ::inet_pton(AF_INET, "127.182.0.1", &sa.sin_addr);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) == 0);
  REQUIRE(::listen(fd, 1) == 0);
  Journal journal;
  try {
    CoordinatorServer server(monitored_plan(9401), server_options(journal));
    FAIL("the server started on a metrics port in use");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()) ==
          "cannot serve metrics on 127.182.0.1:9401: Address already in use");
  }
  ::close(fd);
}

}  // namespace coordinator_server_metrics_test
