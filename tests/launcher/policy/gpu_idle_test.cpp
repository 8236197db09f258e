#include "launcher/policy/gpu_idle.h"

#include <catch2/catch.hpp>
#include <optional>
#include <vector>

using pai::launcher::GpuIdleSample;
using pai::launcher::GpuIdleSettings;
using pai::launcher::GpuIdleVerdict;
using pai::launcher::GpuIdleWatch;

namespace gpu_idle_test {

using std::chrono::milliseconds;
using std::chrono::seconds;
const std::chrono::steady_clock::time_point kStart{};

// A recorded stream: node 0, GPU `gpu`, one sample per `every` with these utilizations.
std::vector<GpuIdleSample> stream(int gpu, seconds every, const std::vector<int>& utilization) {
  std::vector<GpuIdleSample> samples;
  for (std::size_t k = 0; k < utilization.size(); ++k) {
    samples.push_back({.node = 0,
                       .gpu = gpu,
                       .utilization = utilization[k],
                       .at = kStart + every * static_cast<int>(k)});
  }
  return samples;
}

// Every verdict of the stream, with the index of the sample that gave it.
std::vector<std::pair<std::size_t, GpuIdleVerdict>> replay(GpuIdleWatch& watch,
                                                           const std::vector<GpuIdleSample>& s) {
  std::vector<std::pair<std::size_t, GpuIdleVerdict>> verdicts;
  for (std::size_t k = 0; k < s.size(); ++k) {
    if (auto v = watch.observe(s[k])) verdicts.emplace_back(k, *v);
  }
  return verdicts;
}

TEST_CASE("a GPU below the threshold for the whole window gets one verdict") {
  GpuIdleWatch watch(GpuIdleSettings{.threshold_percent = 30, .window = seconds(15)});
  // Busy, then idle from t=10 s; the window is complete at t=25 s; idle on until t=50 s.
  const auto verdicts = replay(watch, stream(3, seconds(5), {90, 95, 5, 12, 29, 0, 3, 1, 2, 4, 0}));
  REQUIRE(verdicts.size() == 1);
  CHECK(verdicts[0].first == 5);
  CHECK(verdicts[0].second == GpuIdleVerdict{.node = 0,
                                             .gpu = 3,
                                             .utilization = 0,
                                             .max_utilization = 29,
                                             .idle_for = milliseconds(15000)});
}

TEST_CASE("a busy sample inside the window ends the episode - the next one counts afresh") {
  GpuIdleWatch watch(GpuIdleSettings{.threshold_percent = 30, .window = seconds(10)});
  // Idle 0..5 s, busy (exactly the threshold) at 10 s, idle again from 15 s to 25 s.
  const auto verdicts = replay(watch, stream(0, seconds(5), {1, 1, 30, 2, 2, 2, 40, 1, 1}));
  REQUIRE(verdicts.size() == 1);
  CHECK(verdicts[0].first == 5);
  CHECK(verdicts[0].second.idle_for == seconds(10));
  // Busy at 30 s, idle again from 35 s: the second episode gets its own verdict at 45 s.
  auto again = watch.observe({.node = 0, .gpu = 0, .utilization = 0, .at = kStart + seconds(42)});
  CHECK_FALSE(again);
  again = watch.observe({.node = 0, .gpu = 0, .utilization = 0, .at = kStart + seconds(45)});
  REQUIRE(again);
  CHECK(again->idle_for == seconds(10));
  CHECK(again->max_utilization == 1);
  CHECK_FALSE(watch.observe({.node = 0, .gpu = 0, .utilization = 0, .at = kStart + seconds(90)}));
}

TEST_CASE("GPUs and nodes are judged apart - forgetting a node restarts its episodes") {
  GpuIdleWatch watch(GpuIdleSettings{.threshold_percent = 50, .window = seconds(4)});
  for (int t = 0; t <= 4; t += 2) {
    const auto at = kStart + seconds(t);
    CHECK_FALSE(watch.observe({.node = 0, .gpu = 0, .utilization = 80, .at = at}));
    const auto idle = watch.observe({.node = 0, .gpu = 1, .utilization = 10, .at = at});
    const auto other = watch.observe({.node = 1, .gpu = 1, .utilization = 10, .at = at});
    CHECK(idle.has_value() == (t == 4));
    if (t == 2) watch.forget(1);  // node 1's ranks restarted: its clock starts again at 4 s
    CHECK_FALSE(other);
  }
  CHECK_FALSE(watch.observe({.node = 1, .gpu = 1, .utilization = 10, .at = kStart + seconds(7)}));
  const auto late =
      watch.observe({.node = 1, .gpu = 1, .utilization = 10, .at = kStart + seconds(8)});
  REQUIRE(late);
  CHECK(late->node == 1);
  CHECK(late->idle_for == seconds(4));
}

TEST_CASE("GPUs are sampled every 5 s - at least four times per short window") {
  using pai::launcher::gpu_sample_interval;
  using std::chrono::milliseconds;
  CHECK(gpu_sample_interval(std::chrono::minutes(15)) == milliseconds(5000));
  CHECK(gpu_sample_interval(milliseconds(20000)) == milliseconds(5000));
  CHECK(gpu_sample_interval(milliseconds(2000)) == milliseconds(500));
  CHECK(gpu_sample_interval(milliseconds(100)) == milliseconds(100));
}

}  // namespace gpu_idle_test
