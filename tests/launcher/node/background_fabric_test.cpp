#include "launcher/node/background_fabric.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "launcher/checks/fake_env.h"
#include "launcher/checks/test_plan.h"

namespace background_fabric_test {

using namespace pai::launcher;
using pai::checks::test::FakeCudaEnv;
using pai::checks::test::FakeEnv;
namespace net = pai::net;

// Runs `loop` until `done()` holds, for at most 30 s.
void run_until(EventLoop& loop, const std::function<bool()>& done) {
  const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!done() && std::chrono::steady_clock::now() < limit) loop.wait_once(100);
  REQUIRE(done());
}

// A plan of 2 GPUs a node whose fabric pairs send for 1 s and all-reduce 1 MiB.
pai::Plan gpu_plan() {
  pai::Plan plan = pai::checks::test::one_node_plan(2);
  plan.sanity_check.fabric.enabled = true;
  plan.sanity_check.fabric.duration_seconds = 1;
  plan.sanity_check.fabric.timeout_seconds = 20;
  plan.sanity_check.nccl_bytes = 1 << 20;
  return plan;
}

// What a fabric runner sent, in order.
struct Outbox {
  std::vector<net::NodeToCoordinator> messages;
  FabricRunner::Send sink() {
    return [this](net::NodeToCoordinator m) { messages.push_back(std::move(m)); };
  }
};

// Has `connector` measure pair 1/0 (key "k") to the listener at 127.0.0.1:`port`; its one
// report.
net::FabricResult measure(EventLoop& loop, BackgroundFabric& connector, int port,
                          std::optional<net::FabricNccl> nccl) {
  Outbox out;
  connector.connect(net::FabricConnect{1, 0, "k", "127.0.0.1", port, std::move(nccl)},
                    out.sink());
  run_until(loop, [&] { return !out.messages.empty(); });
  REQUIRE(std::holds_alternative<net::FabricResult>(out.messages[0]));
  return std::get<net::FabricResult>(out.messages[0]);
}

pai::checks::CheckOptions fake_gpus() {
  pai::checks::CheckOptions gpu;
  gpu.cuda_library = pai::checks::test::kFakeCuda;
  gpu.nccl_library = pai::checks::test::kFakeNccl;
  return gpu;
}

// Two nodes' runners on one loop, the first listening for pair 1/0 without NCCL (which
// answers at once).
struct TcpListening {
  const pai::Plan plan = gpu_plan();
  EventLoop loop;
  BackgroundFabric listener{plan, loop, fake_gpus()};
  BackgroundFabric connector{plan, loop, fake_gpus()};
  Outbox heard;
  TcpListening() { listener.listen(net::FabricListen{1, 0, "k", std::nullopt}, heard.sink()); }
  const net::FabricListening& listening() const {
    REQUIRE(heard.messages.size() == 1);
    return std::get<net::FabricListening>(heard.messages[0]);
  }
};

TEST_CASE("a GPU pair measures TCP, then NCCL joined with the listener's id") {
  FakeCudaEnv env("NVIDIA H100 80GB HBM3;NVIDIA H100 80GB HBM3");
  FakeEnv kernels("PAI_FAKE_CUDA_KERNELS", "1");
  FakeEnv sum("PAI_FAKE_NCCL_SUM", "1");
  FakeEnv slow("PAI_FAKE_NCCL_MS", "5");
  FakeEnv id("PAI_FAKE_NCCL_ID", "listener-id:");
  const pai::Plan plan = gpu_plan();
  EventLoop loop;
  // The supervisor's reaping is held while an engine's child may run, and given back after.
  int holding = 0;
  int most = 0;
  const auto reap_known_only = [&](bool on) {
    holding += on ? 1 : -1;
    most = std::max(most, holding);
  };
  BackgroundFabric listener(plan, loop, fake_gpus(), reap_known_only);
  BackgroundFabric connector(plan, loop, fake_gpus(), reap_known_only);
  Outbox heard;

  listener.listen(net::FabricListen{1, 0, "k", net::FabricNccl{4, 0, ""}}, heard.sink());
  // The listening answer waits for the id, which the NCCL engine's child makes.
  run_until(loop, [&] { return !heard.messages.empty(); });
  const auto* listening = std::get_if<net::FabricListening>(&heard.messages[0]);
  REQUIRE(listening != nullptr);
  REQUIRE(listening->nccl_id.size() == net::kNcclUniqueIdBytes);
  CHECK(listening->nccl_id.substr(0, 12) == "listener-id:");

  const net::FabricResult result =
      measure(loop, connector, listening->port, net::FabricNccl{4, 2, listening->nccl_id});
  CHECK(result.error.empty());
  CHECK(result.out_kbps > 0);
  CHECK(result.in_kbps > 0);
  REQUIRE(result.bus_mbps.has_value());
  // 1 MiB per GPU in at least 2 x 5 ms, times 2(n-1)/n = 1.5: at most 157 MB/s.
  CHECK(*result.bus_mbps > 0);
  CHECK(*result.bus_mbps <= 158);
  // The listener speaks again only to report a failure.
  run_until(loop, [&] { return holding == 0; });
  CHECK(heard.messages.size() == 1);
  CHECK(most >= 1);
}

TEST_CASE("a pair without NCCL sends no id and reports no bus bandwidth") {
  TcpListening pair;
  CHECK(pair.listening().nccl_id.empty());
  const net::FabricResult result =
      measure(pair.loop, pair.connector, pair.listening().port, std::nullopt);
  CHECK(result.error.empty());
  CHECK_FALSE(result.bus_mbps.has_value());
}

TEST_CASE("a node that cannot run NCCL answers fabric-listen with the error") {
  FakeCudaEnv env("NVIDIA H100 80GB HBM3;NVIDIA H100 80GB HBM3");
  const pai::Plan plan = gpu_plan();
  EventLoop loop;
  pai::checks::CheckOptions gpu = fake_gpus();
  gpu.nccl_library = pai::checks::test::kMissingLibrary;
  BackgroundFabric listener(plan, loop, gpu);
  Outbox heard;
  listener.listen(net::FabricListen{2, 3, "k", net::FabricNccl{4, 0, ""}}, heard.sink());
  run_until(loop, [&] { return !heard.messages.empty(); });
  const auto* result = std::get_if<net::FabricResult>(&heard.messages[0]);
  REQUIRE(result != nullptr);
  CHECK(result->round == 2);
  CHECK(result->pair == 3);
  CHECK(result->error == "NCCL engine: no NCCL (" + pai::checks::test::kMissingLibrary +
                             ": cannot open shared object file: No such file or directory)");
}

TEST_CASE("a connector whose NCCL all-reduce fails reports the error, not the TCP figures") {
  FakeCudaEnv env("NVIDIA H100 80GB HBM3;NVIDIA H100 80GB HBM3");
  // No PAI_FAKE_NCCL_SUM: the all-reduce leaves the buffers as they were.
  TcpListening pair;
  const net::FabricResult result =
      measure(pair.loop, pair.connector, pair.listening().port,
              net::FabricNccl{4, 2, std::string(net::kNcclUniqueIdBytes, 'i')});
  CHECK(result.error ==
        "NCCL engine: wrong all-reduce result on GPU 0: element 0 is 0, expected 10");
  CHECK(result.out_kbps == 0);
  CHECK_FALSE(result.bus_mbps.has_value());
}

}  // namespace background_fabric_test
