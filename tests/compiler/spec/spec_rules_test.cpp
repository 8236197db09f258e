#include "compiler/spec/spec_rules.h"

#include <catch2/catch.hpp>

#include "compiler/document/yaml_loader.h"
#include "compiler/spec/port_range.h"
#include "compiler/spec/spec_parser.h"

namespace spec_rules_test {

using namespace pai;

namespace {

// Messages of check_spec() on a spec that must parse cleanly.
std::vector<std::string> rules(const std::string& yaml, std::vector<Location>* locations = nullptr) {
  Diagnostics parse_diags;
  const JobSpec spec = parse_spec(load_yaml("job.yaml", yaml), parse_diags);
  REQUIRE(parse_diags.all().empty());
  Diagnostics diags;
  check_spec(spec, diags);
  std::vector<std::string> out;
  for (const Diagnostic& d : diags.all()) {
    out.push_back((d.path.empty() ? "" : d.path + ": ") + d.message);
    if (locations) locations->push_back(d.loc);
  }
  return out;
}

const std::string kHead = "apiVersion: pai/v1\nkind: Job\nname: j\n";

}  // namespace

TEST_CASE("a consistent spec passes") {
  CHECK(rules(kHead + R"(framework: mpi
hosts: [{name: a, slots: 8}, {name: b, slots: 8}, c]
spares: [d]
coordinator: {host: b}
masterRole: worker
mounts: [{name: m, source: /x, target: /x}, {name: n, source: /x, target: /y}]
roles:
  worker: {instances: 2, nprocPerNode: gpu, resources: {gpu: 8}, command: x,
           ports: {sync: 1, Other: 1}, completion: {minSucceeded: 2, minFailed: 2}}
  launcher: {command: mpirun, env: {NCCL_DEBUG: INFO}}
sanityCheck: {custom: [{name: a, command: x}, {name: b, command: y}]}
)")
            .empty());
}

TEST_CASE("nprocPerNode may not exceed resources.gpu unless it is 1") {
  std::vector<Location> locs;
  CHECK(rules(kHead + "hosts: [a]\nroles:\n  w:\n    nprocPerNode: 16\n    resources: {gpu: 8}\n"
                      "    command: x\n",
              &locs) ==
        std::vector<std::string>{"roles.w.nprocPerNode: nprocPerNode 16 is more than "
                                 "resources.gpu 8 (use 1, at most 8, or gpu)"});
  CHECK(locs[0].line == 7);
  CHECK(locs[0].column == 19);
  CHECK(rules(kHead + "hosts: [a]\nroles:\n  w: {nprocPerNode: 1, resources: {gpu: 8}, command: x}\n")
            .empty());
}

TEST_CASE("nprocPerNode and resources.gpu must fit the slots of the role's hosts") {
  CHECK(rules(kHead + R"(hosts: [{name: a, slots: 8}, {name: b, slots: 4}, {name: c, slots: 2}, {name: d, slots: 2}]
roles:
  a: {instances: 1, nprocPerNode: 8, command: x}
  b: {instances: 3, nprocPerNode: 4, resources: {gpu: 6}, command: x}
)") == std::vector<std::string>{
             "roles.b.nprocPerNode: nprocPerNode 4 is more than the 2 slots of host \"c\" "
             "(hosts[2], and 1 more of the role's hosts)",
             "roles.b.resources.gpu: resources.gpu 6 is more than the 4 slots of host \"b\" "
             "(hosts[1], and 2 more of the role's hosts)"});
}

TEST_CASE("there must be a host for every instance") {
  CHECK(rules(kHead + "hosts: [a, b]\nroles:\n  w: {instances: 2, command: x}\n  ps: {command: y}\n") ==
        std::vector<std::string>{"hosts: not enough hosts: the roles have 3 instances (ps: 1, w: 2) "
                                 "but there are 2 hosts; each instance needs its own host"});
  CHECK(rules(kHead + "roles:\n  w: {command: x}\n") ==
        std::vector<std::string>{"hosts: no hosts: list the inventory under hosts or pass --hosts FILE"});
}

TEST_CASE("host names and addresses are unique across hosts and spares") {
  std::vector<Location> locs;
  CHECK(rules(kHead + "hosts: [a, {name: b, address: 10.0.0.1}, a]\n"
                      "spares: [{name: c, address: 10.0.0.1}, b]\n"
                      "roles:\n  w: {command: x}\n",
              &locs) ==
        std::vector<std::string>{
            "hosts[2].name: duplicate host name \"a\" (also hosts[0])",
            "spares[0].address: duplicate address \"10.0.0.1\" (also hosts[1], host \"b\")",
            "spares[1].name: duplicate host name \"b\" (also hosts[1])"});
  CHECK(locs[0].line == 4);
  CHECK(locs[1].line == 5);
}

TEST_CASE("port labels may not differ only in case") {
  CHECK(rules(kHead + "hosts: [a]\nroles:\n  w: {command: x, ports: {sync: 1, Sync: 2}}\n") ==
        std::vector<std::string>{"roles.w.ports.sync: port label \"sync\" collides with \"Sync\" "
                                 "(labels must differ in more than letter case)"});
}

TEST_CASE("mpi jobs need a launcher role") {
  CHECK(rules(kHead + "framework: mpi\nhosts: [a]\nroles:\n  w: {command: x}\n") ==
        std::vector<std::string>{"framework: framework mpi needs a role named \"launcher\" (the "
                                 "instance that runs mpirun)"});
}

TEST_CASE("contract variables cannot be overridden") {
  CHECK(rules(kHead + "hosts: [a]\nroles:\n  w: {command: x, env: {RANK: 1, WORLD_SIZE: 2, A: 3}}\n") ==
        std::vector<std::string>{
            "roles.w.env.RANK: RANK is set by pai for every process and cannot be overridden",
            "roles.w.env.WORLD_SIZE: WORLD_SIZE is set by pai for every process and cannot be "
            "overridden"});
}

TEST_CASE("master role and coordinator host must exist") {
  CHECK(rules(kHead + "hosts: [gpu-1, gpu-2]\nmasterRole: wroker\ncoordinator: {host: gpu-3}\n"
                      "roles:\n  worker: {command: x}\n") ==
        std::vector<std::string>{
            "masterRole: unknown role \"wroker\" (did you mean \"worker\"?)",
            "coordinator.host: unknown host \"gpu-3\" (did you mean \"gpu-1\"?)"});
  CHECK(rules(kHead + "hosts: [a, b]\nmasterRole: zzz\ncoordinator: {host: b}\n"
                      "roles:\n  worker: {command: x}\n  ps: {command: x, instances: 1}\n") ==
        std::vector<std::string>{"masterRole: unknown role \"zzz\" (roles: ps, worker)"});
  CHECK(rules(kHead + "hosts: [a, b]\ncoordinator: {host: b}\nroles:\n  worker: {command: x}\n") ==
        std::vector<std::string>{"coordinator.host: host \"b\" runs no role instance (the roles use "
                                 "only the first host)"});
}

TEST_CASE("mount names and targets are unique") {
  CHECK(rules(kHead + "hosts: [a]\nmounts:\n  - {name: d, source: /a, target: /t}\n"
                      "  - {name: d, source: /b, target: /t}\nroles:\n  w: {command: x}\n") ==
        std::vector<std::string>{"mounts[1].name: duplicate mount name \"d\" (also mounts[0])",
                                 "mounts[1].target: duplicate mount target \"/t\" (also mounts[0])"});
}

TEST_CASE("completion thresholds cannot exceed the instances") {
  CHECK(rules(kHead + "hosts: [a, b]\nroles:\n  w: {instances: 2, command: x, "
                      "completion: {minSucceeded: 3, minFailed: 5}}\n") ==
        std::vector<std::string>{
            "roles.w.completion.minSucceeded: minSucceeded 3 is more than the role's 2 instances",
            "roles.w.completion.minFailed: minFailed 5 is more than the role's 2 instances"});
}

TEST_CASE("container runtimes need an image") {
  CHECK(rules(kHead + "runtime: apptainer\nhosts: [a]\nroles:\n  w: {command: x}\n") ==
        std::vector<std::string>{
            "runtime: runtime apptainer needs an image: set the top-level image field"});
}

TEST_CASE("port range bounds and custom check names") {
  CHECK(rules(kHead + "hosts: [a]\nportRange: {min: 30000, max: 20000}\nroles:\n  w: {command: x}\n"
                      "sanityCheck: {custom: [{name: c, command: x}, {name: c, command: y}]}\n") ==
        std::vector<std::string>{
            "portRange.min: min 30000 is greater than max 20000",
            "sanityCheck.custom[1].name: duplicate check name \"c\" (also sanityCheck.custom[0])"});
}

TEST_CASE("the metrics port is neither in portRange nor the coordinator's") {
  const std::string job = kHead + "hosts: [a]\nroles: {worker: {command: x}}\n";
  CHECK(rules(job + "monitoring: {metricsPort: 9400}\n").empty());
  std::vector<Location> where;
  // The default range starts by the job's name, at most at 28000: 29000 is always inside.
  CHECK(rules(job + "monitoring: {metricsPort: 29000}\n", &where) ==
        std::vector<std::string>{"monitoring.metricsPort: port 29000 is inside portRange " +
                                 std::to_string(pai::default_port_range_min("j")) +
                                 "-29999, whose ports go to the job"});
  REQUIRE(where.size() == 1);
  CHECK(where[0].line == 6);
  CHECK(rules(job + "coordinator: {port: 9400}\nmonitoring: {metricsPort: 9400}\n") ==
        std::vector<std::string>{
            "monitoring.metricsPort: port 9400 is the coordinator's (coordinator.port)"});
}

TEST_CASE("coordinator.ha: its etcd members are http URLs, distinct, and its lease a minute at most") {
  const std::string job = kHead + "hosts: [a, b]\nroles: {worker: {command: x, instances: 2}}\n";
  CHECK(rules(job + "coordinator:\n  ha: {etcd: [http://10.0.0.5:2379, 'http://[fd00::5]:2379']}\n")
            .empty());
  std::vector<Location> where;
  CHECK(rules(job + "coordinator:\n  ha:\n    etcd:\n      - http://10.0.0.5:2379\n"
                    "      - https://10.0.0.6:2379\n      - http://10.0.0.5:2379\n"
                    "      - 10.0.0.7:2379\n    lease: 2m\n",
              &where) ==
        std::vector<std::string>{
            "coordinator.ha.etcd[1]: \"https://10.0.0.6:2379\": https is not supported: pai's "
            "etcd client speaks http:// to the members' client URLs",
            "coordinator.ha.etcd[2]: duplicate etcd member \"http://10.0.0.5:2379\" (also "
            "coordinator.ha.etcd[0])",
            "coordinator.ha.etcd[3]: \"10.0.0.7:2379\": expected http://HOST:PORT",
            "coordinator.ha.lease: expected 1s to 60s, got 120s (the job goes on without a "
            "coordinator for up to this long when it dies)"});
  REQUIRE(where.size() == 4);
  CHECK(where[0].line == 10);  // etcd[1]
  CHECK(where[3].line == 13);  // lease
  CHECK(rules(job + "coordinator: {ha: {etcd: []}}\n") ==
        std::vector<std::string>{
            "coordinator.ha.etcd: lists no etcd member: give their client URLs, or leave ha out"});
}

}  // namespace spec_rules_test
