#include "launcher/checks/network_check.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>

#include "launcher/checks/isolated_check.h"
#include "support/fake_sysfs.h"
#include "support/temp_dir.h"
#include "test_plan.h"

namespace network_check_test {

using namespace pai::checks;
using pai::Plan;

namespace {

Plan loopback_plan() {
  Plan plan = test::one_node_plan();
  plan.fabric.type = pai::FabricType::Ethernet;
  plan.fabric.interface = "lo";
  return plan;
}

// A TCP socket listening on an ephemeral loopback port; closed on destruction.
struct Listener {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  int port = 0;
  Listener() {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_ANY);
    REQUIRE(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    REQUIRE(listen(fd, 4) == 0);
    socklen_t len = sizeof a;
    getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    port = ntohs(a.sin_port);
  }
  ~Listener() { close(fd); }
};

bool have_ip_tool() { return std::system("ip -V >/dev/null 2>&1") == 0; }

// A network namespace with a veth pair pai0 (10.213.0.1) <-> pai1 (10.213.0.2), both down;
// deleted on destruction, which also removes the veth pair.
struct Namespace {
  std::string name = "paitest-" + std::to_string(getpid());
  bool ok = false;
  Namespace() {
    ok = run("ip netns add " + name) &&
         run("ip -n " + name + " link add pai0 type veth peer name pai1") &&
         run("ip -n " + name + " addr add 10.213.0.1/24 dev pai0") &&
         run("ip -n " + name + " addr add 10.213.0.2/24 dev pai1") &&
         run("ip -n " + name + " link set lo up");
  }
  ~Namespace() { run("ip netns del " + name + " 2>/dev/null"); }
  static bool run(const std::string& command) { return std::system(command.c_str()) == 0; }

  // The network check, run in a child that has entered this namespace.
  CheckResult check(const Plan& plan) const {
    CheckOptions options;
    std::string path = "/run/netns/" + name;
    return run_isolated(
        "network",
        [&]() -> CheckResult {
          int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
          if (fd < 0 || setns(fd, CLONE_NEWNET) != 0)
            return make_result("network", CheckResult::Failed, "setns");
          return run_network_check(plan, plan.placements.front(), options);
        },
        std::chrono::seconds(20));
  }
};

}  // namespace

TEST_CASE("loopback up with an address passes") {
  Plan plan = loopback_plan();
  CheckResult r = run_network_check(plan, plan.placements.front(), CheckOptions{});
  CHECK(r.status == CheckResult::Passed);
  CHECK(r.summary == "lo up (127.0.0.1 ::1)");
  CHECK(r.figure == "lo up");
  CHECK(r.facts.at("interface") == "lo");
}

TEST_CASE("an interface that does not exist fails") {
  Plan plan = loopback_plan();
  plan.fabric.interface = "paino0";
  CheckResult r = run_network_check(plan, plan.placements.front(), CheckOptions{});
  CHECK(r.status == CheckResult::Failed);
  CHECK(r.summary == "interface paino0 does not exist");
}

TEST_CASE("nothing to check is skipped") {
  Plan plan = test::one_node_plan();
  CheckResult r = run_network_check(plan, plan.placements.front(), CheckOptions{});
  CHECK(r.status == CheckResult::Skipped);
  CHECK(r.summary == "nothing to check: no fabric interface, coordinator or ports");
}

TEST_CASE("a veth pair in a network namespace fails while down and passes once up") {
  if (geteuid() != 0 || !have_ip_tool()) {
    WARN("skipped: needs root and iproute2's ip to create a network namespace");
    return;
  }
  Namespace ns;
  REQUIRE(ns.ok);
  Plan plan = test::one_node_plan();
  plan.fabric.type = pai::FabricType::Ethernet;
  plan.fabric.interface = "pai0";

  CheckResult down = ns.check(plan);
  CHECK(down.status == CheckResult::Failed);
  CHECK(down.summary == "interface pai0 is down");

  REQUIRE(Namespace::run("ip -n " + ns.name + " link set pai0 up"));
  CheckResult no_carrier = ns.check(plan);
  CHECK(no_carrier.status == CheckResult::Failed);
  CHECK(no_carrier.summary == "interface pai0 is up but has no carrier (not RUNNING)");

  REQUIRE(Namespace::run("ip -n " + ns.name + " link set pai1 up"));
  plan.coordinator = {"node-1", "10.213.0.2", 1};
  CheckResult up = ns.check(plan);
  CHECK(up.status == CheckResult::Passed);
  CHECK(up.summary == "pai0 up (10.213.0.1), coordinator 10.213.0.2:1 reachable");

  REQUIRE(Namespace::run("ip -n " + ns.name + " addr flush dev pai0"));
  plan.coordinator = {};
  CheckResult bare = ns.check(plan);
  CHECK(bare.status == CheckResult::Failed);
  CHECK(bare.summary == "interface pai0 has no IP address");
}

namespace {

// mlx5_0 active with a RoCE v2 GID at 3, mlx5_1 down, mlx5_2 active without a GID at 3.
void build_rdma(pai::testing::FakeSysfs& sys) {
  sys.add_port({});
  pai::testing::FakeSysfs::Port down;
  down.device = "mlx5_1";
  down.state = "1: DOWN";
  down.netdev = "eth3";
  down.pci_path = "pci0000:16/0000:16:02.0/0000:17:00.1";
  sys.add_port(down);
  pai::testing::FakeSysfs::Port no_gid;
  no_gid.device = "mlx5_2";
  no_gid.gid_index = -1;
  no_gid.netdev = "eth4";
  no_gid.pci_path = "pci0000:16/0000:16:03.0/0000:18:00.0";
  sys.add_port(no_gid);
}

}  // namespace

TEST_CASE("RDMA devices are read from the sysfs root") {
  Plan plan = test::one_node_plan();
  plan.fabric.type = pai::FabricType::Roce;
  plan.fabric.gid_index = 3;
  pai::testing::TempDir dir;
  pai::testing::FakeSysfs sys(dir.path());
  build_rdma(sys);
  CheckOptions options;
  options.sysfs_root = dir.path();

  plan.fabric.hcas = {"mlx5_0"};
  CheckResult ok = run_network_check(plan, plan.placements.front(), options);
  CHECK(ok.status == CheckResult::Passed);
  CHECK(ok.summary == "mlx5_0 port 1 ACTIVE");

  plan.fabric.hcas = {"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_7"};
  CheckResult bad = run_network_check(plan, plan.placements.front(), options);
  CHECK(bad.status == CheckResult::Failed);
  CHECK(bad.summary == "RDMA device mlx5_1 has no ACTIVE port (1 DOWN) (and 2 more)");
  CHECK(bad.detail ==
        "RDMA device mlx5_1 has no ACTIVE port (1 DOWN)\n"
        "RDMA device mlx5_2 port 1 has no GID at index 3\n"
        "RDMA device mlx5_7 not found under " +
            dir.path() + "/class/infiniband\n");
}

TEST_CASE("InfiniBand needs no GID - and unnamed HCAs pass when one is usable") {
  Plan plan = test::one_node_plan();
  plan.fabric.type = pai::FabricType::Ib;
  pai::testing::TempDir dir;
  pai::testing::FakeSysfs sys(dir.path());
  build_rdma(sys);
  CheckOptions options;
  options.sysfs_root = dir.path();
  CheckResult r = run_network_check(plan, plan.placements.front(), options);
  CHECK(r.status == CheckResult::Passed);
  CHECK(r.summary == "mlx5_0 port 1 ACTIVE, mlx5_2 port 1 ACTIVE");

  options.sysfs_root = "/nonexistent/sys";
  CheckResult none = run_network_check(plan, plan.placements.front(), options);
  CHECK(none.summary == "no RDMA device under /nonexistent/sys/class/infiniband");
}

TEST_CASE("the coordinator is reachable when it listens or refuses") {
  Listener listener;
  CHECK(coordinator_unreachable("127.0.0.1", listener.port, 1000).empty());
  int closed_port = listener.port;
  {
    Listener other;
    closed_port = other.port;
  }
  CHECK(coordinator_unreachable("127.0.0.1", closed_port, 1000).empty());
}

TEST_CASE("the coordinator's own launcher does not connect to it to check it") {
  Listener coordinator;
  Plan plan = test::one_node_plan();
  plan.coordinator = {plan.placements.front().host.name, "127.0.0.1", coordinator.port};
  CheckOptions options;
  options.coordinator_served_here = true;
  CheckResult r = run_network_check(plan, plan.placements.front(), options);
  CHECK(r.status == CheckResult::Passed);
  CHECK(r.summary ==
        "coordinator 127.0.0.1:" + std::to_string(coordinator.port) + " served by this launcher");
  pollfd pending{coordinator.fd, POLLIN, 0};
  CHECK(poll(&pending, 1, 100) == 0);  // nobody knocked

  options.coordinator_served_here = false;
  run_network_check(plan, plan.placements.front(), options);
  CHECK(poll(&pending, 1, 100) == 1);  // the probe any other node makes
}

TEST_CASE("an unresolvable coordinator fails the check") {
  Plan plan = test::one_node_plan();
  CheckOptions options;
  options.coordinator_address = "no-such-host.invalid";
  options.coordinator_port = 20000;
  CheckResult r = run_network_check(plan, plan.placements.front(), options);
  CHECK(r.status == CheckResult::Failed);
  CHECK(r.summary.rfind("coordinator no-such-host.invalid does not resolve: ", 0) == 0);
}

TEST_CASE("a coordinator on an unreachable network fails the check") {
  if (geteuid() != 0 || !have_ip_tool()) {
    WARN("skipped: needs root and iproute2's ip to create a network namespace");
    return;
  }
  Namespace ns;
  REQUIRE(ns.ok);
  Plan plan = test::one_node_plan();
  plan.coordinator = {"node-1", "192.0.2.1", 20000};
  CheckResult r = ns.check(plan);
  CHECK(r.status == CheckResult::Failed);
  CHECK(r.summary == "coordinator 192.0.2.1:20000 is unreachable: Network is unreachable");
}

TEST_CASE("MASTER_PORT held by this launcher's own store is not checked - else it is") {
  // From the first start on, masterStore launcher's store holds MASTER_PORT: the checks
  // before a restart must not find it taken (they did, and failed the restart 3 times).
  Listener store;
  Plan plan = test::one_node_plan();
  plan.master = {plan.placements.front().host.name, "127.0.0.1", store.port};
  plan.master_store = pai::MasterStore::Launcher;
  const CheckResult served = run_network_check(plan, plan.placements.front(), CheckOptions{});
  INFO(served.summary);
  CHECK(served.status != CheckResult::Failed);
  CHECK(served.summary == "nothing to check: no fabric interface, coordinator or ports");
  plan.master_store = pai::MasterStore::Rank0;
  CheckResult taken = run_network_check(plan, plan.placements.front(), CheckOptions{});
  CHECK(taken.status == CheckResult::Failed);
  CHECK(taken.summary.rfind("port " + std::to_string(store.port) + " is not free", 0) == 0);
}

TEST_CASE("a reserved port in use fails - free ports pass") {
  Listener listener;
  Plan plan = test::one_node_plan();
  plan.placements.front().ports["sync"] = {listener.port};
  CheckResult taken = run_network_check(plan, plan.placements.front(), CheckOptions{});
  CHECK(taken.status == CheckResult::Failed);
  // The way out is named: the spec's portRange, with the range the plan uses.
  CHECK(taken.summary ==
        "port " + std::to_string(listener.port) +
            " is not free: Address already in use (another job on this node? this job's ports "
            "come from portRange " +
            std::to_string(plan.port_range_min) + "-" + std::to_string(plan.port_range_max) +
            ": set portRange.min and portRange.max in the job spec to a range no other job "
            "here uses)");

  int free_port = listener.port;
  close(listener.fd);
  listener.fd = socket(AF_INET, SOCK_STREAM, 0);
  plan.placements.front().ports["sync"] = {free_port};
  CheckResult ok = run_network_check(plan, plan.placements.front(), CheckOptions{});
  CHECK(ok.status == CheckResult::Passed);
  CHECK(ok.summary == "1 reserved port free");
}

TEST_CASE("ports another launcher's check holds fail this one's check naming portRange") {
  // A port free for TCP: the other job's ranks have not bound it yet.
  int free_port = 0;
  {
    Listener listener;
    free_port = listener.port;
  }
  Plan plan = test::one_node_plan();
  plan.placements.front().ports["sync"] = {free_port};
  PortReservations first_job, second_job;
  CheckOptions first;
  first.reservations = &first_job;
  CHECK(run_network_check(plan, plan.placements.front(), first).status == CheckResult::Passed);

  CheckOptions second;
  second.reservations = &second_job;
  CheckResult r = run_network_check(plan, plan.placements.front(), second);
  CHECK(r.status == CheckResult::Failed);
  CHECK(r.summary ==
        "port " + std::to_string(free_port) +
            " is not free: reserved by another pai-launch on this host (pid " +
            std::to_string(getpid()) +
            ") (another job on this node? this job's ports come from portRange " +
            std::to_string(plan.port_range_min) + "-" + std::to_string(plan.port_range_max) +
            ": set portRange.min and portRange.max in the job spec to a range no other job "
            "here uses)");
  // The first job's own launcher checking again still passes.
  CHECK(run_network_check(plan, plan.placements.front(), first).status == CheckResult::Passed);
}

TEST_CASE("a check that loses one port to another launcher reserves none after it") {
  // Two jobs started together on one range: the first launcher got the lowest port only. The
  // second must not take the rest, or each would hold part of the range and both fail.
  std::vector<int> free_ports;
  {
    Listener a, b, c;
    free_ports = {a.port, b.port, c.port};
  }
  std::sort(free_ports.begin(), free_ports.end());
  Plan plan = test::one_node_plan();
  plan.placements.front().ports["sync"] = free_ports;
  PortReservations first_job, second_job;
  REQUIRE(first_job.reserve(plan.placements.front().host.address, free_ports[0]).empty());
  CheckOptions second;
  second.reservations = &second_job;
  CheckResult r = run_network_check(plan, plan.placements.front(), second);
  CHECK(r.status == CheckResult::Failed);
  CHECK(r.summary.starts_with("port " + std::to_string(free_ports[0]) + " is not free: reserved"));
  // The rest are still there for the first job's check to take.
  CHECK(first_job.reserve(plan.placements.front().host.address, free_ports[1]).empty());
  CHECK(first_job.reserve(plan.placements.front().host.address, free_ports[2]).empty());
}

}  // namespace network_check_test
