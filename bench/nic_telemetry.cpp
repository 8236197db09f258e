// What NIC telemetry costs a launcher per heartbeat (issue 33; target: under 1 ms for 8
// ports): NicSampler::sample() and nic_window() over the job's ports, timed back to back.
//
//   nic_telemetry                      8 fake mlx5 RoCE ports in a temporary sysfs tree
//   nic_telemetry --ports 16           more ports
//   nic_telemetry --sysfs /sys         the machine's own RDMA ports (every active one)
//
// A fake tree is files on the machine's file system: it measures pai's own work (opens,
// reads, parsing, the maps), not a driver's. On a real node hw_counters reads may query the
// NIC's firmware (mlx5 caches them for hw_counters/lifespan ms, 10 by default), which only a
// run with --sysfs /sys there shows.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "launcher/checks/nic_counters.h"
#include "tests/support/fake_sysfs.h"
#include "tests/support/temp_dir.h"

namespace {

std::int64_t now_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(p * static_cast<double>(v.size() - 1))];
}

}  // namespace

int main(int argc, char** argv) {
  int ports = 8;
  int rounds = 2000;
  std::string sysfs;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--ports") ports = std::atoi(argv[i + 1]);
    if (flag == "--rounds") rounds = std::atoi(argv[i + 1]);
    if (flag == "--sysfs") sysfs = argv[i + 1];
  }
  pai::testing::TempDir dir;
  if (sysfs.empty()) {
    pai::testing::FakeSysfs fake(dir.path());
    for (int p = 0; p < ports; ++p) {
      pai::testing::FakeSysfs::Port port;
      port.device = "mlx5_" + std::to_string(p);
      port.netdev = "eth" + std::to_string(p + 2);
      char pci[64];
      std::snprintf(pci, sizeof pci, "pci0000:%02x/0000:%02x:02.0/0000:%02x:00.0", p * 16 + 16,
                    p * 16 + 16, p * 16 + 17);
      port.pci_path = pci;
      fake.add_port(port);
    }
    sysfs = dir.path();
  }
  const pai::checks::SysfsRoot root(sysfs);
  pai::checks::KernelEthtoolStats ethtool;
  pai::checks::NicSampler sampler(root, pai::checks::job_rdma_ports(root, {}, 3), &ethtool);
  std::printf("sysfs %s: %zu ports\n", sysfs.c_str(), sampler.ports().size());
  if (sampler.ports().empty()) {
    std::printf("no active RDMA port: nothing to measure\n");
    return 0;
  }
  std::vector<double> us;
  auto before = sampler.sample(now_ns());
  std::size_t counters = 0;
  for (int r = 0; r < rounds; ++r) {
    const std::int64_t t0 = now_ns();
    auto after = sampler.sample(now_ns());
    for (std::size_t i = 0; i < after.size(); ++i) {
      counters += pai::checks::nic_rates(pai::checks::nic_window(before[i], after[i])).size();
    }
    before = std::move(after);
    us.push_back(static_cast<double>(now_ns() - t0) / 1000.0);
  }
  std::printf(
      "per heartbeat (sample + rates of every port), %d rounds: median %.1f us, "
      "p99 %.1f us; %.1f us per port; %zu counters a round\n",
      rounds, percentile(us, 0.5), percentile(us, 0.99),
      percentile(us, 0.5) / static_cast<double>(sampler.ports().size()),
      counters / static_cast<std::size_t>(rounds));
  return 0;
}
