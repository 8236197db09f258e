#include "compiler/torchrun/torchrun_spec.h"

#include <catch2/catch.hpp>

#include "libpai/env_contract.h"

namespace torchrun_spec_test {

using namespace pai;

namespace {

TorchrunFacts facts(int gpus = 0) {
  TorchrunFacts f;
  f.gpus = gpus;
  f.cpus = 16;
  f.free_port = [] { return 41000; };
  f.new_run_id = [] { return std::string("1b4e28ba-2fa1-41d2-883f-0016d3cca427"); };
  return f;
}

TorchrunJob job_of(const std::vector<std::string>& argv, int gpus = 0) {
  return torchrun_job(parse_torchrun_args(argv, {}), facts(gpus));
}

Plan plan_of(const TorchrunJob& job) {
  Diagnostics diags;
  Plan plan = torchrun_plan(job, diags);
  for (const Diagnostic& d : diags.all()) UNSCOPED_INFO(d.path + ": " + d.message);
  REQUIRE_FALSE(diags.has_errors());
  return plan;
}

std::string error_of(const std::vector<std::string>& argv, int gpus = 0) {
  try {
    job_of(argv, gpus);
  } catch (const TorchrunError& e) {
    return e.what();
  }
  FAIL("no error for that command line");
  return "";
}

std::string value_of(const EnvList& env, const std::string& name) {
  for (const auto& [n, v] : env) {
    if (n == name) return v;
  }
  return "<unset>";
}

}  // namespace

TEST_CASE("two c10d nodes: node-0 on the endpoint, MASTER_PORT the next port, torchrun's env") {
  const TorchrunJob job = job_of({"--nnodes", "2", "--nproc-per-node", "4", "--rdzv-backend",
                                  "c10d", "--rdzv-endpoint", "10.0.0.1:29400", "--rdzv-id", "job42",
                                  "--max-restarts", "3", "train.py", "--epochs", "2"});
  CHECK(job.name == "job42");
  CHECK(job.endpoint_host == "10.0.0.1");
  CHECK(job.endpoint_port == 29400);
  CHECK(job.multi_node);
  CHECK_FALSE(job.node_rank.has_value());  // c10d without --node-rank: claimed at the rendezvous
  CHECK(job.command == std::vector<std::string>{"python3", "-u", "train.py", "--epochs", "2"});
  const Plan plan = plan_of(job);
  CHECK(plan.framework == Framework::PyTorch);
  CHECK(plan.nodes == 2);
  CHECK(plan.world_size == 8);
  CHECK(plan.coordinator.address == "10.0.0.1");
  CHECK(plan.coordinator.port == 29400);
  CHECK(plan.master.port == 29401);
  CHECK(plan.fault_tolerance.max_restarts == 3);
  CHECK(plan.fault_tolerance.backoff_seconds == 0);
  CHECK(plan.fault_tolerance.policy == RestartPolicy::OnFailure);
  CHECK(plan.fault_tolerance.mode == FaultToleranceMode::Sync);
  CHECK(plan.sanity_check.checks == std::vector<std::string>{"gpu", "network"});
  REQUIRE(plan.roles.size() == 1);
  CHECK(plan.roles[0].name == "default");
  CHECK(plan.roles[0].env_convention == EnvConvention::Torchrun);
  CHECK(plan.roles[0].launch_argv == job.command);
  const EnvList env = process_env(plan, plan.placements[1], 1, {});
  CHECK(value_of(env, "RANK") == "5");
  CHECK(value_of(env, "GROUP_RANK") == "1");
  CHECK(value_of(env, "MASTER_ADDR") == "10.0.0.1");
  CHECK(value_of(env, "MASTER_PORT") == "29401");
  CHECK(value_of(env, "TORCHELASTIC_RUN_ID") == "job42");
  CHECK(value_of(env, "TORCHELASTIC_MAX_RESTARTS") == "3");
  CHECK(value_of(env, "ROLE_NAME") == "default");
}

TEST_CASE("one node: MASTER_PORT is the endpoint's port, as torchrun's static rendezvous") {
  const TorchrunJob job = job_of({"--nproc-per-node=2", "t.py"});
  CHECK_FALSE(job.multi_node);
  CHECK(job.node_rank == 0);
  const Plan plan = plan_of(job);
  CHECK(plan.master.address == "127.0.0.1");
  CHECK(plan.master.port == 29500);
  CHECK(plan.name == "none");
  // With metrics the coordinator serves them on the endpoint: MASTER_PORT moves on.
  CHECK(plan_of(job_of({"--pai-metrics-port", "9400", "t.py"})).master.port == 29501);
  CHECK(plan_of(job_of({"--pai-metrics-port", "9400", "t.py"})).monitoring.metrics_linger_seconds ==
        30);
  CHECK(plan_of(job_of({"--pai-metrics-port", "9400", "--pai-metrics-linger", "5", "t.py"}))
            .monitoring.metrics_linger_seconds == 5);
}

TEST_CASE(
    "standalone: a free port that is the metrics port's or holds it in its range is not taken") {
  TorchrunFacts f = facts();
  std::vector<int> ports = {41000, 40950, 43000};
  f.free_port = [&] {
    const int p = ports.front();
    ports.erase(ports.begin());
    return p;
  };
  const TorchrunJob job = torchrun_job(
      parse_torchrun_args({"--standalone", "--pai-metrics-port", "41000", "t.py"}, {}), f);
  CHECK(job.endpoint_port == 43000);  // 41000 is the metrics', 40950..41050 holds it
  // Without a metrics port the first free port is taken.
  TorchrunFacts g = facts();
  CHECK(torchrun_job(parse_torchrun_args({"--standalone", "t.py"}, {}), g).endpoint_port == 41000);
}

TEST_CASE("standalone: a free port and a new run id - the extra nodes of N:M are spares") {
  const Plan standalone = plan_of(job_of({"--standalone", "--nproc-per-node", "gpu", "t.py"}, 4));
  CHECK(standalone.name == "1b4e28ba-2fa1-41d2-883f-0016d3cca427");
  CHECK(standalone.master.address == "localhost");
  CHECK(standalone.master.port == 41000);
  CHECK(standalone.roles[0].nproc_per_node == 4);
  CHECK(standalone.roles[0].resources.gpu == 4);
  const Plan elastic = plan_of(
      job_of({"--nnodes", "2:3", "--rdzv-backend", "c10d", "--rdzv-endpoint", "h0", "t.py"}));
  CHECK(elastic.nodes == 2);
  REQUIRE(elastic.spares.size() == 1);
  CHECK(elastic.spares[0].name == "spare-0");
  CHECK(elastic.coordinator.port == 29400);
}

TEST_CASE("nproc-per-node gpu, cpu and auto count what torchrun counts") {
  CHECK(job_of({"--nproc-per-node", "cpu", "t.py"}).nproc_per_node == 16);
  CHECK(job_of({"--nproc-per-node", "auto", "t.py"}).nproc_per_node == 16);
  CHECK(job_of({"--nproc-per-node", "auto", "t.py"}, 8).nproc_per_node == 8);
  CHECK(error_of({"--nproc-per-node", "gpu", "t.py"}) ==
        "--nproc-per-node: gpu: no CUDA GPU is visible here (CUDA_VISIBLE_DEVICES, "
        "/proc/driver/nvidia/gpus)");
  // More processes than GPUs: they share them, pai claims none.
  CHECK(plan_of(job_of({"--nproc-per-node", "16", "t.py"}, 8)).roles[0].resources.gpu == 0);
}

TEST_CASE("the script as torchrun runs it: -m, --no-python, PYTHON_EXEC") {
  CHECK(job_of({"-m", "pkg.train", "a"}).command ==
        std::vector<std::string>{"python3", "-u", "-m", "pkg.train", "a"});
  CHECK(job_of({"--no-python", "./run.sh", "a"}).command ==
        std::vector<std::string>{"./run.sh", "a"});
  TorchrunFacts f = facts();
  f.python = "/opt/venv/bin/python";
  CHECK(torchrun_job(parse_torchrun_args({"t.py"}, {}), f).command ==
        std::vector<std::string>{"/opt/venv/bin/python", "-u", "t.py"});
}

TEST_CASE("the rendezvous settings pai takes, and what it cannot run") {
  const TorchrunJob job =
      job_of({"--nnodes", "2", "--rdzv-backend", "c10d", "--rdzv-endpoint", "[::1]:29600",
              "--rdzv-conf", "join_timeout=90,is_host=1,token_file=/t,read_timeout=60", "t.py"});
  CHECK(job.endpoint_host == "::1");
  CHECK(job.endpoint_port == 29600);
  CHECK(job.join_timeout == std::chrono::seconds(90));
  CHECK(job.is_host == true);
  CHECK(job.token_file == "/t");
  CHECK(error_of({"--rdzv-backend", "etcd", "--rdzv-endpoint", "e:2379", "t.py"})
            .rfind("--rdzv-backend: \"etcd\" is not supported", 0) == 0);
  CHECK(error_of({"--nnodes", "2", "--rdzv-backend", "c10d", "t.py"})
            .rfind("--rdzv-endpoint: is required with --rdzv-backend c10d", 0) == 0);
  CHECK(error_of({"--nnodes", "2", "--standalone", "t.py"})
            .rfind("--standalone: runs one node, but --nnodes asks for 2", 0) == 0);
  CHECK(error_of({"--nnodes", "1:2", "t.py"})
            .rfind("--nnodes: MIN:MAX needs --rdzv-backend c10d", 0) == 0);
  CHECK(error_of({"--nnodes", "2", "--node-rank", "2", "t.py"}) ==
        "--node-rank: 2 is not below --nnodes 2");
  CHECK(error_of({"--rdzv-conf", "store=x", "t.py"})
            .rfind("--rdzv-conf: store is not supported", 0) == 0);
  CHECK(error_of({"--rdzv-conf", "is_host=maybe", "t.py"}) ==
        "--rdzv-conf: is_host: expected true or false, got \"maybe\"");
  CHECK(error_of({"--master-port", "80", "t.py"}).rfind("--rdzv-endpoint: port 80 is outside", 0) ==
        0);
}

TEST_CASE("a run id that is no DNS label names the job after it, said in a note") {
  const TorchrunJob job = job_of({"--rdzv-id", "My_Job.7", "t.py"});
  CHECK(job.name == "my-job-7");
  CHECK(job.notes == std::vector<std::string>{"--rdzv-id My_Job.7 is not a DNS label: the job is "
                                              "named my-job-7 (TORCHELASTIC_RUN_ID=my-job-7)"});
}

TEST_CASE("what the spec rejects is located at the flag it came from") {
  Diagnostics diags;
  torchrun_plan(job_of({"--role", "my role", "--pai-checks", "gpu,warp", "t.py"}), diags);
  REQUIRE(diags.has_errors());
  std::vector<std::string> lines;
  for (const Diagnostic& d : diags.all()) lines.push_back(d.loc.file + ": " + d.path);
  CHECK(std::find(lines.begin(), lines.end(), "--role: roles") != lines.end());
  CHECK(std::find(lines.begin(), lines.end(), "--pai-checks: sanityCheck.checks[1]") !=
        lines.end());
}

TEST_CASE("pai's --pai-master-store launcher: the launcher serves the ranks' store") {
  Diagnostics diags;
  const Plan plan = torchrun_plan(
      job_of({"--nproc-per-node", "2", "--pai-master-store", "launcher", "t.py"}), diags);
  REQUIRE_FALSE(diags.has_errors());
  CHECK(plan.master_store == pai::MasterStore::Launcher);
  Diagnostics defaults;
  CHECK(torchrun_plan(job_of({"t.py"}), defaults).master_store == pai::MasterStore::Rank0);
}

TEST_CASE("pai's --pai-warm-start: the role starts warm with the modules preloaded") {
  Diagnostics diags;
  const Plan plan =
      torchrun_plan(job_of({"--pai-warm-start", "torch,numpy", "-m", "pkg.train"}), diags);
  REQUIRE_FALSE(diags.has_errors());
  CHECK(plan.fault_tolerance.warm_start.roles == std::vector<std::string>{"default"});
  CHECK(plan.fault_tolerance.warm_start.preload == std::vector<std::string>{"torch", "numpy"});
  // --no-python runs the script itself: nothing to fork warm, said at the flag.
  Diagnostics refused;
  torchrun_plan(job_of({"--pai-warm-start", "torch", "--no-python", "./run.sh"}), refused);
  REQUIRE(refused.has_errors());
  CHECK(refused.all()[0].loc.file == "--pai-warm-start");
  CHECK(refused.all()[0].message.find("cannot start warm") != std::string::npos);
}

TEST_CASE("print-spec: the spec as YAML, which names where it came from") {
  const TorchrunJob job = job_of({"--nnodes", "2", "--rdzv-backend", "c10d", "--rdzv-endpoint",
                                  "10.0.0.1:29400", "--nproc-per-node", "2", "t.py"});
  const std::string yaml = torchrun_spec_yaml(job, "torchrun --nnodes 2 t.py");
  CHECK(yaml ==
        "# The job of: torchrun --nnodes 2 t.py\n"
        "# Written by pai-launch torchrun --print-spec (docs/torchrun.md).\n"
        "# node-1 and on (and the spares) are torchrun's other nodes, whose addresses the\n"
        "# coordinator learns when they join: for pai-compile, give each its real address.\n"
        "apiVersion: pai/v1\n"
        "kind: Job\n"
        "name: none\n"
        "framework: pytorch\n"
        "hosts:\n"
        "  - name: node-0\n"
        "    address: \"10.0.0.1\"\n"
        "  - name: node-1\n"
        "    address: node-1\n"
        "coordinator:\n"
        "  host: node-0\n"
        "  port: 29400\n"
        "portRange:\n"
        "  min: 29401\n"
        "  max: 29500\n"
        "roles:\n"
        "  default:\n"
        "    instances: 2\n"
        "    nprocPerNode: 2\n"
        "    envConvention: torchrun\n"
        "    command:\n"
        "      - python3\n"
        "      - \"-u\"\n"
        "      - t.py\n"
        "faultTolerance:\n"
        "  mode: sync\n"
        "  policy: onFailure\n"
        "  restart:\n"
        "    maxRestarts: 0\n"
        "    backoff: 0\n"
        "sanityCheck:\n"
        "  checks:\n"
        "    - gpu\n"
        "    - network\n");
}

}  // namespace torchrun_spec_test
