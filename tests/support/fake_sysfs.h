// A sysfs tree built in a test's folder from the kernel's documented layouts
// (Documentation/ABI/stable/sysfs-class-infiniband, sysfs-class-net, sysfs-bus-pci), for tests
// of what reads /sys through a SysfsRoot (launcher/checks/sysfs_root.h): RDMA ports and their
// counters, netdevs and their statistics, and where PCI functions sit. It fakes hardware the
// test machines do not have (RDMA NICs, GPUs); a lent machine checks the real tree.
//
// Links are relative as the kernel's are: class/infiniband/<dev> -> ../../devices/<pci>/
// infiniband/<dev>, class/net/<if> -> ../../devices/<pci>/net/<if>, <dev>/device -> the PCI
// function, bus/pci/devices/<addr> -> ../../../devices/<pci>.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace pai::testing {

class FakeSysfs {
 public:
  /// One RDMA port and what it sits on. The defaults are a RoCE v2 port of a ConnectX NIC.
  struct Port {
    std::string device = "mlx5_0";
    int port = 1;
    std::string state = "4: ACTIVE";
    std::string phys_state = "5: LinkUp";
    std::string link_layer = "Ethernet";
    std::string rate = "200 Gb/sec (4X HDR)";
    std::string netdev = "eth2";  ///< "" for none (InfiniBand)
    int mtu = 4200;
    int gid_index = 3;
    std::string gid = "0000:0000:0000:0000:0000:ffff:0a00:0001";
    std::string gid_type = "RoCE v2";
    std::string firmware = "28.39.1002";
    /// The PCI function below devices/: root complex, bridges, function.
    std::string pci_path = "pci0000:16/0000:16:02.0/0000:17:00.0";
    int numa_node = 0;
  };

  /// Port counters (counters/) every port gets, at zero.
  static const std::vector<std::string>& port_counters() {
    static const std::vector<std::string> names = {"symbol_error",
                                                   "port_rcv_errors",
                                                   "port_rcv_remote_physical_errors",
                                                   "port_rcv_switch_relay_errors",
                                                   "link_error_recovery",
                                                   "port_xmit_constraint_errors",
                                                   "port_rcv_constraint_errors",
                                                   "local_link_integrity_errors",
                                                   "excessive_buffer_overrun_errors",
                                                   "port_xmit_data",
                                                   "port_rcv_data",
                                                   "port_xmit_packets",
                                                   "port_rcv_packets",
                                                   "unicast_rcv_packets",
                                                   "unicast_xmit_packets",
                                                   "multicast_rcv_packets",
                                                   "multicast_xmit_packets",
                                                   "link_downed",
                                                   "port_xmit_discards",
                                                   "VL15_dropped",
                                                   "port_xmit_wait"};
    return names;
  }
  /// Hardware counters (hw_counters/) a mlx5 port has, at zero.
  static const std::vector<std::string>& mlx5_hw_counters() {
    static const std::vector<std::string> names = {"duplicate_request",
                                                   "implied_nak_seq_err",
                                                   "local_ack_timeout_err",
                                                   "np_cnp_sent",
                                                   "np_ecn_marked_roce_packets",
                                                   "out_of_buffer",
                                                   "out_of_sequence",
                                                   "packet_seq_err",
                                                   "rnr_nak_retry_err",
                                                   "rp_cnp_handled",
                                                   "rp_cnp_ignored",
                                                   "rx_icrc_encapsulated",
                                                   "req_cqe_error",
                                                   "resp_cqe_error",
                                                   "roce_adp_retrans",
                                                   "roce_slow_restart",
                                                   "lifespan"};
    return names;
  }
  /// What class/net/<if>/statistics holds.
  static const std::vector<std::string>& netdev_statistics() {
    static const std::vector<std::string> names = {
        "rx_bytes",   "tx_bytes",   "rx_packets",        "tx_packets",     "rx_errors",
        "tx_errors",  "rx_dropped", "tx_dropped",        "rx_crc_errors",  "rx_missed_errors",
        "collisions", "multicast",  "tx_carrier_errors", "rx_fifo_errors", "tx_fifo_errors"};
    return names;
  }

  explicit FakeSysfs(std::string root) : root_(std::move(root)) {
    std::filesystem::create_directories(root_);
  }
  const std::string& root() const { return root_; }

  /// A PCI function at devices/<pci_path> with its attributes, linked from bus/pci/devices.
  void add_pci(const std::string& pci_path, int numa_node, const std::string& vendor,
               const std::string& device_id, const std::string& pci_class) {
    const std::string dir = "devices/" + pci_path;
    set(dir + "/numa_node", std::to_string(numa_node));
    set(dir + "/vendor", vendor);
    set(dir + "/device", device_id);
    set(dir + "/class", pci_class);
    const std::string address = pci_path.substr(pci_path.rfind('/') + 1);
    link("bus/pci/devices/" + address, "../../../" + dir);
  }

  /// An NVIDIA GPU (3D controller) at devices/<pci_path>.
  void add_gpu(const std::string& pci_path, int numa_node) {
    add_pci(pci_path, numa_node, "0x10de", "0x2335", "0x030200");
  }

  /// A netdev at devices/<pci_path>/net/<name> (or a virtual one when pci_path is empty).
  void add_netdev(const std::string& name, const std::string& pci_path, int mtu) {
    const std::string dir =
        (pci_path.empty() ? "devices/virtual" : "devices/" + pci_path) + "/net/" + name;
    set(dir + "/mtu", std::to_string(mtu));
    set(dir + "/operstate", "up");
    set(dir + "/carrier", "1");
    set(dir + "/type", "1");
    for (const std::string& stat : netdev_statistics()) set(dir + "/statistics/" + stat, "0");
    link("class/net/" + name, "../../" + dir);
  }

  /// An RDMA port, its device (once), its counters at zero, its GIDs, its netdev and PCI function.
  void add_port(const Port& p) {
    const std::string pci_dir = "devices/" + p.pci_path;
    const std::string dev_dir = pci_dir + "/infiniband/" + p.device;
    if (!std::filesystem::exists(root_ + "/" + dev_dir)) {
      add_pci(p.pci_path, p.numa_node, "0x15b3", "0x101d", "0x020000");
      set(dev_dir + "/fw_ver", p.firmware);
      set(dev_dir + "/node_type", "1: CA");
      link(dev_dir + "/device", "../../../" + p.pci_path.substr(p.pci_path.rfind('/') + 1));
      link("class/infiniband/" + p.device, "../../" + dev_dir);
    }
    const std::string port_dir = dev_dir + "/ports/" + std::to_string(p.port);
    set(port_dir + "/state", p.state);
    set(port_dir + "/phys_state", p.phys_state);
    set(port_dir + "/link_layer", p.link_layer);
    set(port_dir + "/rate", p.rate);
    set(port_dir + "/gids/0", "fe80:0000:0000:0000:0000:0000:0000:0001");
    if (p.gid_index >= 0) {
      set(port_dir + "/gids/" + std::to_string(p.gid_index), p.gid);
      set(port_dir + "/gid_attrs/types/" + std::to_string(p.gid_index), p.gid_type);
      if (!p.netdev.empty()) {
        set(port_dir + "/gid_attrs/ndevs/" + std::to_string(p.gid_index), p.netdev);
      }
    }
    for (const std::string& c : port_counters()) set(port_dir + "/counters/" + c, "0");
    for (const std::string& c : mlx5_hw_counters()) {
      set(port_dir + "/hw_counters/" + c, c == "lifespan" ? "10" : "0");
    }
    if (!p.netdev.empty()) add_netdev(p.netdev, p.pci_path, p.mtu);
  }

  /// Path of a port's folder below the root: class/infiniband/<dev>/ports/<port>.
  static std::string port_dir(const std::string& device, int port) {
    return "class/infiniband/" + device + "/ports/" + std::to_string(port);
  }

  /// Writes `value` and a newline to `path` below the root, making its folders. In place,
  /// as a sysfs attribute changes: a reader that keeps the file open and reads it again from
  /// its start sees the new value (one pwrite over the old bytes, then the length cut).
  void set(const std::string& path, const std::string& value) const {
    const std::filesystem::path file = root_ + "/" + path;
    std::filesystem::create_directories(file.parent_path());
    const std::string text = value + "\n";
    const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) throw std::runtime_error("cannot write " + file.string());
    const bool ok = ::pwrite(fd, text.data(), text.size(), 0) ==
                        static_cast<ssize_t>(text.size()) &&
                    ::ftruncate(fd, static_cast<off_t>(text.size())) == 0;
    ::close(fd);
    if (!ok) throw std::runtime_error("cannot write " + file.string());
  }

  /// Removes `path` below the root, whatever it is.
  void remove(const std::string& path) const { std::filesystem::remove_all(root_ + "/" + path); }

  /// A relative link at `path` below the root pointing at `target`.
  void link(const std::string& path, const std::string& target) const {
    const std::filesystem::path at = root_ + "/" + path;
    std::filesystem::create_directories(at.parent_path());
    std::filesystem::remove(at);
    std::filesystem::create_directory_symlink(target, at);
  }

 private:
  std::string root_;
};

}  // namespace pai::testing
