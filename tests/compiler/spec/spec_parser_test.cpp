#include "compiler/spec/spec_parser.h"

#include <catch2/catch.hpp>

#include "compiler/document/yaml_loader.h"
#include "compiler/spec/port_range.h"

namespace spec_parser_test {

using namespace pai;

namespace {

struct Parsed {
  Diagnostics diags;
  JobSpec spec;

  std::vector<std::string> messages() const {
    std::vector<std::string> out;
    for (const Diagnostic& d : diags.all()) {
      out.push_back((d.path.empty() ? "" : d.path + ": ") + d.message);
    }
    return out;
  }
};

std::unique_ptr<Parsed> parse(const std::string& yaml) {
  auto p = std::make_unique<Parsed>();
  p->spec = parse_spec(load_yaml("job.yaml", yaml), p->diags);
  return p;
}

const std::string kMinimal =
    "apiVersion: pai/v1\n"
    "kind: Job\n"
    "name: tiny\n"
    "hosts: [node-1]\n"
    "roles:\n"
    "  worker:\n"
    "    command: echo hi\n";

}  // namespace

TEST_CASE("a minimal spec gets every default") {
  const auto p = parse(kMinimal);
  CHECK(p->messages().empty());
  const Plan& job = p->spec.job;
  CHECK(job.name == "tiny");
  CHECK(job.runtime == Runtime::Host);
  CHECK(job.framework == Framework::Custom);
  CHECK(job.fabric.type == FabricType::None);
  CHECK(job.port_range_min == default_port_range_min("tiny"));  // 20000 + 8k, by the name
  CHECK(job.port_range_max == 29999);
  REQUIRE(job.hosts.size() == 1);
  CHECK(job.hosts[0].name == "node-1");
  CHECK(job.hosts[0].address == "node-1");
  CHECK(job.hosts[0].slots == 0);
  REQUIRE(job.roles.size() == 1);
  const Role& w = job.roles[0];
  CHECK(w.name == "worker");
  CHECK(w.instances == 1);
  CHECK(w.nproc_per_node == 1);
  CHECK(w.env_convention == EnvConvention::PerNode);
  CHECK(w.command == std::vector<std::string>{"/bin/sh", "-c", "echo hi"});
  CHECK(w.launch_argv.empty());
  CHECK(w.completion.min_succeeded == -1);
  CHECK(w.completion.min_failed == 1);
  CHECK(job.master_role == "worker");
  const FaultTolerance& ft = job.fault_tolerance;
  CHECK(ft.mode == FaultToleranceMode::Sync);
  CHECK(ft.restart_enabled);
  CHECK(ft.max_restarts == 3);
  CHECK(ft.backoff_seconds == 10);
  CHECK(ft.policy == RestartPolicy::ExitCodeAndErrorMsg);
  CHECK(ft.max_same_error == 10);
  CHECK(ft.max_tolerated_failure_rate == -1);
  CHECK(ft.hang.enabled);
  CHECK(ft.hang.interval_seconds == 1800);
  CHECK(ft.hang.exit_interval_seconds == 600);
  CHECK(ft.grace_period_seconds == 30);
  const SanityCheck& sc = job.sanity_check;
  CHECK(sc.enabled);
  CHECK(sc.checks == std::vector<std::string>{"gpu", "burn", "nccl", "network", "mounts", "disk"});
  CHECK(sc.burn_seconds == 20);
  CHECK(sc.nccl_bytes == (256ll << 20));
  CHECK(sc.timeout_seconds == 300);
  CHECK(sc.max_attempts == 3);
  CHECK(p->spec.where("roles.worker.command").line == 7);
  CHECK(p->spec.where("roles.worker.command").column == 14);
}

TEST_CASE("every field is read") {
  const auto p = parse(R"(apiVersion: pai/v1
kind: Job
name: llama-sft
description: fine-tune
image: registry.local/pytorch:2.3
runtime: docker
framework: pytorch
parameters: {lr: 3e-4, steps: 1000, fast: True, tag: "v1"}
hosts:
  - {name: gpu-001, address: 10.0.0.1, slots: 8}
  - gpu-002
spares: [{name: gpu-099, address: 10.0.0.99}]
portRange: {min: 30000, max: 30100}
coordinator: {host: gpu-002, port: 31000}
masterRole: worker
fabric: {type: roce, interface: eth0, hcas: [mlx5_0, mlx5_1], gidIndex: 5, trafficClass: 96}
mounts:
  - {name: data, source: /mnt/nas/data, target: /data, readOnly: true}
output: /mnt/nas/runs/llama
roles:
  worker:
    instances: 1
    nprocPerNode: gpu
    envConvention: perNode
    resources: {gpu: 8, cpu: 96.5, memory: 1600Gi, shm: 64Gi}
    command: [python, train.py, "--lr=${parameters.lr}", "${parameters.fast}"]
    workingDir: /work
    env: {B: 1, A: "${parameters.tag}-x", C: false}
    ports: {sync: 1, http: 2}
    completion: {minSucceeded: 1, minFailed: -1}
  aux:
    command: sleep ${parameters.steps}
faultTolerance:
  mode: async
  restart: {enabled: false, maxRestarts: 0, backoff: 1m}
  policy: onFailure
  retryableErrors: ["connect timeout", NCCL]
  maxSameError: 2
  maxToleratedFailureRate: 0.25
  hang: {enabled: false, interval: 2h, exitInterval: 90, dumpCommand: "py-spy dump --pid {pid}"}
  gracePeriod: 5s
sanityCheck:
  enabled: false
  checks: [nccl, gpu]
  burn: {seconds: 5, minTflops: 100}
  nccl: {minBusBandwidthGBps: 40.5, size: 1Gi}
  disk: {minFree: 10G}
  timeout: 2m
  maxAttempts: 5
  custom:
    - {name: ib-links, command: "./check_ib.sh ${parameters.steps}", timeout: 30s}
    - {name: other, command: "true"}
)");
  CHECK(p->messages().empty());
  const Plan& job = p->spec.job;
  CHECK(job.name == "llama-sft");
  CHECK(job.image == "registry.local/pytorch:2.3");
  CHECK(job.runtime == Runtime::Docker);
  CHECK(job.framework == Framework::PyTorch);
  CHECK(p->spec.parameters ==
        std::map<std::string, std::string>{{"fast", "true"}, {"lr", "3e-4"}, {"steps", "1000"},
                                           {"tag", "v1"}});
  REQUIRE(job.hosts.size() == 2);
  CHECK(job.hosts[0].address == "10.0.0.1");
  CHECK(job.hosts[0].slots == 8);
  CHECK(job.hosts[1].name == "gpu-002");
  REQUIRE(job.spares.size() == 1);
  CHECK(job.spares[0].address == "10.0.0.99");
  CHECK(job.port_range_min == 30000);
  CHECK(job.port_range_max == 30100);
  CHECK(job.coordinator_host == "gpu-002");
  CHECK(job.coordinator_port == 31000);
  CHECK(job.fabric.type == FabricType::Roce);
  CHECK(job.fabric.interface == "eth0");
  CHECK(job.fabric.hcas == std::vector<std::string>{"mlx5_0", "mlx5_1"});
  CHECK(job.fabric.gid_index == 5);
  CHECK(job.fabric.traffic_class == 96);
  REQUIRE(job.mounts.size() == 1);
  CHECK(job.mounts[0].read_only);
  CHECK(job.mounts[0].target == "/data");
  CHECK(job.output == "/mnt/nas/runs/llama");
  REQUIRE(job.roles.size() == 2);
  CHECK(job.roles[0].name == "worker");  // master first
  CHECK(job.roles[1].name == "aux");
  const Role& w = job.roles[0];
  CHECK(w.nproc_per_node == 8);
  CHECK(w.env_convention == EnvConvention::PerNode);
  CHECK(w.resources.cpu == 96.5);
  CHECK(w.resources.memory_bytes == (1600ll << 30));
  CHECK(w.resources.shm_bytes == (64ll << 30));
  CHECK(w.command == std::vector<std::string>{"python", "train.py", "--lr=3e-4", "true"});
  CHECK(w.working_dir == "/work");
  CHECK(w.env == std::vector<std::pair<std::string, std::string>>{
                     {"A", "v1-x"}, {"B", "1"}, {"C", "false"}});
  REQUIRE(w.ports.size() == 2);
  CHECK(w.ports[0].label == "http");
  CHECK(w.ports[0].count == 2);
  CHECK(w.ports[1].label == "sync");
  CHECK(w.completion.min_succeeded == 1);
  CHECK(w.completion.min_failed == -1);
  CHECK(job.roles[1].command == std::vector<std::string>{"/bin/sh", "-c", "sleep 1000"});
  const FaultTolerance& ft = job.fault_tolerance;
  CHECK(ft.mode == FaultToleranceMode::Async);
  CHECK_FALSE(ft.restart_enabled);
  CHECK(ft.max_restarts == 0);
  CHECK(ft.backoff_seconds == 60);
  CHECK(ft.policy == RestartPolicy::OnFailure);
  CHECK(ft.retryable_errors == std::vector<std::string>{"connect timeout", "NCCL"});
  CHECK(ft.max_same_error == 2);
  CHECK(ft.max_tolerated_failure_rate == 0.25);
  CHECK_FALSE(ft.hang.enabled);
  CHECK(ft.hang.interval_seconds == 7200);
  CHECK(ft.hang.exit_interval_seconds == 90);
  CHECK(ft.hang.dump_command == "py-spy dump --pid {pid}");
  CHECK(ft.grace_period_seconds == 5);
  const SanityCheck& sc = job.sanity_check;
  CHECK_FALSE(sc.enabled);
  CHECK(sc.checks == std::vector<std::string>{"nccl", "gpu"});
  CHECK(sc.burn_seconds == 5);
  CHECK(sc.burn_min_tflops == 100);
  CHECK(sc.nccl_min_bus_bandwidth_gbps == 40.5);
  CHECK(sc.nccl_bytes == (1ll << 30));
  CHECK(sc.disk_min_free_bytes == 10'000'000'000);
  CHECK(sc.timeout_seconds == 120);
  CHECK(sc.max_attempts == 5);
  REQUIRE(sc.custom.size() == 2);
  CHECK(sc.custom[0].command == "./check_ib.sh 1000");
  CHECK(sc.custom[0].timeout_seconds == 30);
  CHECK(sc.custom[1].timeout_seconds == 60);
  CHECK(p->spec.where("sanityCheck.custom[0].timeout").line == 51);
  CHECK(p->spec.where("hosts[1]").line == 11);
}

TEST_CASE("roles are ordered master first - then by name - whatever the document order") {
  const auto p = parse(kMinimal + "  ps:\n    command: a\n  chief:\n    command: b\n"
                                  "masterRole: ps\n");
  CHECK(p->messages().empty());
  REQUIRE(p->spec.job.roles.size() == 3);
  CHECK(p->spec.job.roles[0].name == "ps");
  CHECK(p->spec.job.roles[1].name == "chief");
  CHECK(p->spec.job.roles[2].name == "worker");
  CHECK(p->spec.job.master_role == "ps");
}

TEST_CASE("the default master role is the first by name") {
  const auto p = parse(kMinimal + "  chief:\n    command: b\n");
  CHECK(p->spec.job.master_role == "chief");
  CHECK(p->spec.job.roles[0].name == "chief");
}

TEST_CASE("nprocPerNode above one selects the per-process convention") {
  const auto p = parse(kMinimal + "    nprocPerNode: 4\n");
  CHECK(p->messages().empty());
  CHECK(p->spec.job.roles[0].nproc_per_node == 4);
  CHECK(p->spec.job.roles[0].env_convention == EnvConvention::PerProcess);
}

TEST_CASE("nprocPerNode gpu needs GPUs") {
  const auto p = parse(kMinimal + "    nprocPerNode: gpu\n");
  CHECK(p->messages() == std::vector<std::string>{
                             "roles.worker.nprocPerNode: nprocPerNode gpu needs resources.gpu of "
                             "at least 1, got 0"});
}

TEST_CASE("fabric defaults per type") {
  const auto roce = parse(kMinimal + "fabric: {type: roce}\n");
  CHECK(roce->spec.job.fabric.gid_index == 3);
  CHECK(roce->spec.job.fabric.traffic_class == 106);
  const auto ib = parse(kMinimal + "fabric: {type: ib, hcas: [mlx5_0]}\n");
  CHECK(ib->messages().empty());
  CHECK(ib->spec.job.fabric.type == FabricType::Ib);
  CHECK(ib->spec.job.fabric.gid_index == -1);
  CHECK(ib->spec.job.fabric.traffic_class == -1);
}

TEST_CASE("fabric fields the type does not use are errors") {
  const auto p = parse(kMinimal + "fabric: {type: ethernet, gidIndex: 3, hcas: [x]}\n");
  CHECK(p->messages() ==
        std::vector<std::string>{
            "fabric.hcas: hcas is not allowed for fabric type ethernet (only for roce and ib)",
            "fabric.gidIndex: gidIndex is not allowed for fabric type ethernet (only for roce)"});
  const auto ib = parse(kMinimal + "fabric: {type: ib, trafficClass: 1}\n");
  CHECK(ib->messages() == std::vector<std::string>{
                              "fabric.trafficClass: trafficClass is not allowed for fabric type ib "
                              "(only for roce)"});
}

TEST_CASE("masterStore: rank0 by default, launcher when asked - a bad value located") {
  CHECK(parse(kMinimal)->spec.job.master_store == pai::MasterStore::Rank0);
  CHECK(parse(kMinimal + "masterStore: launcher\n")->spec.job.master_store ==
        pai::MasterStore::Launcher);
  const auto bad = parse(kMinimal + "masterStore: agent\n");
  CHECK(bad->messages() ==
        std::vector<std::string>{"masterStore: expected one of rank0, launcher, got \"agent\""});
  CHECK(bad->diags.all()[0].loc.line == 8);
}

TEST_CASE("unknown keys and bad enums get suggestions - located") {
  const auto p = parse(kMinimal + "    nprocPerNod: 2\nfaultTolerance: {mode: synk}\n");
  CHECK(p->messages() ==
        std::vector<std::string>{
            "roles.worker: unknown key \"nprocPerNod\" (did you mean \"nprocPerNode\"?)",
            "faultTolerance.mode: expected one of sync, async, got \"synk\" (did you mean "
            "\"sync\"?)"});
  CHECK(p->diags.all()[0].loc.line == 8);
  CHECK(p->diags.all()[0].loc.column == 5);
  CHECK(p->diags.all()[1].loc.line == 9);
  CHECK(p->diags.all()[1].loc.column == 24);
}

TEST_CASE("missing required fields are reported at the enclosing object") {
  const auto p = parse("kind: Job\nroles:\n  worker:\n    instances: 2\n");
  CHECK(p->messages() == std::vector<std::string>{"missing required field \"apiVersion\"",
                                                  "missing required field \"name\"",
                                                  "roles.worker: missing required field \"command\""});
  CHECK(p->diags.all()[2].loc.line == 3);
  CHECK(p->diags.all()[2].loc.column == 3);
}

TEST_CASE("wrong types everywhere are all reported") {
  const auto p = parse(R"(apiVersion: pai/v1
kind: Job
name: Bad_Name
hosts: {a: 1}
roles:
  worker:
    instances: "4"
    resources: {gpu: -1, cpu: 0, memory: 1e400}
    command: {a: b}
    env: [A]
    ports: {sync: 0}
    completion: {minSucceeded: 0}
  9lives:
    command: x
mounts: [{name: data, source: data, target: /data, readOnly: "yes"}]
output: relative/dir
faultTolerance: {maxToleratedFailureRate: 2, hang: {interval: 0}, restart: {backoff: -5s}}
sanityCheck: {checks: [gpu, gpu, nccl2], nccl: {size: 512}, maxAttempts: 0}
)");
  CHECK(p->messages() ==
        std::vector<std::string>{
            "name: expected a DNS label (at most 63 lowercase letters, digits or '-', starting "
            "and ending with a letter or digit), got \"Bad_Name\"",
            "hosts: expected a list of hosts, got a mapping",
            "mounts[0].source: expected an absolute path, got \"data\"",
            "mounts[0].readOnly: expected true or false, got \"yes\"",
            "output: expected an absolute path, got \"relative/dir\"",
            "roles.worker.instances: expected an integer between 1 and 100000, got \"4\" (write "
            "numbers without quotes)",
            "roles.worker.resources.gpu: expected an integer between 0 and 1024, got -1",
            "roles.worker.resources.cpu: expected a number greater than 0, got 0",
            "roles.worker.resources.memory: expected a quantity like 64Gi or 500M, got \"1e400\"",
            "roles.worker.command: expected a string or a list of strings, got a mapping",
            "roles.worker.env: expected a mapping, got a list",
            "roles.worker.ports.sync: expected an integer between 1 and 100, got 0",
            "roles.worker.completion.minSucceeded: expected -1 or a positive integer, got 0",
            "roles: role name \"9lives\" must match [A-Za-z][A-Za-z0-9_]* and have at most 32 "
            "characters (it is used in env var names)",
            "faultTolerance.restart.backoff: duration must not be negative, got \"-5s\"",
            "faultTolerance.maxToleratedFailureRate: expected -1 (off) or a number greater than 0 "
            "and at most 1, got 2",
            "faultTolerance.hang.interval: expected a duration greater than 0, got 0",
            "sanityCheck.checks[1]: check \"gpu\" is listed twice",
            "sanityCheck.checks[2]: expected one of gpu, burn, nccl, network, mounts, disk, fabric, got "
            "\"nccl2\" (did you mean \"nccl\"?)",
            "sanityCheck.nccl.size: expected a quantity of at least 1Ki, got 512",
            "sanityCheck.maxAttempts: expected an integer between 1 and 100, got 0"});
}

TEST_CASE("durations longer than 365 days are refused - located at the field") {
  // The audit's repro: gracePeriod INT64_MAX used to compile, and the launcher sent SIGKILL at
  // once.
  const auto p = parse(kMinimal +
                       "faultTolerance:\n"
                       "  gracePeriod: 9223372036854775807\n"
                       "  hang: {interval: 366d, exitInterval: 365d}\n");
  CHECK(p->messages() ==
        std::vector<std::string>{
            "faultTolerance.hang.interval: duration must be at most 365d, got \"366d\"",
            "faultTolerance.gracePeriod: duration must be at most 365d, got "
            "\"9223372036854775807\""});
  REQUIRE(p->diags.all().size() == 2);
  CHECK(p->diags.all()[0].loc.line == 10);
  CHECK(p->diags.all()[0].loc.column == 20);
  CHECK(p->diags.all()[1].loc.line == 9);
  CHECK(p->diags.all()[1].loc.column == 16);
}

TEST_CASE("parameters are substituted in commands - env and custom checks - undefined ones fail") {
  const auto p = parse(kMinimal + "    env: {LR: \"${parameters.lrr}\"}\n"
                                  "parameters: {lr: 0.1, steps: 10}\n"
                                  "sanityCheck: {custom: [{name: c, command: \"x ${parameters.y}\"}]}\n");
  CHECK(p->messages() ==
        std::vector<std::string>{
            "roles.worker.env.LR: undefined parameter \"lrr\" in ${parameters.lrr} (did you mean "
            "\"lr\"? defined: lr, steps)",
            "sanityCheck.custom[0].command: undefined parameter \"y\" in ${parameters.y} "
            "(defined: lr, steps)"});
}

TEST_CASE("bad names in free-form maps are located at the key") {
  const auto p = parse(kMinimal + "    env: {1X: a}\n    ports: {_p: 1}\nparameters: {a-b: 1, ok: [1]}\n");
  CHECK(p->messages() ==
        std::vector<std::string>{
            "parameters: parameter name \"a-b\" must match [A-Za-z_][A-Za-z0-9_]*",
            "parameters.ok: expected a string, number or bool, got a list",
            "roles.worker.env: env name \"1X\" must match [A-Za-z_][A-Za-z0-9_]*",
            "roles.worker.ports: port label \"_p\" must match [A-Za-z][A-Za-z0-9_]*"});
}

TEST_CASE("hosts as plain strings must be DNS labels") {
  const auto p = parse(kMinimal + "spares: [10.0.0.1, {address: x}, [1]]\n");
  CHECK(p->messages() ==
        std::vector<std::string>{
            "spares[0]: expected a host name that is a DNS label (at most 63 lowercase letters, "
            "digits or '-'), got \"10.0.0.1\"; write {name: ..., address: 10.0.0.1} to give the "
            "host a different address",
            "spares[1]: missing required field \"name\"",
            "spares[2]: expected a host name or {name, address, slots}, got a list"});
}

TEST_CASE("apiVersion - kind and a non-mapping root") {
  const auto p = parse("apiVersion: v1\nkind: job\nname: x\nroles: {}\n");
  CHECK(p->messages() ==
        std::vector<std::string>{"apiVersion: expected one of pai/v1, got \"v1\"",
                                 "kind: expected one of Job, got \"job\" (did you mean \"Job\"?)",
                                 "roles: expected at least one role"});
  const auto list = parse("- a\n- b\n");
  CHECK(list->messages() == std::vector<std::string>{"expected a mapping, got a list"});
}

TEST_CASE("timeLimit is a duration - none by default, zero refused") {
  CHECK(parse(kMinimal)->spec.job.time_limit_seconds == 0);
  const auto p = parse(kMinimal + "timeLimit: 270m\n");
  CHECK(p->diags.all().empty());
  CHECK(p->spec.job.time_limit_seconds == 4 * 3600 + 1800);
  const auto zero = parse(kMinimal + "timeLimit: 0s\n");
  REQUIRE(zero->diags.all().size() == 1);
  CHECK(zero->diags.all()[0].path == "timeLimit");
}

TEST_CASE("logs - 1Gi by default - a quantity of at least 1Mi") {
  CHECK(parse(kMinimal)->spec.job.logs.max_bytes == std::int64_t{1} << 30);
  const auto p = parse(kMinimal + "logs: {maxBytes: 4Gi}\n");
  CHECK(p->diags.all().empty());
  CHECK(p->spec.job.logs.max_bytes == std::int64_t{4} << 30);
  const auto small = parse(kMinimal + "logs:\n  maxBytes: 1Ki\n");
  REQUIRE(small->diags.all().size() == 1);
  CHECK(small->diags.all()[0].path == "logs.maxBytes");
  CHECK(small->diags.all()[0].loc.line == 9);
  CHECK(small->diags.all()[0].message.starts_with("expected a quantity of at least 1Mi"));
  const auto unknown = parse(kMinimal + "logs: {max: 1}\n");
  REQUIRE(unknown->diags.all().size() == 1);
  CHECK(unknown->diags.all()[0].message.starts_with("unknown key \"max\""));
}

TEST_CASE("monitoring - off by default - a port and a numeric address") {
  const Monitoring none = parse(kMinimal)->spec.job.monitoring;
  CHECK(none.metrics_port == 0);
  CHECK(none.metrics_address.empty());  // the coordinator's address
  const auto p = parse(kMinimal + "monitoring: {metricsPort: 9400}\n");
  CHECK(p->diags.all().empty());
  CHECK(p->spec.job.monitoring.metrics_port == 9400);
  CHECK(p->spec.job.monitoring.metrics_address.empty());
  const auto v6 = parse(kMinimal + "monitoring: {metricsPort: 9400, metricsAddress: '::1'}\n");
  CHECK(v6->diags.all().empty());
  CHECK(v6->spec.job.monitoring.metrics_address == "::1");
}

TEST_CASE("monitoring.metricsLinger - 30s by default - 0 to 10m, with a port") {
  CHECK(parse(kMinimal + "monitoring: {metricsPort: 9400}\n")
            ->spec.job.monitoring.metrics_linger_seconds == 30);
  const auto off = parse(kMinimal + "monitoring: {metricsPort: 9400, metricsLinger: 0}\n");
  CHECK(off->diags.all().empty());
  CHECK(off->spec.job.monitoring.metrics_linger_seconds == 0);
  const auto two = parse(kMinimal + "monitoring: {metricsPort: 9400, metricsLinger: 2m}\n");
  CHECK(two->spec.job.monitoring.metrics_linger_seconds == 120);
  const auto long_ = parse(kMinimal + "monitoring: {metricsPort: 9400, metricsLinger: 1h}\n");
  CHECK(long_->messages() ==
        std::vector<std::string>{"monitoring.metricsLinger: expected at most 10m (the launcher "
                                 "of the coordinator waits for it), got \"1h\""});
  const auto alone = parse(kMinimal + "monitoring: {metricsLinger: 30s}\n");
  CHECK(alone->messages() ==
        std::vector<std::string>{
            "monitoring.metricsLinger: has no effect without monitoring.metricsPort"});
}

TEST_CASE("monitoring errors are located at the field") {
  const auto p = parse(kMinimal +
                       "monitoring:\n"
                       "  metricsPort: 80\n"
                       "  metricsAddress: gpu-001\n"
                       "  metricsPath: /m\n");
  CHECK(p->messages() ==
        std::vector<std::string>{
            "monitoring: unknown key \"metricsPath\" (did you mean \"metricsPort\"?)",
            "monitoring.metricsPort: expected an integer between 1024 and 65535, got 80",
            "monitoring.metricsAddress: expected a numeric IPv4 or IPv6 address (0.0.0.0 for "
            "every IPv4 address), got \"gpu-001\""});
  REQUIRE(p->diags.all().size() == 3);
  CHECK(p->diags.all()[1].loc.line == 9);
  CHECK(p->diags.all()[1].loc.column == 16);
  const auto alone = parse(kMinimal + "monitoring: {metricsAddress: 127.0.0.1}\n");
  CHECK(alone->messages() ==
        std::vector<std::string>{
            "monitoring.metricsAddress: has no effect without monitoring.metricsPort"});
}

TEST_CASE("monitoring.gpuIdle - defaults 30% for 15m warn - percent or number") {
  const GpuIdle none = parse(kMinimal)->spec.job.monitoring.gpu_idle;
  CHECK(none.threshold_percent == 30);
  CHECK(none.window_seconds == 900);
  CHECK(none.action == GpuIdleAction::Warn);
  const auto p =
      parse(kMinimal + "monitoring: {gpuIdle: {threshold: 12.5%, window: 2m, action: restart}}\n");
  CHECK(p->diags.all().empty());
  const GpuIdle& g = p->spec.job.monitoring.gpu_idle;
  CHECK(g.threshold_percent == 12.5);
  CHECK(g.window_seconds == 120);
  CHECK(g.action == GpuIdleAction::Restart);
  const auto bare = parse(kMinimal + "monitoring: {gpuIdle: {threshold: 100}}\n");
  CHECK(bare->diags.all().empty());
  CHECK(bare->spec.job.monitoring.gpu_idle.threshold_percent == 100);
}

TEST_CASE("monitoring.gpuIdle errors name the field - 150 percent - negative window - action") {
  const auto p = parse(kMinimal +
                       "monitoring:\n"
                       "  gpuIdle:\n"
                       "    threshold: 150%\n"
                       "    window: -5m\n"
                       "    action: reboot\n");
  const auto messages = p->messages();
  REQUIRE(messages.size() == 3);
  CHECK(messages[0] ==
        "monitoring.gpuIdle.threshold: expected a percentage greater than 0 and at most 100 "
        "(\"30%\" or 30), got \"150%\"");
  CHECK(messages[1].rfind("monitoring.gpuIdle.window: ", 0) == 0);
  CHECK(messages[1].find("-5m") != std::string::npos);
  CHECK(messages[2].rfind("monitoring.gpuIdle.action: ", 0) == 0);
  CHECK(messages[2].find("\"reboot\"") != std::string::npos);
  CHECK(p->diags.all()[0].loc.line == 10);
  CHECK(p->diags.all()[0].loc.column == 16);
  const auto zero = parse(kMinimal + "monitoring: {gpuIdle: {threshold: 0, windw: 1m}}\n");
  CHECK(zero->messages() ==
        std::vector<std::string>{
            "monitoring.gpuIdle: unknown key \"windw\" (did you mean \"window\"?)",
            "monitoring.gpuIdle.threshold: expected a percentage greater than 0 and at most 100 "
            "(\"30%\" or 30), got 0"});
}

TEST_CASE("coordinator.ha reads its etcd members and lease, off and 3s by default") {
  CHECK(parse(kMinimal)->spec.job.coordinator_ha == CoordinatorHa{});
  auto p = parse(kMinimal + "coordinator:\n  ha:\n    etcd: [http://10.0.0.5:2379, "
                            "http://10.0.0.6:2379]\n    lease: 5s\n");
  CHECK(p->messages().empty());
  CHECK(p->spec.job.coordinator_ha.etcd ==
        std::vector<std::string>{"http://10.0.0.5:2379", "http://10.0.0.6:2379"});
  CHECK(p->spec.job.coordinator_ha.lease_seconds == 5);
  CHECK(parse(kMinimal + "coordinator: {ha: {etcd: [http://e:2379]}}\n")
            ->spec.job.coordinator_ha.lease_seconds == CoordinatorHa::kDefaultLeaseSeconds);
  CHECK(parse(kMinimal + "coordinator: {ha: {lease: 5s}}\n")->messages() ==
        std::vector<std::string>{"coordinator.ha: missing required field \"etcd\""});
  CHECK(parse(kMinimal + "coordinator: {ha: {etcd: [http://e:2379], leases: 5s}}\n")
            ->messages()
            .at(0)
            .rfind("coordinator.ha: unknown key \"leases\"", 0) == 0);
}

}  // namespace spec_parser_test
