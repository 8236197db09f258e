#include "launcher/checks/rdma_ports.h"

#include <algorithm>
#include <cstdlib>

namespace pai::checks {
namespace {

bool is_number(const std::string& s) {
  return !s.empty() && s.size() < 6 &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

double leading_number(const std::string& text) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  return end != text.c_str() && value > 0 ? value : 0;
}

bool nonzero_gid(const std::string& gid) {
  return std::any_of(gid.begin(), gid.end(), [](char c) { return c != '0' && c != ':'; });
}

// The netdev of a RoCE port: the one of the GID the job uses, else of GID 0, else the PCI
// function's only netdev.
std::string netdev_of(const SysfsRoot& sys, const std::string& device, const std::string& port,
                      int gid_index) {
  const std::string ndevs =
      std::string(kInfinibandClass) + "/" + device + "/ports/" + port + "/gid_attrs/ndevs/";
  for (int index : {gid_index, 0}) {
    if (index < 0) continue;
    if (auto name = sys.text(ndevs + std::to_string(index)); name && !name->empty()) return *name;
  }
  const auto nets = sys.list(std::string(kInfinibandClass) + "/" + device + "/device/net");
  return nets.size() == 1 ? nets[0] : "";
}

}  // namespace

std::string RdmaPort::name() const { return device + "/" + std::to_string(port); }

std::string sysfs_state_name(const std::string& text) {
  const auto colon = text.find(':');
  const std::string name = colon == std::string::npos ? text : text.substr(colon + 1);
  const auto begin = name.find_first_not_of(" \t");
  const auto end = name.find_last_not_of(" \t\r\n");
  return begin == std::string::npos ? "" : name.substr(begin, end - begin + 1);
}

std::vector<std::string> list_rdma_devices(const SysfsRoot& sys) {
  return sys.list(kInfinibandClass);
}

std::optional<std::vector<RdmaPort>> read_rdma_ports(const SysfsRoot& sys,
                                                     const std::string& device, int gid_index) {
  if (device.empty() || device.find('/') != std::string::npos || device[0] == '.') {
    return std::nullopt;
  }
  const std::string dir = std::string(kInfinibandClass) + "/" + device;
  if (!sys.exists(dir + "/ports")) return std::nullopt;
  const std::string firmware = sys.text(dir + "/fw_ver").value_or("");
  std::string pci;
  if (const auto function = sys.resolve(dir + "/device")) {
    pci = function->substr(function->rfind('/') + 1);
  }
  const int numa = static_cast<int>(sys.integer(dir + "/device/numa_node").value_or(-1));
  std::vector<RdmaPort> ports;
  for (const std::string& number : sys.list(dir + "/ports")) {
    if (!is_number(number)) continue;
    const std::string p = dir + "/ports/" + number;
    RdmaPort port;
    port.device = device;
    port.port = std::atoi(number.c_str());
    port.state = sysfs_state_name(sys.text(p + "/state").value_or(""));
    port.phys_state = sysfs_state_name(sys.text(p + "/phys_state").value_or(""));
    port.link_layer = sys.text(p + "/link_layer").value_or("");
    port.rate = sys.text(p + "/rate").value_or("");
    port.rate_gbps = leading_number(port.rate);
    if (gid_index >= 0) {
      const std::string index = std::to_string(gid_index);
      port.gid_configured = nonzero_gid(sys.text(p + "/gids/" + index).value_or(""));
      port.gid_type = sys.text(p + "/gid_attrs/types/" + index).value_or("");
    }
    if (port.link_layer != "InfiniBand") port.netdev = netdev_of(sys, device, number, gid_index);
    port.firmware = firmware;
    port.pci = pci;
    port.numa_node = numa < 0 ? -1 : numa;
    ports.push_back(std::move(port));
  }
  std::sort(ports.begin(), ports.end(),
            [](const RdmaPort& a, const RdmaPort& b) { return a.port < b.port; });
  return ports;
}

std::vector<RdmaPort> job_rdma_ports(const SysfsRoot& sys, const std::vector<std::string>& hcas,
                                     int gid_index) {
  std::vector<RdmaPort> out;
  if (hcas.empty()) {
    for (const std::string& device : list_rdma_devices(sys)) {
      for (RdmaPort& port :
           read_rdma_ports(sys, device, gid_index).value_or(std::vector<RdmaPort>{})) {
        if (port.active()) out.push_back(std::move(port));
      }
    }
    return out;
  }
  for (const std::string& hca : hcas) {
    const auto colon = hca.find(':');
    const std::string device = hca.substr(0, colon);
    const int only = colon == std::string::npos ? 0 : std::atoi(hca.c_str() + colon + 1);
    for (RdmaPort& port :
         read_rdma_ports(sys, device, gid_index).value_or(std::vector<RdmaPort>{})) {
      if (only == 0 || port.port == only) out.push_back(std::move(port));
    }
  }
  return out;
}

}  // namespace pai::checks
