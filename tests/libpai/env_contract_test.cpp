#include "libpai/env_contract.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <set>

#include "libpai/placement.h"
#include "support/plan_fixture.h"

namespace env_contract_test {

namespace {

using pai::EnvList;

const pai::Placement& at(const pai::Plan& plan, const std::string& role, int index) {
  const pai::Placement* p = pai::find_placement(plan, role, index);
  REQUIRE(p != nullptr);
  return *p;
}

std::string value_of(const EnvList& env, const std::string& name) {
  for (const auto& [n, v] : env) {
    if (n == name) return v;
  }
  return "<unset>";
}

bool has(const EnvList& env, const std::string& name) { return value_of(env, name) != "<unset>"; }

pai::ProcessContext context() {
  pai::ProcessContext ctx;
  ctx.restart_count = 2;
  ctx.control_socket = "/run/pai/ctl.sock";
  ctx.hostfile = "/run/pai/hostfile";
  ctx.rsh_agent = "/usr/bin/pai-launch rsh";
  return ctx;
}

}  // namespace

TEST_CASE("job_env holds OpenPAI job variables - master and fabric presets") {
  pai::Plan plan = pai::testing::make_test_plan(2, 2);
  CHECK(pai::job_env(plan) ==
        EnvList{
            {"PAI_JOB_NAME", "test-job"},
            {"PAI_TASK_ROLE_COUNT", "2"},
            {"PAI_TASK_ROLE_LIST", "worker,ps"},
            {"PAI_TASK_ROLE_TASK_COUNT_worker", "2"},
            {"PAI_RESOURCE_worker", "8,96,1638400,65536"},
            {"PAI_MIN_FAILED_TASK_COUNT_worker", "1"},
            {"PAI_MIN_SUCCEEDED_TASK_COUNT_worker", "-1"},
            {"PAI_TASK_ROLE_TASK_COUNT_ps", "1"},
            {"PAI_RESOURCE_ps", "0,4,8192,0"},
            {"PAI_MIN_FAILED_TASK_COUNT_ps", "-1"},
            {"PAI_MIN_SUCCEEDED_TASK_COUNT_ps", "1"},
            {"PAI_JOB_TASK_COUNT", "3"},
            {"PAI_TASKS_NUM", "3"},
            {"PAI_JOB_TASK_ROLE_COUNT", "2"},
            {"PAI_TASK_ROLES_NUM", "2"},
            {"PAI_JOB_TASK_ROLE_LIST", "worker,ps"},
            {"PAI_TASK_ROLE_worker_HOST_LIST", "10.0.0.1:20002,10.0.0.2:20000"},
            {"PAI_TASK_ROLE_ps_HOST_LIST", "10.0.0.3:20000"},
            {"PAI_HOST_IP_worker_0", "10.0.0.1"},
            {"PAI_PORT_LIST_worker_0_sync", "20002"},
            {"PAI_worker_0_sync_PORT", "20002"},
            {"PAI_HOST_IP_worker_1", "10.0.0.2"},
            {"PAI_PORT_LIST_worker_1_sync", "20000"},
            {"PAI_worker_1_sync_PORT", "20000"},
            {"PAI_HOST_IP_ps_0", "10.0.0.3"},
            {"PAI_PORT_LIST_ps_0_grpc", "20000,20001"},
            {"PAI_ps_0_grpc_PORT", "20000,20001"},
            {"PAI_TASK_ROLE_INSTANCES", "worker:0,worker:1,ps:0"},
            {"MASTER_ADDR", "10.0.0.1"},
            {"MASTER_PORT", "20001"},
            {"PAI_MAX_RESTARTS", "5"},
            {"PAI_OUTPUT_DIR", "/runs/test-job"},
            {"NCCL_IB_TC", "106"},
            {"NCCL_IB_GID_INDEX", "3"},
            {"NCCL_CROSS_NIC", "0"},
            {"NCCL_SOCKET_IFNAME", "eth0"},
            {"GLOO_SOCKET_IFNAME", "eth0"},
            {"NCCL_IB_HCA", "mlx5_0,mlx5_1"},
        });
}

TEST_CASE("every process gets the planned checkpoint interval - none from an unplanned plan") {
  pai::Plan plan = pai::testing::make_test_plan();
  CHECK(value_of(pai::job_env(plan), "PAI_CHECKPOINT_INTERVAL_SECONDS") == "<unset>");
  plan.fault_tolerance.checkpoint_plan.interval_seconds = 4342;
  CHECK(value_of(pai::job_env(plan), "PAI_CHECKPOINT_INTERVAL_SECONDS") == "4342");
  CHECK(value_of(pai::process_env(plan, at(plan, "ps", 0), 0, {}),
                 "PAI_CHECKPOINT_INTERVAL_SECONDS") == "4342");
  CHECK(pai::is_reserved_env_name("PAI_CHECKPOINT_INTERVAL_SECONDS"));
}

TEST_CASE("instance_env for a perProcess instance") {
  pai::Plan plan = pai::testing::make_test_plan(2, 2);
  CHECK(pai::instance_env(plan, at(plan, "worker", 1), context()) ==
        EnvList{
            {"PYTHONUNBUFFERED", "1"},
            {"NODE_RANK", "1"},
            {"GROUP_RANK", "1"},
            {"NNODES", "3"},
            {"NPROC_PER_NODE", "2"},
            {"LOCAL_WORLD_SIZE", "2"},
            {"ROLE_NAME", "worker"},
            {"ROLE_WORLD_SIZE", "4"},
            {"PAI_CURRENT_TASK_ROLE_NAME", "worker"},
            {"PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX", "1"},
            {"PAI_CONTAINER_HOST_IP", "10.0.0.2"},
            {"PAI_CURRENT_CONTAINER_IP", "10.0.0.2"},
            {"PAI_CONTAINER_HOST_sync_PORT_LIST", "20000"},
            {"PAI_CONTAINER_HOST_PORT_LIST", "sync:20000;"},
            {"PAI_RESTART_COUNT", "2"},
            {"TORCHELASTIC_RESTART_COUNT", "2"},
            {"PAI_CONTROL_SOCKET", "/run/pai/ctl.sock"},
        });
}

TEST_CASE("a perNode role with GPUs announces one process per GPU to its own torchrun") {
  pai::Plan plan = pai::testing::make_test_plan(2, 2);
  pai::Role& ps = plan.roles[1];
  REQUIRE(ps.name == "ps");
  REQUIRE(ps.env_convention == pai::EnvConvention::PerNode);
  ps.resources.gpu = 8;
  const EnvList env = pai::instance_env(plan, at(plan, "ps", 0), pai::ProcessContext{});
  auto value = [&](const std::string& name) {
    for (const auto& [k, v] : env) {
      if (k == name) return v;
    }
    return std::string("<unset>");
  };
  CHECK(value("NPROC_PER_NODE") == "8");
  CHECK(value("PET_NPROC_PER_NODE") == "8");
  CHECK(value("LOCAL_WORLD_SIZE") == "1");
  CHECK(value("WORLD_SIZE") == "3");
}

TEST_CASE("torchrun's PET_ variables are for perNode roles only") {
  pai::Plan plan = pai::testing::make_test_plan(2, 2);
  const EnvList worker = pai::instance_env(plan, at(plan, "worker", 1), context());
  for (const char* name : {"PET_NNODES", "PET_NODE_RANK", "PET_NPROC_PER_NODE",
                           "PET_MASTER_ADDR", "PET_MASTER_PORT"}) {
    CHECK_FALSE(has(worker, name));
    CHECK(has(pai::process_env(plan, at(plan, "ps", 0), 0, context()), name));
  }
  REQUIRE(plan.master.port > 0);
  const EnvList ps = pai::process_env(plan, at(plan, "ps", 0), 0, context());
  CHECK(value_of(ps, "PET_MASTER_ADDR") == value_of(ps, "MASTER_ADDR"));
  CHECK(value_of(ps, "PET_MASTER_PORT") == value_of(ps, "MASTER_PORT"));
  CHECK(value_of(ps, "PET_NNODES") == value_of(ps, "NNODES"));
  CHECK(value_of(ps, "PET_NODE_RANK") == value_of(ps, "NODE_RANK"));
}

TEST_CASE("an MPI job's ranks leave out the launcher role: WORLD_SIZE counts ranks") {
  pai::Plan plan = pai::testing::make_test_plan(2, 2);
  plan.framework = pai::Framework::Mpi;
  plan.roles[1].name = "launcher";  // the fixture's perNode ps role, one process
  for (pai::Placement& p : plan.placements) {
    if (p.role == "ps") p.role = "launcher";
  }
  pai::place(plan, plan.hosts);
  CHECK(plan.world_size == 4);
  CHECK(pai::rank_env(plan, at(plan, "worker", 1), 1) ==
        EnvList{{"RANK", "3"}, {"LOCAL_RANK", "1"}, {"WORLD_SIZE", "4"}, {"ROLE_RANK", "3"}});
}

TEST_CASE("instance_env for a perNode instance counts nodes") {
  pai::Plan plan = pai::testing::make_test_plan(2, 2);
  CHECK(pai::instance_env(plan, at(plan, "ps", 0), pai::ProcessContext{}) ==
        EnvList{
            {"NODE_RANK", "2"},
            {"GROUP_RANK", "2"},
            {"NNODES", "3"},
            {"NPROC_PER_NODE", "1"},
            {"LOCAL_WORLD_SIZE", "1"},
            {"ROLE_NAME", "ps"},
            {"ROLE_WORLD_SIZE", "1"},
            {"WORLD_SIZE", "3"},
            {"RANK", "2"},
            {"PET_NNODES", "3"},
            {"PET_NODE_RANK", "2"},
            {"PET_NPROC_PER_NODE", "1"},
            {"PET_MASTER_ADDR", plan.master.address},
            {"PET_MASTER_PORT", std::to_string(plan.master.port)},
            {"PAI_CURRENT_TASK_ROLE_NAME", "ps"},
            {"PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX", "0"},
            {"PAI_CONTAINER_HOST_IP", "10.0.0.3"},
            {"PAI_CURRENT_CONTAINER_IP", "10.0.0.3"},
            {"PAI_CONTAINER_HOST_grpc_PORT_LIST", "20000,20001"},
            {"PAI_CONTAINER_HOST_PORT_LIST", "grpc:20000,20001;"},
            {"PAI_RESTART_COUNT", "0"},
            {"TORCHELASTIC_RESTART_COUNT", "0"},
        });
}

TEST_CASE("OpenPAI's container variables name the instance's ports and its http and ssh ports") {
  pai::Plan plan = pai::testing::make_test_plan(2, 2);
  pai::Placement placement = at(plan, "ps", 0);
  placement.ports = {{"http", {20005, 20006}}, {"ssh", {20007}}};
  pai::ProcessContext ctx;
  ctx.user_name = "alice";
  const EnvList env = pai::instance_env(plan, placement, ctx);
  CHECK(value_of(env, "PAI_CONTAINER_HOST_PORT_LIST") == "http:20005,20006;ssh:20007;");
  CHECK(value_of(env, "PAI_CONTAINER_HOST_http_PORT_LIST") == "20005,20006");
  CHECK(value_of(env, "PAI_CONTAINER_HOST_PORT") == "20005");
  CHECK(value_of(env, "PAI_CURRENT_CONTAINER_PORT") == "20005");
  CHECK(value_of(env, "PAI_CONTAINER_SSH_PORT") == "20007");
  CHECK(value_of(env, "PAI_USER_NAME") == "alice");
  CHECK(value_of(env, "PAI_USERNAME") == "alice");
  // OpenPAI's FrameworkController name: "<user>~<job>", the OpenPAI file's own job name where
  // pai's had to differ.
  CHECK(value_of(env, "PAI_FRAMEWORK_NAME") == "alice~test-job");
  plan.roles[1].env.emplace_back("PAI_OPENPAI_JOB_NAME", "Test_Job");
  CHECK(value_of(pai::instance_env(plan, placement, ctx), "PAI_FRAMEWORK_NAME") ==
        "alice~Test_Job");
  CHECK_FALSE(has(pai::instance_env(plan, placement, pai::ProcessContext{}), "PAI_FRAMEWORK_NAME"));
  CHECK_FALSE(has(pai::instance_env(plan, placement, pai::ProcessContext{}), "PAI_USER_NAME"));
  CHECK(pai::is_reserved_env_name("PAI_CONTAINER_HOST_http_PORT_LIST"));
  CHECK(pai::is_reserved_env_name("PAI_MIN_FAILED_TASK_COUNT_ps"));
  CHECK(pai::is_reserved_env_name("PAI_USER_NAME"));
}

TEST_CASE("rank_env per convention") {
  pai::Plan plan = pai::testing::make_test_plan(2, 2);
  CHECK(pai::rank_env(plan, at(plan, "worker", 1), 1) ==
        EnvList{{"RANK", "3"}, {"LOCAL_RANK", "1"}, {"WORLD_SIZE", "5"}, {"ROLE_RANK", "3"}});
  CHECK(pai::rank_env(plan, at(plan, "worker", 0), 0) ==
        EnvList{{"RANK", "0"}, {"LOCAL_RANK", "0"}, {"WORLD_SIZE", "5"}, {"ROLE_RANK", "0"}});
  CHECK(pai::rank_env(plan, at(plan, "ps", 0), 0) ==
        EnvList{{"LOCAL_RANK", "0"}, {"ROLE_RANK", "0"}});
}

TEST_CASE("process_env layers job - instance and rank - user env overrides presets in place") {
  pai::Plan plan = pai::testing::make_test_plan(2, 2);
  plan.roles[0].env = {{"NCCL_IB_HCA", "mlx5_9"}, {"PYTHONUNBUFFERED", "1"}};
  EnvList env = pai::process_env(plan, at(plan, "worker", 1), 0, context());
  std::set<std::string> names;
  std::size_t hca_position = 0;
  for (std::size_t i = 0; i < env.size(); ++i) {
    names.insert(env[i].first);
    if (env[i].first == "NCCL_IB_HCA") hca_position = i;
  }
  CHECK(names.size() == env.size());
  CHECK(value_of(env, "NCCL_IB_HCA") == "mlx5_9");
  CHECK(hca_position == pai::job_env(plan).size() - 1);
  CHECK(value_of(env, "RANK") == "2");
  CHECK(value_of(env, "WORLD_SIZE") == "5");
  CHECK(value_of(env, "MASTER_ADDR") == "10.0.0.1");
  CHECK(env.back() == std::pair<std::string, std::string>{"ROLE_RANK", "2"});

  EnvList ps = pai::process_env(plan, at(plan, "ps", 0), 0, context());
  CHECK(value_of(ps, "WORLD_SIZE") == "3");
  CHECK(value_of(ps, "RANK") == "2");
  CHECK(value_of(ps, "LOCAL_RANK") == "0");
}

TEST_CASE("process_env gives one process its telemetry ring - last, and only when set") {
  pai::Plan plan = pai::testing::make_test_plan(2, 2);
  pai::ProcessContext ctx = context();
  CHECK_FALSE(has(pai::process_env(plan, at(plan, "worker", 1), 1, ctx), "PAI_TELEMETRY_FILE"));
  ctx.telemetry_file = "/tmp/pai/job/worker-1.rank-3.telemetry";
  EnvList env = pai::process_env(plan, at(plan, "worker", 1), 1, ctx);
  CHECK(env.back() == std::pair<std::string, std::string>{
                          "PAI_TELEMETRY_FILE", "/tmp/pai/job/worker-1.rank-3.telemetry"});
  CHECK_FALSE(has(pai::instance_env(plan, at(plan, "worker", 1), ctx), "PAI_TELEMETRY_FILE"));
}

TEST_CASE("process_env gives one process its per-peer table - after its ring, only when set") {
  pai::Plan plan = pai::testing::make_test_plan(2, 2);
  pai::ProcessContext ctx = context();
  ctx.telemetry_file = "/tmp/pai/job/worker-1.rank-3.telemetry";
  CHECK_FALSE(
      has(pai::process_env(plan, at(plan, "worker", 1), 1, ctx), "PAI_TELEMETRY_PEERS_FILE"));
  ctx.telemetry_peers_file = "/tmp/pai/job/worker-1.rank-3.telemetry.peers";
  EnvList env = pai::process_env(plan, at(plan, "worker", 1), 1, ctx);
  REQUIRE(env.size() >= 2);
  CHECK(env[env.size() - 2].first == "PAI_TELEMETRY_FILE");
  CHECK(env.back() == std::pair<std::string, std::string>{
                          "PAI_TELEMETRY_PEERS_FILE",
                          "/tmp/pai/job/worker-1.rank-3.telemetry.peers"});
  CHECK_FALSE(
      has(pai::instance_env(plan, at(plan, "worker", 1), ctx), "PAI_TELEMETRY_PEERS_FILE"));
  CHECK(pai::is_reserved_env_name("PAI_TELEMETRY_PEERS_FILE"));
}

TEST_CASE("NCCL_PROFILER_PLUGIN when the plan asks and the plugin was found - a role's own wins") {
  pai::Plan plan = pai::testing::make_test_plan(2, 2);
  pai::ProcessContext ctx = context();
  ctx.nccl_profiler = "/opt/pai/lib/pai/libpai-nccl-profiler.so";
  CHECK_FALSE(has(pai::process_env(plan, at(plan, "worker", 0), 0, ctx), "NCCL_PROFILER_PLUGIN"));

  plan.fault_tolerance.diagnosis.nccl_profiler = true;
  CHECK(value_of(pai::instance_env(plan, at(plan, "worker", 0), ctx), "NCCL_PROFILER_PLUGIN") ==
        "/opt/pai/lib/pai/libpai-nccl-profiler.so");
  CHECK(value_of(pai::process_env(plan, at(plan, "worker", 1), 1, ctx), "NCCL_PROFILER_PLUGIN") ==
        "/opt/pai/lib/pai/libpai-nccl-profiler.so");

  pai::ProcessContext not_found = context();
  CHECK_FALSE(
      has(pai::process_env(plan, at(plan, "worker", 0), 0, not_found), "NCCL_PROFILER_PLUGIN"));

  for (auto& role : plan.roles) {
    role.env.emplace_back("NCCL_PROFILER_PLUGIN", "/mine/libnccl-profiler.so");
  }
  EnvList env = pai::process_env(plan, at(plan, "worker", 0), 0, ctx);
  CHECK(value_of(env, "NCCL_PROFILER_PLUGIN") == "/mine/libnccl-profiler.so");
  CHECK(std::count_if(env.begin(), env.end(),
                      [](const auto& kv) { return kv.first == "NCCL_PROFILER_PLUGIN"; }) == 1);
}

TEST_CASE("instance_env names the latest checkpoint after the control socket - only when set") {
  pai::Plan plan = pai::testing::make_test_plan(2, 2);
  pai::ProcessContext ctx = context();
  CHECK_FALSE(has(pai::instance_env(plan, at(plan, "worker", 0), ctx), "PAI_LATEST_CHECKPOINT"));
  ctx.control_socket = "/tmp/pai/job/worker-0.sock";
  ctx.latest_checkpoint = "/runs/job/checkpoints/step-800";
  const EnvList env = pai::instance_env(plan, at(plan, "worker", 0), ctx);
  const auto socket = std::find_if(env.begin(), env.end(),
                                   [](const auto& kv) { return kv.first == "PAI_CONTROL_SOCKET"; });
  REQUIRE(socket != env.end());
  REQUIRE(socket + 1 != env.end());
  CHECK(*(socket + 1) == std::pair<std::string, std::string>{"PAI_LATEST_CHECKPOINT",
                                                             "/runs/job/checkpoints/step-800"});
}

TEST_CASE("fabric presets per fabric type") {
  pai::Plan plan = pai::testing::make_test_plan(1, 1);
  auto fabric_vars = [&](const pai::Fabric& fabric) {
    plan.fabric = fabric;
    EnvList env = pai::job_env(plan);
    EnvList out;
    for (const auto& kv : env) {
      if (kv.first.starts_with("NCCL_") || kv.first.starts_with("GLOO_")) out.push_back(kv);
    }
    return out;
  };
  CHECK(fabric_vars({pai::FabricType::Ib, "ib0", {"mlx5_0"}, 3, 106}) ==
        EnvList{{"NCCL_SOCKET_IFNAME", "ib0"},
                {"GLOO_SOCKET_IFNAME", "ib0"},
                {"NCCL_IB_HCA", "mlx5_0"}});
  CHECK(fabric_vars({pai::FabricType::Ethernet, "eth1", {}, -1, -1}) ==
        EnvList{{"NCCL_IB_DISABLE", "1"},
                {"NCCL_SOCKET_IFNAME", "eth1"},
                {"GLOO_SOCKET_IFNAME", "eth1"}});
  CHECK(fabric_vars({pai::FabricType::Roce, "", {}, -1, -1}) == EnvList{{"NCCL_CROSS_NIC", "0"}});
  CHECK(fabric_vars({pai::FabricType::None, "eth0", {"mlx5_0"}, 3, 106}).empty());
}

TEST_CASE("MPI jobs get the launcher's hostfile and rsh agent - others do not") {
  pai::Plan plan = pai::testing::make_test_plan(1, 1);
  EnvList torch = pai::instance_env(plan, plan.placements[0], context());
  CHECK_FALSE(has(torch, "OMPI_MCA_orte_default_hostfile"));
  plan.framework = pai::Framework::Mpi;
  EnvList mpi = pai::instance_env(plan, plan.placements[0], context());
  CHECK(value_of(mpi, "OMPI_MCA_orte_default_hostfile") == "/run/pai/hostfile");
  CHECK(value_of(mpi, "OMPI_MCA_plm_rsh_agent") == "/usr/bin/pai-launch rsh");
  EnvList bare = pai::instance_env(plan, plan.placements[0], pai::ProcessContext{});
  CHECK_FALSE(has(bare, "OMPI_MCA_orte_default_hostfile"));
  CHECK_FALSE(has(bare, "PAI_CONTROL_SOCKET"));
}

TEST_CASE("job_env without output or restarts") {
  pai::Plan plan = pai::testing::make_test_plan(1, 1);
  plan.output.clear();
  plan.fault_tolerance.restart_enabled = false;
  plan.roles[0].resources.cpu = 1.5;
  EnvList env = pai::job_env(plan);
  CHECK_FALSE(has(env, "PAI_OUTPUT_DIR"));
  CHECK(value_of(env, "PAI_MAX_RESTARTS") == "0");
  CHECK(value_of(env, "PAI_RESOURCE_worker") == "8,1.5,1638400,65536");
}

TEST_CASE("a role's HOST_LIST gives each instance's http port, else its first, else no port") {
  // OpenPAI's runtime lists "address:http-port" (init.d/framework_parser.py): the TensorFlow
  // PS/worker jobs of its marketplace build their cluster spec from it.
  pai::Plan plan = pai::testing::make_test_plan(2, 2);
  plan.placements[0].ports = {{"grpc", {20010}}, {"http", {20011, 20012}}};
  plan.placements[1].ports.clear();
  const EnvList env = pai::job_env(plan);
  CHECK(value_of(env, "PAI_TASK_ROLE_worker_HOST_LIST") == "10.0.0.1:20011,10.0.0.2");
  CHECK(value_of(env, "PAI_TASK_ROLE_ps_HOST_LIST") == "10.0.0.3:20000");
  // Each label's variables hold its whole list, as OpenPAI's.
  CHECK(value_of(env, "PAI_worker_0_http_PORT") == "20011,20012");
}

TEST_CASE("large jobs export only the instance's own OpenPAI peer variables") {
  const int workers = pai::kOpenPaiPeerEnvMaxInstances + 10;
  pai::Plan plan = pai::testing::make_test_plan(workers, 1);
  EnvList job = pai::job_env(plan);
  for (const auto& [name, value] : job) {
    CHECK_FALSE(name.starts_with("PAI_HOST_IP_"));
    CHECK_FALSE(name.starts_with("PAI_PORT_LIST_"));
    CHECK_FALSE(name.ends_with("_HOST_LIST"));
  }
  EnvList inst = pai::instance_env(plan, at(plan, "worker", 100), pai::ProcessContext{});
  CHECK(value_of(inst, "PAI_HOST_IP_worker_100") == "10.0.0.101");
  CHECK(value_of(inst, "PAI_PORT_LIST_worker_100_sync") == "20000");
  CHECK(value_of(inst, "PAI_worker_100_sync_PORT") == "20000");
  CHECK_FALSE(has(inst, "PAI_HOST_IP_worker_99"));

  // At the threshold the peers are in job_env and not repeated per instance.
  pai::Plan small = pai::testing::make_test_plan(pai::kOpenPaiPeerEnvMaxInstances - 1, 1);
  CHECK(small.nodes == pai::kOpenPaiPeerEnvMaxInstances);
  CHECK(value_of(pai::job_env(small), "PAI_HOST_IP_ps_0") == "10.0.0.128");
  CHECK_FALSE(has(pai::instance_env(small, at(small, "ps", 0), {}), "PAI_HOST_IP_ps_0"));
}

TEST_CASE("is_reserved_env_name covers rank and OpenPAI contract names") {
  for (const char* name : {"RANK",
                           "WORLD_SIZE",
                           "LOCAL_RANK",
                           "LOCAL_WORLD_SIZE",
                           "NODE_RANK",
                           "GROUP_RANK",
                           "ROLE_RANK",
                           "ROLE_NAME",
                           "ROLE_WORLD_SIZE",
                           "NNODES",
                           "NPROC_PER_NODE",
                           "PET_NNODES",
                           "PET_NODE_RANK",
                           "PET_NPROC_PER_NODE",
                           "PET_MASTER_ADDR",
                           "PET_MASTER_PORT",
                           "MASTER_ADDR",
                           "MASTER_PORT",
                           "PAI_RESTART_COUNT",
                           "TORCHELASTIC_RESTART_COUNT",
                           "PAI_MAX_RESTARTS",
                           "PAI_CONTROL_SOCKET",
                           "PAI_TELEMETRY_FILE",
                           "PAI_TELEMETRY_PEERS_FILE",
                           "PAI_LATEST_CHECKPOINT",
                           "PAI_JOB_NAME",
                           "PAI_OUTPUT_DIR",
                           "PAI_TASK_ROLE_COUNT",
                           "PAI_TASK_ROLE_LIST",
                           "PAI_TASK_ROLE_TASK_COUNT_worker",
                           "PAI_TASK_ROLE_worker_HOST_LIST",
                           "PAI_HOST_IP_worker_0",
                           "PAI_PORT_LIST_worker_0_sync",
                           "PAI_worker_0_sync_PORT",
                           "PAI_my_role_12_grpc_PORT",
                           "PAI_CURRENT_TASK_ROLE_NAME",
                           "PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX",
                           "PAI_RESOURCE_ps"}) {
    INFO(name);
    CHECK(pai::is_reserved_env_name(name));
  }
  for (const char* name : {"PYTHONUNBUFFERED", "NCCL_IB_HCA", "OMP_NUM_THREADS", "rank",
                           "PAI_DEBUG", "PAI_worker_PORT", "PAI__0_x_PORT", "PAI_worker_0__PORT",
                           "PAI_worker_x_sync_PORT", "MY_RANK", "RANKS", ""}) {
    INFO(name);
    CHECK_FALSE(pai::is_reserved_env_name(name));
  }
}

TEST_CASE("envConvention torchrun gives exactly torchrun's worker variables, and pai's") {
  pai::Plan plan = pai::testing::make_test_plan(2, 4);
  plan.roles[0].env_convention = pai::EnvConvention::Torchrun;
  plan.fault_tolerance.max_restarts = 5;
  pai::ProcessContext ctx = context();
  ctx.error_file = "/logs/worker-1/rank-6.attempt-2.error.json";
  const EnvList env = pai::process_env(plan, at(plan, "worker", 1), 2, ctx);
  // torch.distributed.elastic's LocalElasticAgent gives its workers these (and
  // TORCHELASTIC_ERROR_FILE from its process context).
  CHECK(value_of(env, "RANK") == "6");
  CHECK(value_of(env, "LOCAL_RANK") == "2");
  CHECK(value_of(env, "WORLD_SIZE") == "9");
  CHECK(value_of(env, "LOCAL_WORLD_SIZE") == "4");
  CHECK(value_of(env, "GROUP_RANK") == "1");
  CHECK(value_of(env, "GROUP_WORLD_SIZE") == "3");
  CHECK(value_of(env, "ROLE_NAME") == "worker");
  CHECK(value_of(env, "ROLE_RANK") == "6");
  CHECK(value_of(env, "ROLE_WORLD_SIZE") == "8");
  CHECK(value_of(env, "TORCHELASTIC_RESTART_COUNT") == "2");
  CHECK(value_of(env, "TORCHELASTIC_MAX_RESTARTS") == "5");
  CHECK(value_of(env, "TORCHELASTIC_RUN_ID") == "test-job");
  CHECK(value_of(env, "TORCHELASTIC_USE_AGENT_STORE") == "False");
  CHECK(value_of(env, "TORCHELASTIC_ERROR_FILE") == ctx.error_file);
  CHECK(value_of(env, "TORCH_NCCL_ASYNC_ERROR_HANDLING") == "1");
  CHECK(value_of(env, "NCCL_ASYNC_ERROR_HANDLING") == "1");
  CHECK(has(env, "MASTER_ADDR"));
  CHECK(has(env, "MASTER_PORT"));
  // Not torchrun's: a script that reads them must see what it sees under torchrun.
  for (const char* name : {"NODE_RANK", "NNODES", "NPROC_PER_NODE", "PET_NNODES"}) {
    INFO(name);
    CHECK_FALSE(has(env, name));
  }
  // Every other variable is pai's own.
  const std::set<std::string> torchrun = {
      "RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK", "GROUP_WORLD_SIZE",
      "ROLE_NAME", "ROLE_RANK", "ROLE_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT",
      "TORCHELASTIC_RESTART_COUNT", "TORCHELASTIC_MAX_RESTARTS", "TORCHELASTIC_RUN_ID",
      "TORCHELASTIC_USE_AGENT_STORE", "TORCHELASTIC_ERROR_FILE", "TORCH_NCCL_ASYNC_ERROR_HANDLING",
      "NCCL_ASYNC_ERROR_HANDLING",
      // The role's own env and the fabric preset of make_test_plan().
      "PYTHONUNBUFFERED", "NCCL_IB_TC", "NCCL_IB_GID_INDEX", "NCCL_CROSS_NIC", "NCCL_SOCKET_IFNAME",
      "GLOO_SOCKET_IFNAME", "NCCL_IB_HCA"};
  for (const auto& [name, value] : env) {
    INFO(name);
    CHECK((torchrun.count(name) == 1 || name.rfind("PAI_", 0) == 0));
  }
}

TEST_CASE("torchrun's names are reserved in a job with a torchrun role only") {
  pai::Plan plan = pai::testing::make_test_plan(1, 2);
  for (const char* name : {"TORCHELASTIC_RUN_ID", "TORCHELASTIC_MAX_RESTARTS", "GROUP_WORLD_SIZE",
                           "TORCHELASTIC_ERROR_FILE", "TORCHELASTIC_USE_AGENT_STORE"}) {
    INFO(name);
    CHECK_FALSE(pai::is_reserved_env_name(name, plan));
  }
  plan.roles[1].env_convention = pai::EnvConvention::Torchrun;
  for (const char* name : {"TORCHELASTIC_RUN_ID", "TORCHELASTIC_MAX_RESTARTS", "GROUP_WORLD_SIZE",
                           "TORCHELASTIC_ERROR_FILE", "TORCHELASTIC_USE_AGENT_STORE"}) {
    INFO(name);
    CHECK(pai::is_reserved_env_name(name, plan));
  }
  CHECK(pai::is_reserved_env_name("RANK", plan));
  CHECK_FALSE(pai::is_reserved_env_name("TORCHELASTIC_TIMER_FILE", plan));
}

TEST_CASE("masterStore launcher tells every role's ranks to use the agent store - once") {
  pai::Plan plan = pai::testing::make_test_plan(1, 2);
  plan.master_store = pai::MasterStore::Launcher;
  plan.roles[1].env_convention = pai::EnvConvention::Torchrun;
  for (const pai::Placement& p : plan.placements) {
    const EnvList env = pai::process_env(plan, p, 0, context());
    INFO(p.role);
    CHECK(value_of(env, "TORCHELASTIC_USE_AGENT_STORE") == "True");
    CHECK(std::count_if(env.begin(), env.end(), [](const auto& kv) {
            return kv.first == "TORCHELASTIC_USE_AGENT_STORE";
          }) == 1);
    CHECK(has(env, "TORCHELASTIC_RESTART_COUNT"));
  }
  // The user's env may not say otherwise, in any role.
  plan.roles[1].env_convention = pai::EnvConvention::PerProcess;
  CHECK(pai::is_reserved_env_name("TORCHELASTIC_USE_AGENT_STORE", plan));
  plan.master_store = pai::MasterStore::Rank0;
  CHECK_FALSE(pai::is_reserved_env_name("TORCHELASTIC_USE_AGENT_STORE", plan));
  CHECK_FALSE(has(pai::process_env(plan, plan.placements[0], 0, context()),
                  "TORCHELASTIC_USE_AGENT_STORE"));
}

TEST_CASE("envConvention torchrun leaves NCCL's error handling to a role's env that sets it") {
  pai::Plan plan = pai::testing::make_test_plan(1, 2);
  plan.roles[0].env_convention = pai::EnvConvention::Torchrun;
  plan.roles[0].env = {{"TORCH_NCCL_ASYNC_ERROR_HANDLING", "0"}};
  const EnvList env = pai::process_env(plan, at(plan, "worker", 0), 0, {});
  CHECK(value_of(env, "TORCH_NCCL_ASYNC_ERROR_HANDLING") == "0");
  CHECK(value_of(env, "NCCL_ASYNC_ERROR_HANDLING") == "1");
  // The error file is a torchrun role's alone.
  plan.roles[0].env_convention = pai::EnvConvention::PerProcess;
  pai::ProcessContext ctx;
  ctx.error_file = "/logs/e.json";
  CHECK_FALSE(
      has(pai::process_env(plan, at(plan, "worker", 0), 0, ctx), "TORCHELASTIC_ERROR_FILE"));
}

TEST_CASE("env of 10000 instances x 8 ranks is computed") {
  pai::Plan plan = pai::testing::make_test_plan(10000, 8);
  EnvList job = pai::job_env(plan);
  std::size_t total = job.size();
  for (const pai::Placement& p : plan.placements) {
    total += pai::instance_env(plan, p, pai::ProcessContext{}).size();
    for (int local = 0; local < 8; ++local) total += pai::rank_env(plan, p, local).size();
  }
  CHECK(total > 10000 * 40);
  // Speed is bench/compile's business (design §10), never a timed test.
}

}  // namespace env_contract_test
