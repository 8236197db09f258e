#include "launcher/checks/node_fingerprint.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <system_error>

#include "libpai/env_contract.h"

extern char** environ;

namespace pai::checks {
namespace {

std::vector<std::string> components(const std::string& path) {
  std::vector<std::string> out;
  std::stringstream in(path);
  for (std::string part; std::getline(in, part, '/');) {
    if (!part.empty()) out.push_back(part);
  }
  return out;
}

int numa_of(const SysfsRoot& sys, const std::string& function) {
  return static_cast<int>(sys.integer(function + "/numa_node").value_or(-1));
}

// The PCI functions of NVIDIA display and 3D controllers, resolved, in address order.
std::vector<std::string> gpu_functions(const SysfsRoot& sys) {
  std::vector<std::string> gpus;
  for (const std::string& address : sys.list("bus/pci/devices")) {
    const std::string dev = "bus/pci/devices/" + address;
    const std::string cls = sys.text(dev + "/class").value_or("");
    if (sys.text(dev + "/vendor") != "0x10de") continue;
    if (cls.rfind("0x0302", 0) != 0 && cls.rfind("0x0300", 0) != 0) continue;
    if (auto path = sys.resolve(dev)) gpus.push_back(*path);
  }
  return gpus;
}

// The version NCCL prints ("2.28.9+cuda13.0"), read from the library's .rodata without
// loading it; "" when the file is no 64-bit ELF or holds no such string. Only that section is
// read (a few hundred KiB of a library of hundreds of MiB).
std::string nccl_version_of(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  std::string version;
  Elf64_Ehdr eh{};
  if (::pread(fd, &eh, sizeof eh, 0) == static_cast<ssize_t>(sizeof eh) &&
      std::memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 && eh.e_ident[EI_CLASS] == ELFCLASS64 &&
      eh.e_shentsize == sizeof(Elf64_Shdr) && eh.e_shnum > 0 && eh.e_shnum < 4096 &&
      eh.e_shstrndx < eh.e_shnum) {
    std::vector<Elf64_Shdr> sections(eh.e_shnum);
    const auto table = static_cast<ssize_t>(sizeof(Elf64_Shdr) * eh.e_shnum);
    Elf64_Shdr names{};
    if (::pread(fd, sections.data(), table, static_cast<off_t>(eh.e_shoff)) == table) {
      names = sections[eh.e_shstrndx];
    }
    std::string strtab(std::min<std::uint64_t>(names.sh_size, 1 << 20), '\0');
    if (!strtab.empty() && ::pread(fd, strtab.data(), strtab.size(),
                                   static_cast<off_t>(names.sh_offset)) ==
                               static_cast<ssize_t>(strtab.size())) {
      for (const Elf64_Shdr& s : sections) {
        if (s.sh_name >= strtab.size() || std::strcmp(strtab.c_str() + s.sh_name, ".rodata") != 0 ||
            s.sh_size > (64u << 20)) {
          continue;
        }
        std::string data(s.sh_size, '\0');
        if (::pread(fd, data.data(), data.size(), static_cast<off_t>(s.sh_offset)) !=
            static_cast<ssize_t>(data.size())) {
          break;
        }
        static const std::string kPrefix = "NCCL version ";
        const auto at = data.find(kPrefix);
        if (at != std::string::npos) {
          const auto begin = at + kPrefix.size();
          auto end = begin;
          while (end < data.size() && end - begin < 64 && data[end] > ' ' && data[end] < 127) ++end;
          version = data.substr(begin, end - begin);
        }
        break;
      }
    }
  }
  ::close(fd);
  return version;
}

// The first libnccl.so.2 the loader would find in `dirs`: its version when its .rodata says
// it, else its real file name ("libnccl.so.2.28.3" names its version).
std::string nccl_library(const std::vector<std::string>& dirs) {
  for (const std::string& dir : dirs) {
    std::error_code ec;
    const auto path = std::filesystem::canonical(std::filesystem::path(dir) / "libnccl.so.2", ec);
    if (ec) continue;
    const std::string version = nccl_version_of(path.string());
    return version.empty() ? path.filename().string() : version;
  }
  return "";
}

std::string priorities(std::uint8_t mask) {
  std::string out;
  for (int p = 0; p < 8; ++p) {
    if ((mask & (1u << p)) != 0) out += (out.empty() ? "" : ",") + std::to_string(p);
  }
  return out.empty() ? "none" : out;
}

void port_facts(const Plan& plan, const FingerprintSources& in, const RdmaPort& port,
                std::map<std::string, std::string>& facts) {
  const std::string key = "port." + port.name() + ".";
  const auto put = [&](const std::string& name, const std::string& value) {
    if (!value.empty()) facts[key + name] = value;
  };
  put("state", port.state);
  put("rate", port.rate);
  put("linkLayer", port.link_layer);
  put("firmware", port.firmware);
  put("gidType", port.gid_type);
  if (port.netdev.empty()) return;
  put("netdev", port.netdev);
  if (const auto mtu = in.sys.integer("class/net/" + port.netdev + "/mtu")) {
    put("mtu", std::to_string(*mtu));
  }
  if (in.dcb == nullptr) return;
  const auto dcb = in.dcb->read(port.netdev);
  if (!dcb) return;
  put("pfc", priorities(dcb->pfc_enabled));
  put("trust", dcb->dscp_priority.empty() ? "pcp" : "dscp");
  if (plan.fabric.traffic_class < 0 || dcb->dscp_priority.empty()) return;
  const int dscp = plan.fabric.traffic_class >> 2;
  const auto it = dcb->dscp_priority.find(dscp);
  if (it == dcb->dscp_priority.end()) {
    put("tcPriority", "unmapped");
    return;
  }
  put("tcPriority", std::to_string(it->second));
  put("tcLossless", (dcb->pfc_enabled & (1u << it->second)) != 0 ? "yes" : "no");
}

}  // namespace

std::string pci_path_class(const SysfsRoot& sys, const std::string& a, const std::string& b) {
  const auto pa = components(a);
  const auto pb = components(b);
  // "devices", the root complex "pci0000:16", bridges..., the function.
  if (pa.size() < 3 || pb.size() < 3 || pa[0] != "devices" || pb[0] != "devices") return "";
  if (pa[1] != pb[1]) {
    const int na = numa_of(sys, a);
    const int nb = numa_of(sys, b);
    return na >= 0 && nb >= 0 && na != nb ? "SYS" : "NODE";
  }
  std::size_t common = 0;
  while (common < pa.size() && common < pb.size() && pa[common] == pb[common]) ++common;
  if (common <= 2) return "PHB";
  const std::size_t hops = std::max(pa.size(), pb.size()) - common;
  return hops <= 1 ? "PIX" : "PXB";
}

std::map<std::string, std::string> node_fingerprint(const Plan& plan, const Placement& placement,
                                                    const FingerprintSources& in) {
  std::map<std::string, std::string> facts;
  if (!in.kernel.empty()) facts["kernel"] = in.kernel;
  if (const auto driver = in.sys.text("module/nvidia/version"); driver && !driver->empty()) {
    facts["gpuDriver"] = *driver;
  }
  if (const std::string nccl = nccl_library(in.library_dirs); !nccl.empty()) {
    facts["ncclLibrary"] = nccl;
  }

  const bool roce = plan.fabric.type == FabricType::Roce;
  const int gid_index = roce ? plan.fabric.gid_index : -1;
  const std::vector<RdmaPort> ports = job_rdma_ports(in.sys, plan.fabric.hcas, gid_index);
  for (const RdmaPort& port : ports) port_facts(plan, in, port, facts);

  // Each GPU's nearest port of the job: the one NCCL would pair it with.
  const auto gpus = gpu_functions(in.sys);
  static const std::vector<std::string> kOrder = {"PIX", "PXB", "PHB", "NODE", "SYS"};
  for (std::size_t g = 0; g < gpus.size(); ++g) {
    std::string best;
    std::size_t best_rank = kOrder.size();
    for (const RdmaPort& port : ports) {
      const auto nic =
          in.sys.resolve(std::string(kInfinibandClass) + "/" + port.device + "/device");
      if (!nic) continue;
      const std::string cls = pci_path_class(in.sys, gpus[g], *nic);
      const auto rank =
          static_cast<std::size_t>(std::find(kOrder.begin(), kOrder.end(), cls) - kOrder.begin());
      if (rank < best_rank) {
        best_rank = rank;
        best = port.device + " " + cls;
      }
    }
    if (!best.empty()) facts["gpu" + std::to_string(g) + ".nic"] = best;
  }

  // The ranks' NCCL_* and UCX_*: the contract and the role's env over the launcher's own.
  std::map<std::string, std::string> env;
  for (const std::string& entry : in.environment) {
    const auto eq = entry.find('=');
    if (eq == std::string::npos) continue;
    const std::string name = entry.substr(0, eq);
    if (name.rfind("NCCL_", 0) == 0 || name.rfind("UCX_", 0) == 0) env[name] = entry.substr(eq + 1);
  }
  for (const auto& [name, value] : process_env(plan, placement, 0, ProcessContext{})) {
    if (name.rfind("NCCL_", 0) == 0 || name.rfind("UCX_", 0) == 0) env[name] = value;
  }
  for (const auto& [name, value] : env) facts["env." + name] = value;
  return facts;
}

CheckResult run_fingerprint_check(const Plan& plan, const Placement& placement,
                                  const CheckOptions& options) {
  KernelDcbReader dcb;
  FingerprintSources in{.sys = SysfsRoot(options.sysfs_root),
                        .dcb = &dcb,
                        .kernel = "",
                        .environment = {},
                        .library_dirs = {}};
  utsname name{};
  if (::uname(&name) == 0) in.kernel = name.release;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) in.environment.emplace_back(*e);
  if (const char* path = std::getenv("LD_LIBRARY_PATH")) {
    std::stringstream dirs(path);
    for (std::string dir; std::getline(dirs, dir, ':');) {
      if (!dir.empty()) in.library_dirs.push_back(dir);
    }
  }
  for (const char* dir :
       {"/usr/local/cuda/lib64", "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
        "/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib"}) {
    in.library_dirs.emplace_back(dir);
  }
  CheckResult result = make_result("fingerprint", CheckResult::Passed, "");
  result.facts = node_fingerprint(plan, placement, in);
  result.summary = std::to_string(result.facts.size()) + " facts";
  return result;
}

}  // namespace pai::checks
