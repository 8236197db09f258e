// A small, fully placed Plan for tests of anything that consumes plans.
#pragma once

#include <string>

#include "libpai/placement.h"
#include "libpai/plan.h"

namespace pai::testing {

/// A placed plan named "test-job" (framework pytorch, RoCE fabric on eth0 with HCAs
/// mlx5_0,mlx5_1, output /runs/test-job) with two roles in rank order:
///   * "worker" (the master role): `workers` instances, `nproc_per_node` processes each,
///     env convention perProcess when nproc_per_node > 1 else perNode, 8 GPUs,
///     ports {sync: 1}, env {PYTHONUNBUFFERED: "1"}, command `python train.py`;
///   * "ps": 1 instance, 1 process, perNode, ports {grpc: 2}, command `sh -c 'run-ps'`.
/// Hosts node-0..node-N (N = workers, one per instance) at 10.0.0.1.. with 8 slots,
/// plus one spare "spare-0" at 10.0.1.1. Every optional section (mounts, fault tolerance,
/// sanity checks with one custom check) holds a non-default value, so a JSON round trip
/// exercises every field. Ports come from 20000-29999 as place() assigns them, per host:
/// node-0 has the coordinator 20000, MASTER_PORT 20001 and worker 0's sync port 20002;
/// every other worker's sync port is 20000; ps's grpc ports are 20000 and 20001.
/// Placements: worker 0..workers-1 are node ranks 0..workers-1, ps is the last.
inline Plan make_test_plan(int workers = 2, int nproc_per_node = 2) {
  Plan plan;
  plan.compiler = "pai-compile test";
  plan.name = "test-job";
  plan.image = "registry.local/pytorch:2.3";
  plan.runtime = Runtime::Host;
  plan.framework = Framework::PyTorch;
  plan.fabric = Fabric{FabricType::Roce, "eth0", {"mlx5_0", "mlx5_1"}, 3, 106};
  plan.mounts = {Mount{"data", "/mnt/nas/data", "/data", true}};
  plan.output = "/runs/test-job";

  Role worker;
  worker.name = "worker";
  worker.instances = workers;
  worker.nproc_per_node = nproc_per_node;
  worker.env_convention = nproc_per_node > 1 ? EnvConvention::PerProcess : EnvConvention::PerNode;
  worker.resources = Resources{8, 96, 1600ll << 30, 64ll << 30};
  worker.command = {"python", "train.py"};
  worker.launch_argv = worker.command;
  worker.working_dir = "/work";
  worker.env = {{"PYTHONUNBUFFERED", "1"}};
  worker.ports = {PortRequest{"sync", 1}};
  worker.completion = Completion{-1, 1};

  Role ps;
  ps.name = "ps";
  ps.instances = 1;
  ps.nproc_per_node = 1;
  ps.env_convention = EnvConvention::PerNode;
  ps.resources = Resources{0, 4, 8ll << 30, 0};
  ps.command = {"/bin/sh", "-c", "run-ps"};
  ps.launch_argv = ps.command;
  ps.ports = {PortRequest{"grpc", 2}};
  ps.completion = Completion{1, -1};

  plan.roles = {worker, ps};
  plan.master_role = "worker";
  for (int i = 0; i <= workers; ++i) {
    plan.hosts.push_back(Host{"node-" + std::to_string(i), "10.0.0." + std::to_string(i + 1), 8});
  }
  plan.spares = {Host{"spare-0", "10.0.1.1", 8}};

  plan.fault_tolerance.mode = FaultToleranceMode::Sync;
  plan.fault_tolerance.max_restarts = 5;
  plan.fault_tolerance.retryable_errors = {"connect timeout"};
  plan.fault_tolerance.max_tolerated_failure_rate = 0.25;
  plan.fault_tolerance.hang.dump_command = "py-spy dump --pid {pid}";
  plan.sanity_check.checks = {"gpu", "burn", "nccl", "network", "mounts", "disk"};
  plan.sanity_check.burn_min_tflops = 100.5;
  plan.sanity_check.nccl_min_bus_bandwidth_gbps = 40;
  plan.sanity_check.custom = {CustomCheck{"ib-links", "./check_ib.sh", 60}};

  place(plan, plan.hosts);
  return plan;
}

}  // namespace pai::testing
