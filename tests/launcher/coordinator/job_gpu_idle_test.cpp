#include "launcher/coordinator/job_gpu_idle.h"

#include <catch2/catch.hpp>

#include "machine_harness.h"

namespace job_gpu_idle_test {

using namespace pai::launcher::coordinator;
using namespace pai::launcher::coordinator::testing;

// The test plan (worker-0 on node-0 with ranks 0-1, worker-1 on node-1, ps-0 on node-2) with
// GPUs idle below 30% for 10 s → `action`.
pai::Plan idle_plan(pai::GpuIdleAction action) {
  pai::Plan plan = pai::testing::make_test_plan();
  plan.monitoring.gpu_idle = {.threshold_percent = 30, .window_seconds = 10, .action = action};
  return plan;
}

// A heartbeat of `node` running `instance` with its GPUs at `utilization` (GPU k = entry k).
Json gpu_beat(int instance, const std::vector<int>& utilization) {
  pai::net::NodeHeartbeat beat;
  beat.instances.push_back(pai::net::HeartbeatInstance{.instance = instance,
                                                       .idle_ms = 0,
                                                       .hang_interval = 1800,
                                                       .step = 1,
                                                       .ranks = {},
                                                       .telemetry = {}});
  for (std::size_t k = 0; k < utilization.size(); ++k) {
    beat.gpus.push_back(pai::net::GpuSample{.index = static_cast<std::int64_t>(k),
                                            .utilization = utilization[k],
                                            .memory_used_bytes = 2ll << 30,
                                            .memory_total_bytes = 80ll << 30});
  }
  return pai::net::to_json(beat);
}

TEST_CASE("an idle GPU is recorded - shown and counted once - warn restarts nothing") {
  MachineHarness h(idle_plan(pai::GpuIdleAction::Warn));
  h.join_all();
  h.clear();
  for (int t = 0; t <= 15; t += 5) {
    h.receive("node-0", gpu_beat(0, {5, 80}));
    h.receive("node-1", gpu_beat(1, {90, 95}));
    h.advance(5s);
  }
  const auto verdicts = h.records("gpu-idle");
  REQUIRE(verdicts.size() == 1);
  CHECK(verdicts[0].fields == Json{{"node", "node-0"},
                                   {"instance", "worker-0"},
                                   {"gpu", 0},
                                   {"utilization", 5},
                                   {"maxUtilization", 5},
                                   {"thresholdPercent", 30.0},
                                   {"windowSeconds", 10},
                                   {"idleSeconds", 10},
                                   {"action", "warn"}});
  CHECK(verdicts[0].line ==
        "gpu-idle: GPU 0 on node-0 (worker-0) below 30% for 10s (at most 5%, now 5%); warning "
        "only");
  CHECK(h.sent("node-0", "stop").empty());
  const std::string metrics = h.machine.metrics(h.now);
  CHECK(metrics.find("\npai_gpu_idle_verdicts_total{node=\"node-0\"} 1\n") != std::string::npos);
  CHECK(metrics.find("\npai_gpu_utilization_ratio{node=\"node-0\",gpu=\"0\"} 0.05\n") !=
        std::string::npos);
  CHECK(metrics.find("\npai_gpu_memory_total_bytes{node=\"node-1\",gpu=\"1\"} 85899345920\n") !=
        std::string::npos);

  // `status` has each running node's latest samples.
  const int admin = h.control();
  h.clear();
  h.receive(admin, Json{{"type", "status"}});
  const auto replies = h.sent_to(admin, "status");
  REQUIRE(replies.size() == 1);
  CHECK(replies[0]["nodes"][0]["gpus"][0]["utilization"] == 5);
  CHECK(replies[0]["nodes"][1]["gpus"][1]["utilization"] == 95);
  CHECK_FALSE(replies[0]["nodes"][2].contains("gpus"));
}

TEST_CASE("restart stops the job for the idle GPU and restarts it with reason gpu-idle") {
  MachineHarness h(idle_plan(pai::GpuIdleAction::Restart));
  h.join_all();
  h.clear();
  for (int t = 0; t <= 10; t += 5) {
    h.receive("node-1", gpu_beat(1, {2}));
    h.advance(5s);
  }
  REQUIRE(h.records("gpu-idle").size() == 1);
  CHECK(h.records("gpu-idle")[0].line.ends_with("; restarting"));
  for (const char* node : {"node-0", "node-1", "node-2"}) CHECK(h.sent(node, "stop").size() == 1);
  h.stopped("node-0", 0);
  h.stopped("node-1", 1);
  h.stopped("node-2", 2);
  const auto restarts = h.records("restart");
  REQUIRE_FALSE(restarts.empty());
  for (const auto& r : restarts) CHECK(r.fields.at("signature") == "gpu-idle");
  INFO(restarts[0].fields.dump());
  CHECK(restarts[0].fields.at("reason").get<std::string>().find(
            "gpu-idle: GPU 0 on node-1 below 30% for 10s: retryable") != std::string::npos);
}

TEST_CASE("a heartbeat with a bad GPU sample is a protocol error") {
  MachineHarness h(idle_plan(pai::GpuIdleAction::Warn));
  h.join_all();
  h.clear();
  Json beat = gpu_beat(0, {5});
  beat["gpus"][0]["utilization"] = 150;
  h.receive("node-0", beat);
  CHECK(h.records("protocol-error").at(0).fields.at("error") ==
        "heartbeat.gpus[0]: utilization: expected an integer in [-1, 100], got 150");
  CHECK(h.closed("node-0"));
}

}  // namespace job_gpu_idle_test
