// fake_sysfs: builds and changes a sysfs tree for the multi-node tests (tests/support/
// fake_sysfs.h: the kernel's documented layout), one tree per node, named to its launcher by
// PAI_SYSFS_ROOT.
//
//   fake_sysfs port ROOT [key=value...]   an RDMA port: device port state link_layer rate netdev
//                                         mtu gid_index gid_type firmware pci numa
//   fake_sysfs gpu ROOT PCI_PATH NUMA     an NVIDIA GPU
//   fake_sysfs set ROOT PATH VALUE        writes an attribute (atomically)
//   fake_sysfs add ROOT PATH DELTA        adds DELTA to the counter at PATH
//   fake_sysfs rm ROOT PATH               removes PATH (a port going away)
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iterator>
#include <string>

#include "support/fake_sysfs.h"

namespace {

int usage() {
  std::fprintf(stderr,
               "usage: fake_sysfs port ROOT [key=value...] | gpu ROOT PCI_PATH NUMA | "
               "set ROOT PATH VALUE | add ROOT PATH DELTA | rm ROOT PATH\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return usage();
  const std::string verb = argv[1];
  pai::testing::FakeSysfs sys(argv[2]);
  try {
    if (verb == "port") {
      pai::testing::FakeSysfs::Port p;
      for (int i = 3; i < argc; ++i) {
        const std::string arg = argv[i];
        const auto eq = arg.find('=');
        if (eq == std::string::npos) return usage();
        const std::string key = arg.substr(0, eq);
        const std::string value = arg.substr(eq + 1);
        if (key == "device")
          p.device = value;
        else if (key == "port")
          p.port = std::stoi(value);
        else if (key == "state")
          p.state = value;
        else if (key == "link_layer")
          p.link_layer = value;
        else if (key == "rate")
          p.rate = value;
        else if (key == "netdev")
          p.netdev = value;
        else if (key == "mtu")
          p.mtu = std::stoi(value);
        else if (key == "gid_index")
          p.gid_index = std::stoi(value);
        else if (key == "gid_type")
          p.gid_type = value;
        else if (key == "firmware")
          p.firmware = value;
        else if (key == "pci")
          p.pci_path = value;
        else if (key == "numa")
          p.numa_node = std::stoi(value);
        else
          return usage();
      }
      sys.add_port(p);
    } else if (verb == "gpu" && argc == 5) {
      sys.add_gpu(argv[3], std::stoi(argv[4]));
    } else if (verb == "set" && argc == 5) {
      sys.set(argv[3], argv[4]);
    } else if (verb == "add" && argc == 5) {
      std::ifstream in(std::string(argv[2]) + "/" + argv[3]);
      unsigned long long value = 0;
      in >> value;
      sys.set(argv[3], std::to_string(value + std::stoull(argv[4])));
    } else if (verb == "rm" && argc == 4) {
      sys.remove(argv[3]);
    } else {
      return usage();
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fake_sysfs: %s\n", e.what());
    return 1;
  }
  return 0;
}
