#include "launcher/node/slurm_inventory.h"

#include <catch2/catch.hpp>
#include <stdexcept>

#include "libpai/placement.h"
#include "support/plan_fixture.h"

namespace slurm_inventory_test {

using pai::launcher::apply_slurm_allocation;
using pai::launcher::expand_hostlist;
using pai::launcher::read_slurm_allocation;
using pai::launcher::SlurmAllocation;
using Strings = std::vector<std::string>;
using Env = std::map<std::string, std::string>;

namespace {

std::string hostlist_error(const std::string& expression) {
  try {
    expand_hostlist(expression);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  FAIL("expand_hostlist accepted \"" << expression << "\"");
  return "";
}

std::string allocation_error(const Env& env) {
  try {
    read_slurm_allocation(env);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  FAIL("read_slurm_allocation accepted the environment");
  return "";
}

std::string apply_error(pai::Plan plan, const SlurmAllocation& allocation) {
  try {
    apply_slurm_allocation(plan, allocation);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  FAIL("apply_slurm_allocation accepted the allocation");
  return "";
}

// What srun gives the task on gpu-02 of a five-node job started from gpu-01.
Env srun_env() {
  return {{"SLURM_JOB_ID", "4242"},
          {"SLURM_JOB_NODELIST", "gpu-[01-05]"},
          {"SLURM_NODEID", "1"},
          {"SLURMD_NODENAME", "gpu-02"},
          {"SLURM_LAUNCH_NODE_IPADDR", "10.1.0.1"},
          {"PATH", "/usr/bin"}};
}

// The test plan (workers 0..workers-1, then ps) as pai-compile --target slurm writes it:
// placeholder hosts and spare, inventory slurm.
pai::Plan make_slurm_plan(int workers) {
  pai::Plan plan = pai::testing::make_test_plan(workers, 2);
  plan.inventory = pai::Inventory::Slurm;
  plan.hosts.clear();
  for (int i = 0; i <= workers; ++i) {
    const std::string name = "slurm-" + std::to_string(i);
    plan.hosts.push_back(pai::Host{name, name, 0});
  }
  plan.spares = {pai::Host{"slurm-spare-0", "slurm-spare-0", 0}};
  pai::place(plan, plan.hosts);
  return plan;
}

Strings names(const std::vector<pai::Host>& hosts) {
  Strings out;
  for (const pai::Host& h : hosts) out.push_back(h.name);
  return out;
}

}  // namespace

TEST_CASE("hostlists expand in order with their zero padding") {
  CHECK(expand_hostlist("login") == Strings{"login"});
  CHECK(expand_hostlist("node[1-3,5],gpu-[001-004],login") ==
        Strings{"node1", "node2", "node3", "node5", "gpu-001", "gpu-002", "gpu-003", "gpu-004",
                "login"});
  CHECK(expand_hostlist("n[8-10]") == Strings{"n8", "n9", "n10"});
  CHECK(expand_hostlist("n[098-101]") == Strings{"n098", "n099", "n100", "n101"});
  CHECK(expand_hostlist("a[7],b") == Strings{"a7", "b"});
  CHECK(expand_hostlist("rack[1-2]-n[1-2].ib") ==
        Strings{"rack1-n1.ib", "rack1-n2.ib", "rack2-n1.ib", "rack2-n2.ib"});
  CHECK(expand_hostlist("[1-2]x") == Strings{"1x", "2x"});
  CHECK(expand_hostlist("gpu-[0001-1024]").size() == 1024);
  CHECK(expand_hostlist("gpu-[0001-1024]").back() == "gpu-1024");
}

TEST_CASE("malformed hostlists are refused with the problem") {
  CHECK(hostlist_error("") == "invalid Slurm hostlist \"\": it is empty");
  CHECK(hostlist_error("a,,b") == "invalid Slurm hostlist \"a,,b\": empty host name at offset 2");
  CHECK(hostlist_error("a,") == "invalid Slurm hostlist \"a,\": empty host name at offset 2");
  CHECK(hostlist_error("node[1-3") ==
        "invalid Slurm hostlist \"node[1-3\": '[' at offset 4 is not closed");
  CHECK(hostlist_error("node1-3]") ==
        "invalid Slurm hostlist \"node1-3]\": ']' at offset 7 has no '['");
  CHECK(hostlist_error("node[]") ==
        "invalid Slurm hostlist \"node[]\": empty brackets at offset 4");
  CHECK(hostlist_error("node[3-1]") ==
        "invalid Slurm hostlist \"node[3-1]\": range \"3-1\" at offset 5 ends below its start");
  CHECK(hostlist_error("node[a-c]") ==
        "invalid Slurm hostlist \"node[a-c]\": \"a\" at offset 5 is not a range bound (digits, "
        "at most 18)");
  CHECK(hostlist_error("node[1-]") ==
        "invalid Slurm hostlist \"node[1-]\": \"\" at offset 5 is not a range bound (digits, at "
        "most 18)");
  CHECK(hostlist_error("node[1,]") ==
        "invalid Slurm hostlist \"node[1,]\": \"\" at offset 7 is not a range bound (digits, at "
        "most 18)");
  CHECK(hostlist_error("node[1[2]]") ==
        "invalid Slurm hostlist \"node[1[2]]\": \"1[2\" at offset 5 is not a range bound "
        "(digits, at most 18)");
  CHECK(hostlist_error("node1, node2") ==
        "invalid Slurm hostlist \"node1, node2\": whitespace at offset 6");
  // Far too many names is an error, not an exhausted memory.
  CHECK(hostlist_error("n[0-999999999999]") ==
        "invalid Slurm hostlist \"n[0-999999999999]\": it names more than 1048576 hosts");
  CHECK(hostlist_error("a[0-1023]b[0-1023]c[0-1]") ==
        "invalid Slurm hostlist \"a[0-1023]b[0-1023]c[0-1]\": it names more than 1048576 hosts");
  CHECK(hostlist_error("a[0-1048575],b") ==
        "invalid Slurm hostlist \"a[0-1048575],b\": it names more than 1048576 hosts");
}

TEST_CASE("the allocation is read from srun's environment") {
  const SlurmAllocation a = read_slurm_allocation(srun_env());
  CHECK(a.job_id == "4242");
  CHECK(a.nodes == Strings{"gpu-01", "gpu-02", "gpu-03", "gpu-04", "gpu-05"});
  CHECK(a.node_id == 1);
  CHECK(a.node_name == "gpu-02");
  CHECK(a.launch_address == "10.1.0.1");

  // Older Slurm names the list SLURM_NODELIST only.
  Env env = srun_env();
  env.erase("SLURM_JOB_NODELIST");
  env["SLURM_NODELIST"] = "gpu-[01-02]";
  CHECK(read_slurm_allocation(env).nodes == Strings{"gpu-01", "gpu-02"});
  env["SLURM_JOB_NODELIST"] = "gpu-[02-03]";
  CHECK(read_slurm_allocation(env).nodes == Strings{"gpu-02", "gpu-03"});
}

TEST_CASE("a missing or wrong Slurm variable is named") {
  for (const char* name :
       {"SLURM_JOB_ID", "SLURMD_NODENAME", "SLURM_LAUNCH_NODE_IPADDR", "SLURM_NODEID"}) {
    Env env = srun_env();
    env.erase(name);
    INFO(name);
    CHECK(allocation_error(env) == std::string(name) +
                                       " is not set: pai-launch --slurm runs as a task of srun, "
                                       "inside a Slurm allocation");
    env[name] = "";
    CHECK(allocation_error(env).starts_with(std::string(name) + " is not set"));
  }
  Env env = srun_env();
  env.erase("SLURM_JOB_NODELIST");
  CHECK(allocation_error(env) ==
        "SLURM_JOB_NODELIST is not set: pai-launch --slurm runs as a task of srun, inside a "
        "Slurm allocation");
  env["SLURM_JOB_NODELIST"] = "gpu-[01-";
  CHECK(allocation_error(env) ==
        "SLURM_JOB_NODELIST: invalid Slurm hostlist \"gpu-[01-\": '[' at offset 4 is not closed");
  env = srun_env();
  env["SLURM_NODEID"] = "5";
  CHECK(allocation_error(env) ==
        "SLURM_NODEID \"5\" is not a node index of SLURM_JOB_NODELIST (5 nodes)");
  env["SLURM_NODEID"] = "-1";
  CHECK(allocation_error(env) ==
        "SLURM_NODEID \"-1\" is not a node index of SLURM_JOB_NODELIST (5 nodes)");
  env = srun_env();
  env["SLURMD_NODENAME"] = "login";
  CHECK(allocation_error(env) ==
        "SLURMD_NODENAME \"login\" is not a node of SLURM_JOB_NODELIST \"gpu-[01-05]\"");
}

TEST_CASE("the allocation's nodes replace the placeholders and the job is placed again") {
  pai::Plan plan = make_slurm_plan(2);
  plan.coordinator_host = "slurm-1";  // not pai-compile's doing, and dropped all the same
  const pai::Plan compiled = make_slurm_plan(2);
  apply_slurm_allocation(plan, read_slurm_allocation(srun_env()));

  CHECK(plan.inventory == pai::Inventory::Static);
  CHECK(names(plan.hosts) == Strings{"gpu-01", "gpu-02", "gpu-03"});
  CHECK(names(plan.spares) == Strings{"gpu-04", "gpu-05"});
  CHECK(plan.hosts[0].address == "10.1.0.1");
  CHECK(plan.hosts[1].address == "gpu-02");
  CHECK(plan.spares[1].address == "gpu-05");
  CHECK(plan.coordinator_host.empty());
  CHECK(plan.coordinator.host == "gpu-01");
  CHECK(plan.coordinator.address == "10.1.0.1");
  CHECK(plan.coordinator.port == compiled.coordinator.port);
  CHECK(plan.master.address == "10.1.0.1");
  CHECK(plan.master.port == compiled.master.port);
  REQUIRE(plan.placements.size() == 3);
  for (std::size_t i = 0; i < plan.placements.size(); ++i) {
    INFO(i);
    CHECK(plan.placements[i].host.name == plan.hosts[i].name);
    CHECK(plan.placements[i].ports == compiled.placements[i].ports);
    CHECK(plan.placements[i].first_rank == compiled.placements[i].first_rank);
  }
  CHECK(plan.world_size == compiled.world_size);

  // Applied once, the plan is no longer a Slurm plan.
  CHECK(apply_error(plan, read_slurm_allocation(srun_env())) ==
        "the plan's inventory is static, not slurm: compile the job with pai-compile --target "
        "slurm to run it on a Slurm allocation");
}

TEST_CASE("an allocation with exactly the job's instances has no spares") {
  pai::Plan plan = make_slurm_plan(1);
  Env env = srun_env();
  env["SLURM_JOB_NODELIST"] = "c[7,9]";
  env["SLURMD_NODENAME"] = "c9";
  apply_slurm_allocation(plan, read_slurm_allocation(env));
  CHECK(names(plan.hosts) == Strings{"c7", "c9"});
  CHECK(plan.spares.empty());
  CHECK(plan.placements[1].host.name == "c9");
}

TEST_CASE("an allocation smaller than the job is refused with both counts") {
  Env env = srun_env();
  env["SLURM_JOB_NODELIST"] = "gpu-[01-02]";
  env["SLURM_NODEID"] = "0";
  env["SLURMD_NODENAME"] = "gpu-01";
  CHECK(apply_error(make_slurm_plan(2), read_slurm_allocation(env)) ==
        "the Slurm allocation has 2 nodes but the job has 3 instances, each needing its own "
        "node: submit it with sbatch --nodes=4");
  env["SLURM_JOB_NODELIST"] = "gpu-01";
  CHECK(apply_error(make_slurm_plan(2), read_slurm_allocation(env)) ==
        "the Slurm allocation has 1 node but the job has 3 instances, each needing its own "
        "node: submit it with sbatch --nodes=4");
}

TEST_CASE("a plan with a static inventory is not put on an allocation") {
  CHECK(apply_error(pai::testing::make_test_plan(2, 2), read_slurm_allocation(srun_env())) ==
        "the plan's inventory is static, not slurm: compile the job with pai-compile --target "
        "slurm to run it on a Slurm allocation");
}

}  // namespace slurm_inventory_test
