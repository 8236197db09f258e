#include "compiler/plan/runtime_wrap.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>

#include "support/plan_fixture.h"

namespace runtime_wrap_test {

using Argv = std::vector<std::string>;

namespace {

bool contains(const Argv& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// The -e NAME pairs docker_argv() puts between `prefix` and `suffix`.
Argv env_flags(const pai::Plan& plan, const pai::Role& role) {
  Argv flags;
  for (const std::string& name : pai::role_env_names(plan, role)) {
    flags.push_back("-e");
    flags.push_back(name);
  }
  return flags;
}

Argv concat(Argv a, const Argv& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace

TEST_CASE("runtime host runs the command as is") {
  const pai::Plan plan = pai::testing::make_test_plan();
  CHECK(pai::wrap_command(plan, plan.roles[0]) == Argv{"python", "train.py"});
  CHECK(pai::wrap_command(plan, plan.roles[1]) == Argv{"/bin/sh", "-c", "run-ps"});
}

TEST_CASE("role_env_names lists the contract names the role's processes receive") {
  const pai::Plan plan = pai::testing::make_test_plan();
  const Argv names = pai::role_env_names(plan, plan.roles[0]);
  for (const char* name :
       {"MASTER_ADDR", "MASTER_PORT", "RANK", "LOCAL_RANK", "WORLD_SIZE", "PAI_JOB_NAME",
        "PAI_CONTROL_SOCKET", "PAI_TELEMETRY_FILE", "PAI_RESTART_COUNT", "NCCL_IB_HCA",
        "PYTHONUNBUFFERED", "PAI_CURRENT_TASK_ROLE_NAME"}) {
    INFO(name);
    CHECK(contains(names, name));
  }
  CHECK(std::set<std::string>(names.begin(), names.end()).size() == names.size());
  CHECK_FALSE(contains(pai::role_env_names(plan, plan.roles[1]), "PYTHONUNBUFFERED"));
}

TEST_CASE("role_env_names of an MPI job names the hostfile and rsh agent variables") {
  pai::Plan plan = pai::testing::make_test_plan();
  plan.framework = pai::Framework::Mpi;
  const Argv names = pai::role_env_names(plan, plan.roles[0]);
  CHECK(contains(names, "OMPI_MCA_orte_default_hostfile"));
  CHECK(contains(names, "OMPI_MCA_plm_rsh_agent"));
}

TEST_CASE("role_env_names works before placement") {
  pai::Plan plan = pai::testing::make_test_plan();
  plan.placements.clear();
  const Argv names = pai::role_env_names(plan, plan.roles[0]);
  CHECK(contains(names, "RANK"));
  CHECK(contains(names, "PAI_CURRENT_TASK_ROLE_NAME"));
}

TEST_CASE("docker wraps with resources - mounts - output - workdir - env names and run dir") {
  pai::Plan plan = pai::testing::make_test_plan();
  plan.runtime = pai::Runtime::Docker;
  const pai::Role& worker = plan.roles[0];
  const Argv prefix = {"docker",
                       "run",
                       "--rm",
                       "--init",
                       "--network=host",
                       "--ipc=host",
                       "--gpus",
                       "all",
                       "--shm-size=68719476736",
                       "--memory=1717986918400",
                       "--cpus=96",
                       "-v",
                       "/mnt/nas/data:/data:ro",
                       "-v",
                       "/runs/test-job:/runs/test-job",
                       "-w",
                       "/work"};
  const Argv suffix = {"-v", "/tmp/pai:/tmp/pai", "registry.local/pytorch:2.3", "python",
                       "train.py"};
  const Argv env = env_flags(plan, worker);
  CHECK(env.size() > 20);
  CHECK(pai::wrap_command(plan, worker) == concat(concat(prefix, env), suffix));
}

TEST_CASE("docker leaves out what is not set") {
  pai::Plan plan = pai::testing::make_test_plan();
  plan.runtime = pai::Runtime::Docker;
  plan.mounts.clear();
  plan.output.clear();
  pai::Role& ps = plan.roles[1];
  ps.resources = pai::Resources{0, 0.5, 0, 0};
  const Argv prefix = {"docker",         "run",        "--rm",      "--init",
                       "--network=host", "--ipc=host", "--cpus=0.5"};
  const Argv suffix = {"-v",    "/tmp/pai:/tmp/pai", "registry.local/pytorch:2.3", "/bin/sh", "-c",
                       "run-ps"};
  CHECK(pai::wrap_command(plan, ps) == concat(concat(prefix, env_flags(plan, ps)), suffix));
}

TEST_CASE("apptainer wraps with --nv - binds and --pwd") {
  pai::Plan plan = pai::testing::make_test_plan();
  plan.runtime = pai::Runtime::Apptainer;
  CHECK(pai::wrap_command(plan, plan.roles[0]) ==
        Argv{"apptainer", "exec", "--nv", "--bind", "/mnt/nas/data:/data:ro", "--bind",
             "/runs/test-job", "--bind", "/tmp/pai", "--pwd", "/work", "registry.local/pytorch:2.3",
             "python", "train.py"});
}

TEST_CASE("apptainer without GPUs - mounts - output or workdir") {
  pai::Plan plan = pai::testing::make_test_plan();
  plan.runtime = pai::Runtime::Apptainer;
  plan.mounts.clear();
  plan.output.clear();
  CHECK(pai::wrap_command(plan, plan.roles[1]) == Argv{"apptainer", "exec", "--bind", "/tmp/pai",
                                                       "registry.local/pytorch:2.3", "/bin/sh",
                                                       "-c", "run-ps"});
}

}  // namespace runtime_wrap_test
