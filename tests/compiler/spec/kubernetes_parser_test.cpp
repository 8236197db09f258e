#include "compiler/spec/kubernetes_parser.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <optional>

#include "compiler/document/yaml_loader.h"
#include "libpai/plan_json.h"

namespace kubernetes_parser_test {

using namespace pai;

namespace {

// The job the section is parsed against: a RoCE fabric, a mount at /data, output /runs/x.
Plan roce_job() {
  Plan job;
  job.name = "x";
  job.fabric.type = FabricType::Roce;
  job.mounts = {Mount{"data", "/mnt/data", "/data", true}};
  job.output = "/runs/x";
  return job;
}

// The same job as an mpi one.
Plan mpi_job() {
  Plan job = roce_job();
  job.framework = Framework::Mpi;
  return job;
}

struct Parsed {
  Kubernetes k;
  Diagnostics diags;
  std::map<std::string, Location> locations;
};

Parsed parse(const std::string& yaml, const Plan& job = roce_job()) {
  Parsed p;
  FieldReader reader(p.diags, p.locations);
  parse_kubernetes(load_yaml("job.yaml", yaml).root, "kubernetes", job, reader, &p.k);
  return p;
}

// "<path>: <message>" of every diagnostic, in order.
std::vector<std::string> errors(const Parsed& p) {
  std::vector<std::string> out;
  for (const Diagnostic& d : p.diags.all()) out.push_back(d.path + ": " + d.message);
  return out;
}

}  // namespace

TEST_CASE("kubernetes section: an empty section keeps every default") {
  const Parsed p = parse("{}\n");
  CHECK(p.diags.all().empty());
  CHECK(p.k == Kubernetes{});
  CHECK(p.k.network == PodNetwork::Auto);
  CHECK(p.k.rdma_resource == "rdma/rdma_shared_device_a");
  CHECK(p.k.rdma_count == 1);
  CHECK(p.k.ttl_seconds == -1);
  CHECK_FALSE(p.k.gang);
}

TEST_CASE("kubernetes section: every field is read") {
  const Parsed p = parse(
      "api: pytorchjob\n"
      "network: multus\n"
      "networks: [roce-a, team/roce-b@net2]\n"
      "rdma: {resource: rdma/hca, count: 2}\n"
      "shmSize: 32Gi\n"
      "ttlAfterFinished: 1h\n"
      "schedulingPolicy: {minAvailable: 3, queue: research, priorityClass: high-priority}\n"
      "nodeSelector: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3, pool: train, gpus: 8}\n"
      "tolerations:\n"
      "  - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}\n"
      "  - {key: dedicated, value: ml, effect: NoExecute, tolerationSeconds: 5m}\n"
      "  - {operator: Exists}\n"
      "imagePullSecrets: [regcred, mirror.pull]\n"
      "volumes:\n"
      "  - {name: ckpt, claimName: ckpt-pvc, mountPath: /ckpt}\n"
      "  - {name: datasets, claimName: datasets, mountPath: /datasets, readOnly: true}\n");
  CHECK(errors(p).empty());
  CHECK(p.k.network == PodNetwork::Multus);
  CHECK(p.k.networks == std::vector<std::string>{"roce-a", "team/roce-b@net2"});
  CHECK(p.k.rdma_resource == "rdma/hca");
  CHECK(p.k.rdma_count == 2);
  CHECK(p.k.shm_bytes == 32ll << 30);
  CHECK(p.k.ttl_seconds == 3600);
  CHECK(p.k.gang);
  CHECK(p.k.min_available == 3);
  CHECK(p.k.queue == "research");
  CHECK(p.k.priority_class == "high-priority");
  // Sorted by key; numbers become the strings Kubernetes needs.
  CHECK(p.k.node_selector ==
        std::vector<std::pair<std::string, std::string>>{
            {"gpus", "8"}, {"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"}, {"pool", "train"}});
  REQUIRE(p.k.tolerations.size() == 3);
  CHECK(p.k.tolerations[0] == Toleration{"nvidia.com/gpu", "Exists", "", "NoSchedule", -1});
  CHECK(p.k.tolerations[1] == Toleration{"dedicated", "Equal", "ml", "NoExecute", 300});
  CHECK(p.k.tolerations[2] == Toleration{"", "Exists", "", "", -1});
  CHECK(p.k.image_pull_secrets == std::vector<std::string>{"regcred", "mirror.pull"});
  REQUIRE(p.k.volumes.size() == 2);
  CHECK(p.k.volumes[0] == ClaimVolume{"ckpt", "ckpt-pvc", "/ckpt", false});
  CHECK(p.k.volumes[1] == ClaimVolume{"datasets", "datasets", "/datasets", true});
  CHECK(p.locations.at("kubernetes.volumes[1].claimName").line == 16);
}

TEST_CASE("kubernetes section: a gang section without minAvailable means every pod") {
  const Parsed p = parse("api: pytorchjob\nschedulingPolicy: {queue: research}\n");
  CHECK(errors(p).empty());
  CHECK(p.k.gang);
  CHECK(p.k.min_available == 0);
}

TEST_CASE("kubernetes section: network and networks must agree") {
  CHECK(errors(parse("network: multus\n")) ==
        std::vector<std::string>{
            "kubernetes.network: network multus needs kubernetes.networks, the Multus networks "
            "to attach"});
  CHECK(errors(parse("network: host\nnetworks: [roce]\n")) ==
        std::vector<std::string>{
            "kubernetes.networks: networks is only used with network: multus (network is host)"});
  CHECK(errors(parse("networks: [roce]\n")) ==
        std::vector<std::string>{
            "kubernetes.networks: networks is only used with network: multus (network is auto)"});
  CHECK(errors(parse("network: multus\nnetworks: [Bad_Name, a/b/c]\n")) ==
        std::vector<std::string>{
            "kubernetes.networks[0]: expected a Multus network, [namespace/]name[@interface], "
            "got \"Bad_Name\"",
            "kubernetes.networks[1]: expected a Multus network, [namespace/]name[@interface], "
            "got \"a/b/c\""});
  CHECK(errors(parse("network: overlay\n")) ==
        std::vector<std::string>{
            "kubernetes.network: expected one of auto, pod, host, multus, got \"overlay\""});
}

TEST_CASE("kubernetes section: rdma needs a RoCE or IB fabric and a resource name with a domain") {
  Plan ethernet = roce_job();
  ethernet.fabric.type = FabricType::Ethernet;
  CHECK(errors(parse("rdma: {count: 2}\n", ethernet)) ==
        std::vector<std::string>{
            "kubernetes.rdma: rdma is only used with fabric type roce or ib (the fabric is "
            "ethernet)"});
  Plan ib = roce_job();
  ib.fabric.type = FabricType::Ib;
  CHECK(errors(parse("rdma: {resource: nvidia.com/hostdev}\n", ib)).empty());
  CHECK(errors(parse("rdma: {resource: hca, count: 0}\n")) ==
        std::vector<std::string>{
            "kubernetes.rdma.resource: expected a device-plugin resource name, domain/name "
            "(e.g. rdma/rdma_shared_device_a), got \"hca\"",
            "kubernetes.rdma.count: expected an integer between 1 and 1024, got 0"});
}

TEST_CASE("kubernetes section: durations, quantities and names are checked") {
  CHECK(errors(parse("ttlAfterFinished: soon\nshmSize: lots\n")) ==
        std::vector<std::string>{
            "kubernetes.shmSize: expected a quantity like 64Gi or 500M, got \"lots\"",
            "kubernetes.ttlAfterFinished: expected a duration like 90s, 30m, 2h or seconds, got "
            "\"soon\""});
  CHECK(errors(parse("schedulingPolicy: {minAvailable: 0, priorityClass: High}\n")) ==
        std::vector<std::string>{
            "kubernetes.schedulingPolicy.minAvailable: expected a positive integer, got 0",
            "kubernetes.schedulingPolicy.priorityClass: expected a DNS subdomain (lowercase "
            "letters, digits, '-' and '.', at most 253 characters), got \"High\""});
  CHECK(errors(parse("imagePullSecrets: [ok, Not_OK]\n")) ==
        std::vector<std::string>{
            "kubernetes.imagePullSecrets[1]: expected a DNS subdomain (lowercase letters, "
            "digits, '-' and '.', at most 253 characters), got \"Not_OK\""});
}

TEST_CASE("kubernetes section: node selector keys and values are label keys and values") {
  CHECK(errors(parse("nodeSelector: {\"-bad\": x, pool: \"a b\", empty: \"\"}\n")) ==
        std::vector<std::string>{
            "kubernetes.nodeSelector: expected a label key ([prefix/]name, the name at most 63 "
            "letters, digits, '-', '_' or '.'), got \"-bad\"",
            "kubernetes.nodeSelector.pool: expected a label value (at most 63 letters, digits, "
            "'-', '_' or '.', starting and ending with a letter or digit), got \"a b\""});
}

TEST_CASE("kubernetes section: tolerations follow Kubernetes' rules") {
  const Parsed p = parse(
      "tolerations:\n"
      "  - {key: a, operator: Exists, value: x}\n"
      "  - {value: x}\n"
      "  - {key: b, effect: NoSchedule, tolerationSeconds: 60}\n"
      "  - {key: c, operator: Equals}\n");
  CHECK(errors(p) ==
        std::vector<std::string>{
            "kubernetes.tolerations[0].value: operator Exists matches any value: leave value out",
            "kubernetes.tolerations[1]: a toleration without a key needs operator: Exists",
            "kubernetes.tolerations[2].tolerationSeconds: tolerationSeconds is only used with "
            "effect NoExecute",
            "kubernetes.tolerations[3].operator: expected one of Equal, Exists, got \"Equals\" "
            "(did you mean \"Equal\"?)"});
  CHECK(p.k.tolerations.empty());
}

TEST_CASE(
    "kubernetes section: volumes need unique names and mount paths, apart from pai's and the "
    "spec's") {
  const Parsed p = parse(
      "volumes:\n"
      "  - {name: ckpt, claimName: ckpt, mountPath: /ckpt}\n"
      "  - {name: ckpt, claimName: other, mountPath: /other}\n"
      "  - {name: data, claimName: d, mountPath: /d}\n"
      "  - {name: pai-shm, claimName: s, mountPath: /s}\n"
      "  - {name: b, claimName: b, mountPath: /ckpt}\n"
      "  - {name: c, claimName: c, mountPath: /runs/x}\n"
      "  - {name: e, claimName: e, mountPath: /etc/pai}\n"
      "  - {name: f, mountPath: relative}\n");
  CHECK(errors(p) ==
        std::vector<std::string>{
            "kubernetes.volumes[1].name: volume name \"ckpt\" is already used by "
            "kubernetes.volumes[0]",
            "kubernetes.volumes[2].name: volume name \"data\" is already used by mounts[0]",
            "kubernetes.volumes[3].name: volume name \"pai-shm\" is already used by "
            "pai-compile's /dev/shm volume",
            "kubernetes.volumes[4].mountPath: mount path \"/ckpt\" is already used by "
            "kubernetes.volumes[0]",
            "kubernetes.volumes[5].mountPath: mount path \"/runs/x\" is already used by output",
            "kubernetes.volumes[6].mountPath: mount path \"/etc/pai\" is already used by the "
            "plan's mount",
            "kubernetes.volumes[7]: missing required field \"claimName\"",
            "kubernetes.volumes[7].mountPath: expected an absolute path, got \"relative\""});
  REQUIRE(p.k.volumes.size() == 1);
  CHECK(p.k.volumes[0].name == "ckpt");
}

TEST_CASE("kubernetes section: unknown keys are errors with a suggestion") {
  const Parsed p = parse("netwrk: host\nminAvailable: 2\nrequired: kubernetes.io/hostname\n");
  CHECK(errors(p) ==
        std::vector<std::string>{"kubernetes: unknown key \"netwrk\" (did you mean \"network\"?)",
                                 "kubernetes: unknown key \"minAvailable\" (did you mean "
                                 "\"schedulingPolicy.minAvailable\"?)",
                                 "kubernetes: unknown key \"required\" (did you mean "
                                 "\"topology.required\"?)"});
}

TEST_CASE("kubernetes section: the settings reach plan.json and come back") {
  Plan plan = roce_job();
  plan.compiler = "pai-compile test";
  CHECK(nlohmann::json::parse(plan_to_json_unkeyed(plan)).contains("kubernetes") == false);
  const Parsed p = parse(
      "api: mpijob\nnetwork: multus\nnetworks: [roce]\nrdma: {resource: rdma/hca, count: 2}\n"
      "shmSize: 8Gi\nttlAfterFinished: 0\nschedulingPolicy: {queue: q}\n"
      "scheduler: volcano\nqueue: team-a\ntopology: {preferred: example.com/block}\n"
      "nodeSelector: {pool: a}\ntolerations: [{operator: Exists}]\n"
      "imagePullSecrets: [r]\nvolumes: [{name: v, claimName: c, mountPath: /v}]\n",
      mpi_job());
  REQUIRE(errors(p).empty());
  plan.kubernetes = p.k;
  const std::string text = plan_to_json_unkeyed(plan);
  const Plan back = plan_from_json(text, "plan.json", std::nullopt);
  CHECK(back.kubernetes == plan.kubernetes);
  CHECK(back.kubernetes.ttl_seconds == 0);
  CHECK(back.kubernetes.api == KubernetesApi::MpiJob);
  CHECK(back.kubernetes.kueue_queue == "team-a");
  CHECK(back.kubernetes.topology_preferred == "example.com/block");
  // Trainer v2's own settings, and the JobSet's restarts plan_for_pods() sets.
  const Parsed trainer = parse(
      "runtimeKind: ClusterTrainingRuntime\ntopology: "
      "{required: kubernetes.io/hostname}\nqueue: q\n");
  REQUIRE(errors(trainer).empty());
  plan.kubernetes = trainer.k;
  plan.kubernetes.jobset_max_restarts = 2;
  const nlohmann::json json = nlohmann::json::parse(plan_to_json_unkeyed(plan));
  CHECK(json["kubernetes"]["runtimeKind"] == "ClusterTrainingRuntime");
  CHECK(json["kubernetes"]["jobSetMaxRestarts"] == 2);
  CHECK_FALSE(json["kubernetes"].contains("api"));  // the default, trainer-v2
  CHECK(plan_from_json(plan_to_json_unkeyed(plan), "plan.json", std::nullopt).kubernetes ==
        plan.kubernetes);
}

TEST_CASE("kubernetes section: api is trainer-v2 unless it names a kind that runs the job") {
  CHECK(parse("{}\n").k.api == KubernetesApi::TrainerV2);
  CHECK(parse("api: pytorchjob\n").k.api == KubernetesApi::PyTorchJob);
  CHECK(errors(parse("api: mpijob\n")) ==
        std::vector<std::string>{"kubernetes.api: api mpijob runs framework mpi only (the "
                                 "framework is custom); use trainer-v2 or pytorchjob"});
  CHECK(errors(parse("api: pytorchjob\n", mpi_job())) ==
        std::vector<std::string>{"kubernetes.api: api pytorchjob cannot run framework mpi (it "
                                 "has no launcher pod for mpirun); use trainer-v2 or mpijob"});
  CHECK(parse("api: mpijob\n", mpi_job()).k.api == KubernetesApi::MpiJob);
  CHECK(errors(parse("api: trainer\n")) ==
        std::vector<std::string>{"kubernetes.api: expected one of trainer-v2, pytorchjob, mpijob, "
                                 "got \"trainer\" (did you mean \"trainer-v2\"?)"});
}

TEST_CASE("kubernetes section: runtimeKind belongs to trainer-v2") {
  CHECK(parse("runtimeKind: ClusterTrainingRuntime\n").k.runtime_kind ==
        TrainingRuntimeKind::Cluster);
  CHECK(errors(parse("api: pytorchjob\nruntimeKind: TrainingRuntime\n")) ==
        std::vector<std::string>{
            "kubernetes.runtimeKind: runtimeKind is only used with api trainer-v2 (api is "
            "pytorchjob)"});
  CHECK(errors(parse("runtimeKind: ClusterTrainingRunTime\n")) ==
        std::vector<std::string>{
            "kubernetes.runtimeKind: expected one of TrainingRuntime, ClusterTrainingRuntime, got "
            "\"ClusterTrainingRunTime\" (did you mean \"ClusterTrainingRuntime\"?)"});
}

TEST_CASE("kubernetes section: a TrainJob's gang is every pod, queued by Volcano only") {
  CHECK(errors(parse("schedulingPolicy: {minAvailable: 2, queue: q}\n")) ==
        std::vector<std::string>{
            "kubernetes.schedulingPolicy.minAvailable: minAvailable is not used with api "
            "trainer-v2: Trainer's PodGroup gangs every pod of the job (leave it out, or use api "
            "pytorchjob or mpijob)",
            "kubernetes.schedulingPolicy.queue: with api trainer-v2 the gang scheduler's queue is "
            "Volcano's: it needs kubernetes.scheduler: volcano (for Kueue, use kubernetes.queue)"});
  const Parsed volcano =
      parse("scheduler: volcano\nschedulingPolicy: {queue: q, priorityClass: high}\n");
  CHECK(errors(volcano).empty());
  CHECK(volcano.k.scheduler == PodScheduler::Volcano);
  CHECK(volcano.k.queue == "q");
  CHECK(parse("schedulingPolicy: {priorityClass: high}\n").diags.all().empty());
  CHECK(errors(parse("scheduler: volcan\n")) ==
        std::vector<std::string>{"kubernetes.scheduler: expected one of default, volcano, got "
                                 "\"volcan\" (did you mean \"volcano\"?)"});
}

TEST_CASE("kubernetes section: Kueue's queue and topology") {
  const Parsed p = parse("queue: team-a\ntopology: {required: cloud.example.com/block}\n");
  CHECK(errors(p).empty());
  CHECK(p.k.kueue_queue == "team-a");
  CHECK(p.k.topology_required == "cloud.example.com/block");
  CHECK(p.k.topology_preferred.empty());
  CHECK(p.locations.at("kubernetes.topology.required").line == 2);
  CHECK(parse("queue: q\ntopology: {preferred: kubernetes.io/hostname}\n").k.topology_preferred ==
        "kubernetes.io/hostname");
  CHECK(errors(parse("queue: Team_A\n")) ==
        std::vector<std::string>{
            "kubernetes.queue: expected a Kueue LocalQueue name (lowercase letters, digits, '-' "
            "and '.', at most 63 characters), got \"Team_A\""});
  CHECK(errors(parse("queue: q\ntopology: {required: a, preferred: b}\n")) ==
        std::vector<std::string>{
            "kubernetes.topology.preferred: give either required or preferred, not both"});
  CHECK(errors(parse("queue: q\ntopology: {}\n")) ==
        std::vector<std::string>{
            "kubernetes.topology: expected required or preferred: the node label the pods must "
            "or should share (e.g. required: kubernetes.io/hostname)"});
  CHECK(errors(parse("topology: {required: kubernetes.io/hostname}\n")) ==
        std::vector<std::string>{
            "kubernetes.topology: topology is Kueue's topology-aware scheduling: it needs "
            "kubernetes.queue, the LocalQueue of a Kueue ClusterQueue with topology levels"});
  CHECK(errors(parse("queue: q\ntopology: {required: \"-rack\", prefered: x}\n")) ==
        std::vector<std::string>{
            "kubernetes.topology: unknown key \"prefered\" (did you mean \"preferred\"?)",
            "kubernetes.topology.required: expected a node label key ([prefix/]name, e.g. "
            "kubernetes.io/hostname), got \"-rack\""});
}

}  // namespace kubernetes_parser_test
