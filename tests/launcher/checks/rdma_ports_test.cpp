#include "launcher/checks/rdma_ports.h"

#include <catch2/catch.hpp>

#include "support/fake_sysfs.h"
#include "support/temp_dir.h"

namespace rdma_ports_test {

using namespace pai::checks;
using pai::testing::FakeSysfs;
using pai::testing::TempDir;

namespace {

// mlx5_0: RoCE v2, active; mlx5_1: down; mlx5_2: active without a GID at index 3 (v1 at 0);
// ib0's mlx5_3: InfiniBand, two ports.
void build(FakeSysfs& sys) {
  sys.add_port({});
  FakeSysfs::Port down;
  down.device = "mlx5_1";
  down.state = "1: DOWN";
  down.phys_state = "3: Disabled";
  down.netdev = "eth3";
  down.pci_path = "pci0000:16/0000:16:02.0/0000:17:00.1";
  sys.add_port(down);
  FakeSysfs::Port no_gid;
  no_gid.device = "mlx5_2";
  no_gid.gid_index = -1;
  no_gid.netdev = "eth4";
  no_gid.pci_path = "pci0000:b0/0000:b0:02.0/0000:b1:00.0";
  no_gid.numa_node = 1;
  sys.add_port(no_gid);
  for (int port : {1, 2}) {
    FakeSysfs::Port ib;
    ib.device = "mlx5_3";
    ib.port = port;
    ib.link_layer = "InfiniBand";
    ib.netdev = "";
    ib.gid_index = -1;
    ib.rate = "400 Gb/sec (4X NDR)";
    ib.pci_path = "pci0000:b0/0000:b0:03.0/0000:b2:00.0";
    sys.add_port(ib);
  }
}

}  // namespace

TEST_CASE("RDMA devices are listed from class/infiniband below the sysfs root") {
  TempDir dir;
  FakeSysfs fake(dir.path());
  build(fake);
  const SysfsRoot sys(dir.path());
  CHECK(list_rdma_devices(sys) == std::vector<std::string>{"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"});
  CHECK(list_rdma_devices(SysfsRoot("/nonexistent/sys")).empty());
}

TEST_CASE("a RoCE port is read whole: state, rate, link layer, GID type, netdev, PCI, NUMA") {
  TempDir dir;
  FakeSysfs fake(dir.path());
  build(fake);
  const SysfsRoot sys(dir.path());
  const auto ports = read_rdma_ports(sys, "mlx5_0", 3);
  REQUIRE(ports.has_value());
  REQUIRE(ports->size() == 1);
  const RdmaPort& p = ports->front();
  CHECK(p.name() == "mlx5_0/1");
  CHECK(p.state == "ACTIVE");
  CHECK(p.active());
  CHECK(p.phys_state == "LinkUp");
  CHECK(p.link_layer == "Ethernet");
  CHECK(p.rate == "200 Gb/sec (4X HDR)");
  CHECK(p.rate_gbps == 200);
  CHECK(p.gid_configured);
  CHECK(p.gid_type == "RoCE v2");
  CHECK(p.netdev == "eth2");
  CHECK(p.firmware == "28.39.1002");
  CHECK(p.pci == "0000:17:00.0");
  CHECK(p.numa_node == 0);

  const auto down = read_rdma_ports(sys, "mlx5_1", 3);
  REQUIRE(down.has_value());
  CHECK(down->front().state == "DOWN");
  CHECK_FALSE(down->front().active());

  const auto no_gid = read_rdma_ports(sys, "mlx5_2", 3);
  REQUIRE(no_gid.has_value());
  CHECK_FALSE(no_gid->front().gid_configured);
  CHECK(no_gid->front().gid_type.empty());
  CHECK(no_gid->front().netdev == "eth4");  // the PCI function's only netdev
  CHECK(no_gid->front().numa_node == 1);
}

TEST_CASE("an InfiniBand device lists its ports in order and has no netdev") {
  TempDir dir;
  FakeSysfs fake(dir.path());
  build(fake);
  const auto ports = read_rdma_ports(SysfsRoot(dir.path()), "mlx5_3", -1);
  REQUIRE(ports.has_value());
  REQUIRE(ports->size() == 2);
  CHECK((*ports)[0].port == 1);
  CHECK((*ports)[1].port == 2);
  CHECK((*ports)[1].rate_gbps == 400);
  CHECK((*ports)[0].netdev.empty());
}

TEST_CASE("missing devices, names that leave the tree and unreadable attributes") {
  TempDir dir;
  FakeSysfs fake(dir.path());
  build(fake);
  const SysfsRoot sys(dir.path());
  CHECK_FALSE(read_rdma_ports(sys, "mlx5_9", 3).has_value());
  CHECK_FALSE(read_rdma_ports(sys, "../../etc", 3).has_value());
  CHECK_FALSE(read_rdma_ports(sys, "", 3).has_value());
  // Attributes a driver lacks read as unknown, never as an error.
  fake.remove(FakeSysfs::port_dir("mlx5_0", 1) + "/rate");
  fake.remove("class/infiniband/mlx5_0/fw_ver");
  const auto ports = read_rdma_ports(sys, "mlx5_0", 3);
  REQUIRE(ports.has_value());
  CHECK(ports->front().rate.empty());
  CHECK(ports->front().rate_gbps == 0);
  CHECK(ports->front().firmware.empty());
  CHECK(ports->front().active());
}

TEST_CASE("the job's ports: the spec's HCAs (with or without a port) or every active port") {
  TempDir dir;
  FakeSysfs fake(dir.path());
  build(fake);
  const SysfsRoot sys(dir.path());
  std::vector<std::string> names;
  for (const RdmaPort& p : job_rdma_ports(sys, {}, 3)) names.push_back(p.name());
  CHECK(names == std::vector<std::string>{"mlx5_0/1", "mlx5_2/1", "mlx5_3/1", "mlx5_3/2"});
  names.clear();
  for (const RdmaPort& p : job_rdma_ports(sys, {"mlx5_3:2", "mlx5_1", "mlx5_9"}, 3)) {
    names.push_back(p.name());
  }
  CHECK(names == std::vector<std::string>{"mlx5_3/2", "mlx5_1/1"});
}

TEST_CASE("a state is read from \"4: ACTIVE\" or a bare name") {
  CHECK(sysfs_state_name("4: ACTIVE") == "ACTIVE");
  CHECK(sysfs_state_name("DOWN\n") == "DOWN");
  CHECK(sysfs_state_name("") == "");
}

}  // namespace rdma_ports_test
