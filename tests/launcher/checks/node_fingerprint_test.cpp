#include "launcher/checks/node_fingerprint.h"

#include <catch2/catch.hpp>
#include <filesystem>

#include "support/fake_sysfs.h"
#include "support/temp_dir.h"
#include "test_plan.h"

namespace node_fingerprint_test {

using namespace pai::checks;
using pai::testing::FakeSysfs;
using pai::testing::TempDir;

namespace {

class FakeDcb final : public DcbReader {
 public:
  std::map<std::string, DcbConfig> configs;
  std::optional<DcbConfig> read(const std::string& netdev) override {
    const auto it = configs.find(netdev);
    if (it == configs.end()) return std::nullopt;
    return it->second;
  }
};

pai::Plan roce_plan() {
  pai::Plan plan = test::one_node_plan(2);
  plan.fabric.type = pai::FabricType::Roce;
  plan.fabric.gid_index = 3;
  plan.fabric.traffic_class = 106;  // DSCP 26
  plan.fabric.hcas = {"mlx5_0", "mlx5_1"};
  return plan;
}

// Two RoCE NICs behind two switches of one root complex, two GPUs: GPU 0 on mlx5_0's switch,
// GPU 1 on the other socket's root complex.
void build(FakeSysfs& sys) {
  FakeSysfs::Port a;
  a.pci_path = "pci0000:16/0000:16:02.0/0000:17:00.0/0000:18:00.0";
  sys.add_port(a);
  FakeSysfs::Port b;
  b.device = "mlx5_1";
  b.netdev = "eth3";
  b.pci_path = "pci0000:16/0000:16:03.0/0000:19:00.0";
  sys.add_port(b);
  sys.add_gpu("pci0000:16/0000:16:02.0/0000:17:00.0/0000:1a:00.0", 0);
  sys.add_gpu("pci0000:b0/0000:b0:02.0/0000:b1:00.0", 1);
  sys.set("module/nvidia/version", "580.159.04");
}

FingerprintSources sources(const std::string& root, DcbReader* dcb) {
  return FingerprintSources{
      .sys = SysfsRoot(root),
      .dcb = dcb,
      .kernel = "6.1.0-test",
      .environment = {"NCCL_DEBUG=WARN", "NCCL_IB_TC=1", "PATH=/bin", "UCX_TLS=rc"},
      .library_dirs = {}};
}

}  // namespace

TEST_CASE("a RoCE node's fingerprint: versions, ports, PFC against the traffic class, GPU paths") {
  TempDir dir;
  FakeSysfs sys(dir.path());
  build(sys);
  FakeDcb dcb;
  dcb.configs["eth2"] = DcbConfig{.pfc_enabled = 0x08, .dscp_priority = {{26, 3}}};
  dcb.configs["eth3"] = DcbConfig{.pfc_enabled = 0x00, .dscp_priority = {}};
  const pai::Plan plan = roce_plan();
  const auto facts = node_fingerprint(plan, plan.placements.front(), sources(dir.path(), &dcb));
  CHECK(facts.at("kernel") == "6.1.0-test");
  CHECK(facts.at("gpuDriver") == "580.159.04");
  CHECK(facts.at("port.mlx5_0/1.state") == "ACTIVE");
  CHECK(facts.at("port.mlx5_0/1.rate") == "200 Gb/sec (4X HDR)");
  CHECK(facts.at("port.mlx5_0/1.mtu") == "4200");
  CHECK(facts.at("port.mlx5_0/1.gidType") == "RoCE v2");
  CHECK(facts.at("port.mlx5_0/1.linkLayer") == "Ethernet");
  CHECK(facts.at("port.mlx5_0/1.firmware") == "28.39.1002");
  CHECK(facts.at("port.mlx5_0/1.netdev") == "eth2");
  CHECK(facts.at("port.mlx5_0/1.pfc") == "3");
  CHECK(facts.at("port.mlx5_0/1.trust") == "dscp");
  CHECK(facts.at("port.mlx5_0/1.tcPriority") == "3");
  CHECK(facts.at("port.mlx5_0/1.tcLossless") == "yes");
  CHECK(facts.at("port.mlx5_1/1.pfc") == "none");
  CHECK(facts.at("port.mlx5_1/1.trust") == "pcp");
  CHECK(facts.count("port.mlx5_1/1.tcPriority") == 0);
  CHECK(facts.at("gpu0.nic") == "mlx5_0 PIX");
  CHECK(facts.at("gpu1.nic") == "mlx5_0 SYS");
  // The plan's fabric presets win over the launcher's environment; other variables are not
  // NCCL's or UCX's.
  CHECK(facts.at("env.NCCL_IB_TC") == "106");
  CHECK(facts.at("env.NCCL_DEBUG") == "WARN");
  CHECK(facts.at("env.UCX_TLS") == "rc");
  CHECK(facts.count("env.PATH") == 0);
}

TEST_CASE("a DSCP the port does not map is named - and nothing is guessed without DCB") {
  TempDir dir;
  FakeSysfs sys(dir.path());
  build(sys);
  FakeDcb dcb;
  dcb.configs["eth2"] = DcbConfig{.pfc_enabled = 0x08, .dscp_priority = {{46, 5}}};
  const pai::Plan plan = roce_plan();
  const auto facts = node_fingerprint(plan, plan.placements.front(), sources(dir.path(), &dcb));
  CHECK(facts.at("port.mlx5_0/1.tcPriority") == "unmapped");
  CHECK(facts.count("port.mlx5_0/1.tcLossless") == 0);
  const auto blind = node_fingerprint(plan, plan.placements.front(), sources(dir.path(), nullptr));
  CHECK(blind.count("port.mlx5_0/1.pfc") == 0);
  CHECK(blind.at("port.mlx5_0/1.mtu") == "4200");
}

TEST_CASE("a node without RDMA ports or GPUs gives only what it has") {
  TempDir dir;
  const pai::Plan plan = test::one_node_plan(0);
  const auto facts = node_fingerprint(plan, plan.placements.front(), sources(dir.path(), nullptr));
  CHECK(facts.at("kernel") == "6.1.0-test");
  CHECK(facts.count("gpuDriver") == 0);
  for (const auto& [key, value] : facts) {
    INFO(key);
    CHECK(key.rfind("port.", 0) != 0);
    CHECK(key.rfind("gpu", 0) != 0);
  }
}

TEST_CASE(
    "the NCCL library is the first libnccl.so.2 the loader's folders hold, by its real name") {
  TempDir dir;
  std::filesystem::create_directories(dir / "a");
  std::filesystem::create_directories(dir / "b");
  pai::testing::spit(dir / "b/libnccl.so.2.28.3", "");
  std::filesystem::create_symlink("libnccl.so.2.28.3", dir / "b/libnccl.so.2");
  FingerprintSources in = sources(dir.path(), nullptr);
  in.library_dirs = {dir / "a", dir / "b"};
  const pai::Plan plan = test::one_node_plan(0);
  CHECK(node_fingerprint(plan, plan.placements.front(), in).at("ncclLibrary") ==
        "libnccl.so.2.28.3");
}

TEST_CASE("the NCCL library's version is read from its .rodata without loading it") {
  TempDir dir;
  std::filesystem::copy_file(test::kFakeNccl, dir / "libnccl.so.2");
  FingerprintSources in = sources(dir.path(), nullptr);
  in.library_dirs = {dir.path()};
  const pai::Plan plan = test::one_node_plan(0);
  CHECK(node_fingerprint(plan, plan.placements.front(), in).at("ncclLibrary") ==
        "2.19.3+cuda12.2");
}

TEST_CASE("PCIe paths are classed as nvidia-smi topo classes them") {
  TempDir dir;
  FakeSysfs sys(dir.path());
  sys.add_pci("pci0000:16/0000:16:02.0/0000:17:00.0", 0, "0x10de", "0x2335", "0x030200");
  sys.add_pci("pci0000:b0/0000:b0:02.0/0000:b1:00.0", 1, "0x15b3", "0x101d", "0x020000");
  sys.add_pci("pci0000:c0/0000:c0:02.0/0000:c1:00.0", 1, "0x15b3", "0x101d", "0x020000");
  const SysfsRoot root(dir.path());
  CHECK(pci_path_class(root, "devices/pci0000:16/0000:16:02.0/0000:17:00.0",
                       "devices/pci0000:16/0000:16:02.0/0000:17:00.1") == "PIX");
  CHECK(pci_path_class(root, "devices/pci0000:16/0000:16:02.0/0000:17:00.0/0000:18:00.0",
                       "devices/pci0000:16/0000:16:02.0/0000:19:00.0") == "PXB");
  CHECK(pci_path_class(root, "devices/pci0000:16/0000:16:02.0/0000:17:00.0",
                       "devices/pci0000:16/0000:16:03.0/0000:19:00.0") == "PHB");
  CHECK(pci_path_class(root, "devices/pci0000:b0/0000:b0:02.0/0000:b1:00.0",
                       "devices/pci0000:c0/0000:c0:02.0/0000:c1:00.0") == "NODE");
  CHECK(pci_path_class(root, "devices/pci0000:16/0000:16:02.0/0000:17:00.0",
                       "devices/pci0000:b0/0000:b0:02.0/0000:b1:00.0") == "SYS");
  CHECK(pci_path_class(root, "devices", "devices/pci0000:16/0000:16:02.0") == "");
}

}  // namespace node_fingerprint_test
