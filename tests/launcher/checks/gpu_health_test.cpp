#include "launcher/checks/gpu_health.h"

#include <catch2/catch.hpp>

namespace gpu_health_test {

using namespace pai::checks;

namespace {

const std::string kLabel = "GPU 2 (0000:1a:00.0, serial 1650000000002)";

// A record NVML fully reported, with nothing wrong and nothing to report.
GpuHealthRecord healthy() {
  GpuHealthRecord r;
  r.index = 2;
  r.throttle_known = true;
  r.ecc_known = true;
  r.aggregate_ecc_known = true;
  r.remapped_rows_known = true;
  return r;
}

std::vector<std::string> texts(const std::vector<HealthFinding>& findings, bool fatal) {
  std::vector<std::string> out;
  for (const auto& f : findings)
    if (f.fatal == fatal) out.push_back(f.text);
  return out;
}

}  // namespace

TEST_CASE("a GPU is labelled by index, bus id and serial - leaving out what is unknown") {
  CHECK(gpu_label(2, "0000:1a:00.0", "1650000000002") == kLabel);
  CHECK(gpu_label(0, "", "") == "GPU 0");
  CHECK(gpu_label(1, "", "42") == "GPU 1 (serial 42)");
  CHECK(gpu_label(1, "0000:19:00.0", "") == "GPU 1 (0000:19:00.0)");
}

TEST_CASE("a healthy record has no finding") { CHECK(judge_health(healthy(), kLabel).empty()); }

TEST_CASE("hardware slowdown, thermal slowdown and power brake fail the GPU") {
  GpuHealthRecord r = healthy();
  r.throttle_seen = 0x8;
  CHECK(texts(judge_health(r, kLabel), true) ==
        std::vector<std::string>{kLabel + ": throttled during the burn: HW slowdown"});
  r.throttle_seen = 0x20 | 0x40 | 0x80;
  CHECK(texts(judge_health(r, kLabel), true) ==
        std::vector<std::string>{kLabel +
                                 ": throttled during the burn: SW thermal slowdown, HW thermal "
                                 "slowdown, HW power brake slowdown"});
}

TEST_CASE("power cap and other throttle reasons are only reported, and idle is no limit") {
  GpuHealthRecord r = healthy();
  r.throttle_seen = 0x1 | 0x4 | 0x400;
  auto findings = judge_health(r, kLabel);
  CHECK(texts(findings, true).empty());
  CHECK(texts(findings, false) ==
        std::vector<std::string>{kLabel + ": clocks limited during the burn by: SW power cap, 0x400"});
  // Sampled between the burn's phases, an idle GPU was limited by nothing.
  r.throttle_seen = 0x1;
  CHECK(judge_health(r, kLabel).empty());
}

TEST_CASE("every Xid event fails the GPU, with its meaning when known") {
  GpuHealthRecord r = healthy();
  r.xids = {79, 4242};
  CHECK(texts(judge_health(r, kLabel), true) ==
        std::vector<std::string>{kLabel + ": Xid 79 (GPU has fallen off the bus) during the burn",
                                 kLabel + ": Xid 4242 during the burn"});
}

TEST_CASE("volatile uncorrected ECC errors fail the GPU - corrected ones are reported") {
  GpuHealthRecord r = healthy();
  r.volatile_uncorrected = 2;
  r.volatile_corrected = 5;
  auto findings = judge_health(r, kLabel);
  CHECK(texts(findings, true) ==
        std::vector<std::string>{kLabel + ": 2 uncorrected ECC errors since the driver loaded"});
  CHECK(texts(findings, false) ==
        std::vector<std::string>{kLabel + ": 5 corrected ECC errors since the driver loaded"});
}

TEST_CASE("lifetime uncorrected ECC errors fail only when they rose during the burn") {
  GpuHealthRecord r = healthy();
  r.aggregate_uncorrected_before = 3;
  r.aggregate_uncorrected_after = 3;
  auto old = judge_health(r, kLabel);
  CHECK(texts(old, true).empty());
  CHECK(texts(old, false) ==
        std::vector<std::string>{kLabel +
                                 ": 3 uncorrected ECC errors over the board's lifetime, none "
                                 "during the burn"});
  r.aggregate_uncorrected_after = 4;
  CHECK(texts(judge_health(r, kLabel), true) ==
        std::vector<std::string>{kLabel +
                                 ": 1 new uncorrected ECC errors during the burn (lifetime count "
                                 "4)"});
}

TEST_CASE("a pending or failed row remap fails the GPU") {
  GpuHealthRecord r = healthy();
  r.remap_pending = true;
  r.remap_failed = true;
  CHECK(texts(judge_health(r, kLabel), true) ==
        std::vector<std::string>{kLabel + ": a row remap failed (the GPU needs service)",
                                 kLabel + ": a row remap is pending (reset the GPU)"});
  r.remapped_rows_known = false;  // what NVML could not read is not judged
  CHECK(judge_health(r, kLabel).empty());
}

TEST_CASE("temperature and power are reported") {
  GpuHealthRecord r = healthy();
  r.max_temperature_c = 71;
  r.max_power_w = 612.4;
  CHECK(texts(judge_health(r, kLabel), false) ==
        std::vector<std::string>{kLabel + ": max 71 C, 612 W"});
}

TEST_CASE("CUDA's and NVML's bus ids normalize to one form") {
  CHECK(normalize_bus_id("00000000:1A:00.0") == "0000:1a:00.0");
  CHECK(normalize_bus_id("0000:1a:00.0") == "0000:1a:00.0");
  CHECK(normalize_bus_id("") == "");
}

TEST_CASE("Xids are described") {
  CHECK(describe_xid(48) == "Xid 48 (double-bit ECC error)");
  CHECK(describe_xid(1) == "Xid 1");
}

}  // namespace gpu_health_test
