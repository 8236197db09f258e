#include "libpai/framework_env.h"

#include <catch2/catch.hpp>

#include "libpai/env_contract.h"
#include "libpai/placement.h"
#include "support/plan_fixture.h"

namespace framework_env_test {

namespace {

std::string value_of(const pai::EnvList& env, const std::string& name) {
  for (const auto& [n, v] : env) {
    if (n == name) return v;
  }
  return "<unset>";
}

// make_test_plan() as framework `framework`, with `label` (if any) on the worker role.
pai::Plan plan_of(pai::Framework framework, const std::string& label = "") {
  pai::Plan plan = pai::testing::make_test_plan(2, 4);
  plan.framework = framework;
  if (!label.empty()) plan.roles[0].ports.push_back(pai::PortRequest{label, 1});
  pai::place(plan, plan.hosts);
  return plan;
}

const pai::Placement& worker(const pai::Plan& plan, int index) {
  const pai::Placement* p = pai::find_placement(plan, "worker", index);
  REQUIRE(p != nullptr);
  return *p;
}

}  // namespace

TEST_CASE("jax: the coordinator, the process count and id, each process's share of the GPUs") {
  const pai::Plan plan = plan_of(pai::Framework::Jax);
  const pai::EnvList job = pai::framework_job_env(plan);
  CHECK(job ==
        pai::EnvList{{"JAX_COORDINATOR_ADDRESS", "10.0.0.1:20001"}, {"JAX_NUM_PROCESSES", "9"}});
  // Worker 1, local rank 2: global rank 4 + 2; 8 GPUs shared by 4 processes, 2 each.
  CHECK(pai::framework_rank_env(plan, worker(plan, 1), 2) ==
        pai::EnvList{{"JAX_PROCESS_ID", "6"}, {"JAX_LOCAL_DEVICE_IDS", "4,5"}});
  // In the whole contract, after the rank's own variables.
  const pai::EnvList env = pai::process_env(plan, worker(plan, 0), 3, {});
  CHECK(value_of(env, "JAX_PROCESS_ID") == "3");
  CHECK(value_of(env, "JAX_COORDINATOR_ADDRESS") ==
        value_of(env, "MASTER_ADDR") + ":" + value_of(env, "MASTER_PORT"));
}

TEST_CASE("jax: one process per instance sees every GPU") {
  pai::Plan plan = pai::testing::make_test_plan(2, 1);
  plan.framework = pai::Framework::Jax;
  pai::place(plan, plan.hosts);
  CHECK(pai::framework_rank_env(plan, worker(plan, 1), 0) == pai::EnvList{{"JAX_PROCESS_ID", "1"}});
}

TEST_CASE("xgboost: the Rabit tracker on the first instance's tracker port, a task per rank") {
  const pai::Plan plan = plan_of(pai::Framework::XGBoost, "tracker");
  const int tracker = worker(plan, 0).ports.at("tracker").front();
  CHECK(pai::framework_job_env(plan) == pai::EnvList{{"DMLC_TRACKER_URI", "10.0.0.1"},
                                                     {"DMLC_TRACKER_PORT", std::to_string(tracker)},
                                                     {"DMLC_NUM_WORKER", "9"}});
  CHECK(pai::framework_rank_env(plan, worker(plan, 1), 3) == pai::EnvList{{"DMLC_TASK_ID", "7"}});
}

TEST_CASE("ray: RAY_ADDRESS is the head's address and ray port") {
  const pai::Plan plan = plan_of(pai::Framework::Ray, "ray");
  const int port = worker(plan, 0).ports.at("ray").front();
  CHECK(pai::framework_job_env(plan) ==
        pai::EnvList{{"RAY_ADDRESS", "10.0.0.1:" + std::to_string(port)}});
  CHECK(pai::framework_rank_env(plan, worker(plan, 0), 0).empty());
}

TEST_CASE("megatron: CUDA and NCCL presets a role's env overrides, and the parallel sizes") {
  pai::Plan plan = pai::testing::make_test_plan(2, 4);
  plan.framework = pai::Framework::Megatron;
  plan.megatron = pai::Megatron{2, 2, 1};
  plan.roles[0].env.emplace_back("CUDA_DEVICE_MAX_CONNECTIONS", "8");
  pai::place(plan, plan.hosts);
  CHECK(pai::framework_job_env(plan) == pai::EnvList{{"CUDA_DEVICE_MAX_CONNECTIONS", "1"},
                                                     {"TORCH_NCCL_AVOID_RECORD_STREAMS", "1"},
                                                     {"PAI_TENSOR_PARALLEL_SIZE", "2"},
                                                     {"PAI_PIPELINE_PARALLEL_SIZE", "2"},
                                                     {"PAI_CONTEXT_PARALLEL_SIZE", "1"},
                                                     {"PAI_DATA_PARALLEL_SIZE", "2"}});
  const pai::EnvList env = pai::process_env(plan, worker(plan, 0), 0, {});
  CHECK(value_of(env, "CUDA_DEVICE_MAX_CONNECTIONS") == "8");
  CHECK(value_of(env, "TORCH_NCCL_AVOID_RECORD_STREAMS") == "1");
}

TEST_CASE("the frameworks' own variables are reserved under their framework only") {
  CHECK(pai::is_framework_env_name(pai::Framework::Jax, "JAX_PROCESS_ID"));
  CHECK(pai::is_framework_env_name(pai::Framework::XGBoost, "DMLC_TASK_ID"));
  CHECK(pai::is_framework_env_name(pai::Framework::Ray, "RAY_ADDRESS"));
  CHECK(pai::is_framework_env_name(pai::Framework::Megatron, "PAI_TENSOR_PARALLEL_SIZE"));
  // Presets may be overridden; another framework's names are free.
  CHECK_FALSE(pai::is_framework_env_name(pai::Framework::Megatron, "CUDA_DEVICE_MAX_CONNECTIONS"));
  CHECK_FALSE(pai::is_framework_env_name(pai::Framework::PyTorch, "RAY_ADDRESS"));
  CHECK_FALSE(pai::is_framework_env_name(pai::Framework::Custom, "JAX_PROCESS_ID"));
  pai::Plan plan = pai::testing::make_test_plan();
  plan.framework = pai::Framework::Ray;
  CHECK(pai::is_reserved_env_name("RAY_ADDRESS", plan));
  CHECK(pai::is_reserved_env_name("RANK", plan));
  plan.framework = pai::Framework::PyTorch;
  CHECK_FALSE(pai::is_reserved_env_name("RAY_ADDRESS", plan));
}

TEST_CASE("the frameworks' port labels") {
  CHECK(std::string(pai::framework_port_label(pai::Framework::Ray)) == "ray");
  CHECK(std::string(pai::framework_port_label(pai::Framework::XGBoost)) == "tracker");
  CHECK(std::string(pai::framework_port_label(pai::Framework::Jax)).empty());
}

}  // namespace framework_env_test
