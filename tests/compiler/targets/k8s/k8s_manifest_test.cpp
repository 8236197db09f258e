#include "compiler/targets/k8s/k8s_manifest.h"

#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>

#include "libpai/placement.h"
#include "support/plan_fixture.h"

namespace k8s_manifest_test {

using pai::Diagnostics;
using pai::Location;
using pai::Plan;

namespace {

// The test plan as a training-operator v1 PyTorchJob: these cases are about the Kubeflow v1
// manifests (trainer_manifest_test.cpp has Trainer v2's).
Plan make_test_plan(int workers = 2, int nproc_per_node = 2) {
  Plan plan = pai::testing::make_test_plan(workers, nproc_per_node);
  plan.kubernetes.api = pai::KubernetesApi::PyTorchJob;
  return plan;
}

// The test plan as an MPIJob: its "ps" role (the last node rank) becomes the launcher.
Plan make_mpi_plan() {
  Plan plan = make_test_plan(3, 8);
  plan.framework = pai::Framework::Mpi;
  plan.kubernetes.api = pai::KubernetesApi::MpiJob;
  plan.roles[1].name = "launcher";
  pai::place(plan, plan.hosts);
  return plan;
}

YAML::Node render(const Plan& plan) {
  return YAML::Load(pai::render_k8s_manifest(pai::plan_for_pods(plan)));
}

// What Kubeflow requires of every replica spec.
void check_replica(const YAML::Node& replica, int replicas, const std::string& container,
                   const std::string& restart) {
  REQUIRE(replica.IsMap());
  CHECK(replica["replicas"].as<int>() == replicas);
  CHECK(replica["restartPolicy"].as<std::string>() == restart);
  const YAML::Node c = replica["template"]["spec"]["containers"][0];
  REQUIRE(c.IsMap());
  CHECK(c["name"].as<std::string>() == container);
  CHECK(c["image"].as<std::string>() == "registry.local/pytorch:2.3");
}

std::vector<std::string> strings(const YAML::Node& seq) {
  std::vector<std::string> out;
  for (const YAML::Node& n : seq) out.push_back(n.as<std::string>());
  return out;
}

}  // namespace

TEST_CASE("a PyTorch plan becomes a PyTorchJob with Master and Worker") {
  const YAML::Node job = render(make_test_plan(2, 2));
  CHECK(job["apiVersion"].as<std::string>() == "kubeflow.org/v1");
  CHECK(job["kind"].as<std::string>() == "PyTorchJob");
  CHECK(job["metadata"]["name"].as<std::string>() == "test-job");
  const YAML::Node specs = job["spec"]["pytorchReplicaSpecs"];
  check_replica(specs["Master"], 1, "pytorch", "Never");
  check_replica(specs["Worker"], 2, "pytorch", "Never");
  CHECK(job["spec"]["runPolicy"]["backoffLimit"].as<int>() == 0);
  CHECK(job["spec"]["runPolicy"]["cleanPodPolicy"].as<std::string>() == "Running");
}

TEST_CASE("every pod runs pai-launch on the plan and token mounted at /etc/pai") {
  const YAML::Node pod =
      render(make_test_plan())["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"];
  const YAML::Node c = pod["containers"][0];
  CHECK(strings(c["command"]) == std::vector<std::string>{"pai-launch", "run", "--plan",
                                                          "/etc/pai/plan.json", "--token-file",
                                                          "/etc/pai/job.token", "--node",
                                                          "$(PAI_POD_NAME)"});
  CHECK(c["env"][0]["name"].as<std::string>() == "PAI_POD_NAME");
  CHECK(c["env"][0]["valueFrom"]["fieldRef"]["fieldPath"].as<std::string>() == "metadata.name");
  CHECK(c["env"][1]["name"].as<std::string>() == "PYTHONUNBUFFERED");
  CHECK(c["env"][1]["value"].as<std::string>() == "1");
  CHECK(c["volumeMounts"][0]["mountPath"].as<std::string>() == "/etc/pai");
  const YAML::Node sources = pod["volumes"][0]["projected"]["sources"];
  CHECK(sources[0]["configMap"]["name"].as<std::string>() == "test-job-pai-plan");
  CHECK(sources[0]["configMap"]["items"][0]["key"].as<std::string>() == "plan.json");
  CHECK(sources[1]["secret"]["name"].as<std::string>() == "test-job-pai-token");
  CHECK(sources[1]["secret"]["items"][0]["key"].as<std::string>() == "job.token");
}

TEST_CASE("resources, shm, mounts and output become limits and volumes") {
  const YAML::Node pod =
      render(make_test_plan())["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"];
  const YAML::Node c = pod["containers"][0];
  CHECK(c["resources"]["limits"]["nvidia.com/gpu"].as<int>() == 8);
  CHECK(c["resources"]["limits"]["cpu"].as<std::string>() == "96");
  CHECK(c["resources"]["limits"]["memory"].as<std::string>() == "1600Gi");
  const YAML::Node mounts = c["volumeMounts"];
  REQUIRE(mounts.size() == 4);
  CHECK(mounts[1]["name"].as<std::string>() == "pai-shm");
  CHECK(mounts[1]["mountPath"].as<std::string>() == "/dev/shm");
  CHECK(mounts[2]["name"].as<std::string>() == "data");
  CHECK(mounts[2]["mountPath"].as<std::string>() == "/data");
  CHECK(mounts[2]["readOnly"].as<bool>());
  CHECK(mounts[3]["mountPath"].as<std::string>() == "/runs/test-job");
  CHECK(!mounts[3]["readOnly"]);
  const YAML::Node volumes = pod["volumes"];
  REQUIRE(volumes.size() == 4);
  CHECK(volumes[1]["emptyDir"]["medium"].as<std::string>() == "Memory");
  CHECK(volumes[1]["emptyDir"]["sizeLimit"].as<std::string>() == "64Gi");
  CHECK(volumes[2]["hostPath"]["path"].as<std::string>() == "/mnt/nas/data");
  CHECK(volumes[3]["hostPath"]["type"].as<std::string>() == "DirectoryOrCreate");
}

TEST_CASE("a Worker template takes the largest resources and the shared env of its roles") {
  // Worker pods run node ranks 1.. : worker 1 (8 GPUs, 96 cores) and ps (4 cores).
  const YAML::Node c = render(make_test_plan(
      2, 2))["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0];
  CHECK(c["resources"]["limits"]["nvidia.com/gpu"].as<int>() == 8);
  CHECK(c["resources"]["limits"]["cpu"].as<std::string>() == "96");
  // ps has no PYTHONUNBUFFERED, so the roles do not agree on it.
  CHECK(c["env"].size() == 1);
}

TEST_CASE("fractional CPUs are written in millicores") {
  Plan plan = make_test_plan();
  plan.roles[0].resources.cpu = 7.5;
  const YAML::Node c =
      render(plan)["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]["containers"][0];
  CHECK(c["resources"]["limits"]["cpu"].as<std::string>() == "7500m");
}

TEST_CASE("the restart budget is pai-launch's alone: Never and backoffLimit 0 always") {
  // make_test_plan() has restarts enabled with maxRestarts 5: Kubernetes must not add its own.
  for (const bool mpi : {false, true}) {
    for (const bool restarts : {true, false}) {
      Plan plan = mpi ? make_mpi_plan() : make_test_plan();
      REQUIRE(plan.fault_tolerance.max_restarts == 5);
      plan.fault_tolerance.restart_enabled = restarts;
      const YAML::Node job = render(plan);
      CHECK(job["spec"]["runPolicy"]["backoffLimit"].as<int>() == 0);
      for (const auto& entry : job["spec"][mpi ? "mpiReplicaSpecs" : "pytorchReplicaSpecs"]) {
        CHECK(entry.second["restartPolicy"].as<std::string>() == "Never");
      }
    }
  }
}

TEST_CASE("an MPI plan becomes an MPIJob with Launcher and Worker") {
  const YAML::Node job = render(make_mpi_plan());
  CHECK(job["apiVersion"].as<std::string>() == "kubeflow.org/v2beta1");
  CHECK(job["kind"].as<std::string>() == "MPIJob");
  CHECK(job["metadata"]["name"].as<std::string>() == "test-job");
  CHECK(job["spec"]["slotsPerWorker"].as<int>() == 8);
  const YAML::Node specs = job["spec"]["mpiReplicaSpecs"];
  check_replica(specs["Launcher"], 1, "mpi", "Never");
  check_replica(specs["Worker"], 3, "mpi", "Never");
  const YAML::Node launcher = specs["Launcher"]["template"]["spec"]["containers"][0];
  CHECK(strings(launcher["command"]).back() == "test-job-launcher");
  CHECK(!launcher["resources"]["limits"]["nvidia.com/gpu"]);
}

TEST_CASE("the pods' plan names the pods and runs commands without a container wrapper") {
  Plan plan = make_test_plan(2, 2);
  plan.runtime = pai::Runtime::Docker;
  plan.roles[0].launch_argv = {"docker", "run", "python", "train.py"};
  const Plan pods = pai::plan_for_pods(plan);
  CHECK(pods.runtime == pai::Runtime::Host);
  CHECK(pods.roles[0].launch_argv == pods.roles[0].command);
  CHECK(pods.spares.empty());
  REQUIRE(pods.placements.size() == 3);
  CHECK(pods.placements[0].host.name == "test-job-master-0");
  CHECK(pods.placements[1].host.name == "test-job-worker-0");
  CHECK(pods.placements[2].host.name == "test-job-worker-1");
  CHECK(pods.placements[2].role == "ps");
  CHECK(pods.master.address == "test-job-master-0");
}

TEST_CASE("MPI pods are addressed through the job's service (mpi-operator 0.5 and later)") {
  const Plan pods = pai::plan_for_pods(make_mpi_plan());
  REQUIRE(pods.placements.size() == 4);
  CHECK(pods.placements[0].host.name == "test-job-worker-0");
  CHECK(pods.placements[0].host.address == "test-job-worker-0.test-job");
  CHECK(pods.placements[2].host.address == "test-job-worker-2.test-job");
  CHECK(pods.placements[3].host.name == "test-job-launcher");
  CHECK(pods.placements[3].host.address == "test-job-launcher.test-job");
  // The coordinator and the hostfile use these addresses.
  CHECK(pods.coordinator.address == "test-job-worker-0.test-job");
}

TEST_CASE("the coordinator's pods declare the metrics port - annotated when it is one pod") {
  for (const bool mpi : {false, true}) {
    Plan plan = mpi ? make_mpi_plan() : make_test_plan(3, 8);
    plan.monitoring.metrics_port = 9400;
    const YAML::Node job = render(plan);
    const YAML::Node specs = job["spec"][mpi ? "mpiReplicaSpecs" : "pytorchReplicaSpecs"];
    // The coordinator runs on node rank 0: the Master pod, or an MPIJob's first Worker pod,
    // whose template the other Workers share (so they are not annotated for scraping).
    const std::string served = mpi ? "Worker" : "Master";
    int declared = 0;
    for (const auto& entry : specs) {
      const std::string type = entry.first.as<std::string>();
      const YAML::Node pod = entry.second["template"];
      const YAML::Node ports = pod["spec"]["containers"][0]["ports"];
      if (type != served) {
        CHECK_FALSE(ports.IsDefined());
        CHECK_FALSE((pod["metadata"].IsDefined() && pod["metadata"]["annotations"].IsDefined()));
        continue;
      }
      ++declared;
      REQUIRE(ports.IsSequence());
      CHECK(ports[0]["name"].as<std::string>() == "metrics");
      CHECK(ports[0]["containerPort"].as<int>() == 9400);
      if (mpi) {
        CHECK_FALSE((pod["metadata"].IsDefined() && pod["metadata"]["annotations"].IsDefined()));
        continue;
      }
      CHECK(pod["metadata"]["annotations"]["prometheus.io/scrape"].as<std::string>() == "true");
      CHECK(pod["metadata"]["annotations"]["prometheus.io/port"].as<std::string>() == "9400");
    }
    CHECK(declared == 1);
  }
  // Without a metrics port nothing is declared.
  const YAML::Node plain = render(make_test_plan(3, 8));
  CHECK_FALSE(
      plain["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]["containers"][0]["ports"]
          .IsDefined());
}

TEST_CASE("the manifest is deterministic") {
  const Plan pods = pai::plan_for_pods(make_test_plan());
  CHECK(pai::render_k8s_manifest(pods) == pai::render_k8s_manifest(pods));
}

TEST_CASE("a spec without an image gets a warning and the default image") {
  Plan plan = make_test_plan();
  plan.image.clear();
  Diagnostics diags;
  pai::check_for_k8s(plan, Location{"job.yaml", 0, 0}, diags);
  REQUIRE(diags.all().size() == 1);
  CHECK(diags.all()[0].severity == pai::Severity::Warning);
  CHECK(diags.all()[0].path == "image");
  CHECK(diags.all()[0].message ==
        "--target k8s: no image given; the pods use \"debian:12\", which has neither "
        "pai-launch nor your code");
  const YAML::Node job = render(plan);
  CHECK(job["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]["containers"][0]["image"]
            .as<std::string>() == "debian:12");
}

TEST_CASE("a mount named like a pai volume and several MPI launchers are errors") {
  Plan plan = make_mpi_plan();
  plan.mounts[0].name = "pai-shm";
  plan.roles[1].instances = 2;
  Diagnostics diags;
  pai::check_for_k8s(plan, Location{"job.yaml", 0, 0}, diags);
  REQUIRE(diags.all().size() == 2);
  CHECK(diags.all()[0].path == "mounts[0].name");
  CHECK(diags.all()[0].message ==
        "--target k8s: \"pai-shm\" is the name of a volume pai-compile adds");
  CHECK(diags.all()[1].path == "roles.launcher.instances");
  CHECK(diags.all()[1].message == "--target k8s: an MPIJob has one launcher, got 2");
}

TEST_CASE("a valid plan has no k8s findings") {
  Diagnostics diags;
  pai::check_for_k8s(make_test_plan(), Location{"job.yaml", 0, 0}, diags);
  CHECK(diags.all().empty());
}

TEST_CASE("a time limit becomes runPolicy.activeDeadlineSeconds past pai's own stop") {
  Plan plan = make_test_plan(2, 1);
  CHECK_FALSE(render(plan)["spec"]["runPolicy"]["activeDeadlineSeconds"]);
  plan.time_limit_seconds = 600;
  plan.fault_tolerance.grace_period_seconds = 30;
  plan.fault_tolerance.checkpoint_wait_seconds = 60;
  CHECK(render(plan)["spec"]["runPolicy"]["activeDeadlineSeconds"].as<long long>() == 750);
}

namespace {

YAML::Node pod_spec(const YAML::Node& job, const std::string& type) {
  const char* specs =
      job["kind"].as<std::string>() == "MPIJob" ? "mpiReplicaSpecs" : "pytorchReplicaSpecs";
  return job["spec"][specs][type]["template"]["spec"];
}

}  // namespace

TEST_CASE("a RoCE job's rank pods get the RDMA device, IPC_LOCK and the host network") {
  // The test plan's fabric is RoCE and its network auto: host network.
  const YAML::Node job = render(make_mpi_plan());
  const YAML::Node worker = pod_spec(job, "Worker");
  const YAML::Node c = worker["containers"][0];
  CHECK(c["resources"]["limits"]["rdma/rdma_shared_device_a"].as<int>() == 1);
  CHECK(strings(c["securityContext"]["capabilities"]["add"]) ==
        std::vector<std::string>{"IPC_LOCK"});
  CHECK(worker["hostNetwork"].as<bool>());
  CHECK(worker["dnsPolicy"].as<std::string>() == "ClusterFirstWithHostNet");
  // No two of the job's host-network pods on one node: they would share its ports.
  const YAML::Node term =
      worker["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0];
  CHECK(term["topologyKey"].as<std::string>() == "kubernetes.io/hostname");
  CHECK(term["labelSelector"]["matchLabels"]["pai-compile/job"].as<std::string>() == "test-job");
  CHECK(
      job["spec"]["mpiReplicaSpecs"]["Worker"]["template"]["metadata"]["labels"]["pai-compile/job"]
          .as<std::string>() == "test-job");
  // The MPI launcher holds no rank: no RDMA, no host network.
  const YAML::Node launcher = pod_spec(job, "Launcher");
  CHECK_FALSE(launcher["hostNetwork"].IsDefined());
  CHECK_FALSE(launcher["affinity"].IsDefined());
  CHECK_FALSE(launcher["containers"][0]["securityContext"].IsDefined());
  CHECK_FALSE(launcher["containers"][0]["resources"]["limits"]["rdma/rdma_shared_device_a"]);
}

TEST_CASE("the RDMA resource and count come from the spec - IB gets them too") {
  Plan plan = make_test_plan(2, 1);
  plan.fabric = pai::Fabric{pai::FabricType::Ib, "ib0", {"mlx5_0"}, -1, -1};
  plan.kubernetes.rdma_resource = "rdma/hca";
  plan.kubernetes.rdma_count = 2;
  const YAML::Node c = pod_spec(render(plan), "Master")["containers"][0];
  CHECK(c["resources"]["limits"]["rdma/hca"].as<int>() == 2);
  CHECK_FALSE(c["resources"]["limits"]["rdma/rdma_shared_device_a"]);
}

TEST_CASE("an Ethernet job gets no RDMA, no IPC_LOCK and the pod network") {
  Plan plan = make_test_plan(2, 1);
  plan.fabric = pai::Fabric{pai::FabricType::Ethernet, "eth0", {}, -1, -1};
  const YAML::Node job = render(plan);
  const YAML::Node pod = pod_spec(job, "Worker");
  CHECK_FALSE(pod["hostNetwork"].IsDefined());
  CHECK_FALSE(pod["containers"][0]["securityContext"].IsDefined());
  CHECK(pod["containers"][0]["resources"]["limits"].size() == 3);  // cpu, memory, gpu
  CHECK_FALSE(job["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["metadata"].IsDefined());
}

TEST_CASE("network pod keeps RDMA off the host network - multus annotates the rank pods") {
  Plan plan = make_mpi_plan();
  plan.kubernetes.network = pai::PodNetwork::Pod;
  YAML::Node job = render(plan);
  CHECK_FALSE(pod_spec(job, "Worker")["hostNetwork"].IsDefined());
  CHECK(pod_spec(job, "Worker")["containers"][0]["resources"]["limits"]["rdma/rdma_shared_device_a"]
            .as<int>() == 1);

  plan.kubernetes.network = pai::PodNetwork::Multus;
  plan.kubernetes.networks = {"roce-a", "kube-system/roce-b@net2"};
  job = render(plan);
  CHECK_FALSE(pod_spec(job, "Worker")["hostNetwork"].IsDefined());
  const YAML::Node specs = job["spec"]["mpiReplicaSpecs"];
  CHECK(specs["Worker"]["template"]["metadata"]["annotations"]["k8s.v1.cni.cncf.io/networks"]
            .as<std::string>() == "roce-a,kube-system/roce-b@net2");
  CHECK_FALSE(specs["Launcher"]["template"]["metadata"].IsDefined());
}

TEST_CASE("every pod with GPUs gets /dev/shm in memory, sized by the role or the spec") {
  Plan plan = make_test_plan(2, 1);
  plan.roles[0].resources.shm_bytes = 0;  // worker: 8 GPUs, no shm stated
  YAML::Node pod = pod_spec(render(plan), "Master");
  REQUIRE(pod["volumes"][1]["name"].as<std::string>() == "pai-shm");
  CHECK(pod["volumes"][1]["emptyDir"]["medium"].as<std::string>() == "Memory");
  CHECK_FALSE(pod["volumes"][1]["emptyDir"]["sizeLimit"].IsDefined());
  CHECK(pod["containers"][0]["volumeMounts"][1]["mountPath"].as<std::string>() == "/dev/shm");

  plan.kubernetes.shm_bytes = 16ll << 30;
  pod = pod_spec(render(plan), "Master");
  CHECK(pod["volumes"][1]["emptyDir"]["sizeLimit"].as<std::string>() == "16Gi");

  plan.roles[0].resources.shm_bytes = 32ll << 30;  // the role's own size wins
  pod = pod_spec(render(plan), "Master");
  CHECK(pod["volumes"][1]["emptyDir"]["sizeLimit"].as<std::string>() == "32Gi");

  // ps alone (no GPUs, no shm) gets none: make it the only Worker role.
  Plan cpu = make_test_plan(1, 1);
  pod = pod_spec(render(cpu), "Worker");
  for (const YAML::Node& volume : pod["volumes"]) {
    CHECK(volume["name"].as<std::string>() != "pai-shm");
  }
}

TEST_CASE("ttl and gang scheduling go to runPolicy") {
  Plan plan = make_test_plan(3, 1);
  YAML::Node run = render(plan)["spec"]["runPolicy"];
  CHECK_FALSE(run["ttlSecondsAfterFinished"].IsDefined());
  CHECK_FALSE(run["schedulingPolicy"].IsDefined());
  plan.kubernetes.ttl_seconds = 0;
  plan.kubernetes.gang = true;
  run = render(plan)["spec"]["runPolicy"];
  CHECK(run["ttlSecondsAfterFinished"].as<int>() == 0);
  // Every pod by default: 3 workers and ps.
  CHECK(run["schedulingPolicy"]["minAvailable"].as<int>() == 4);
  CHECK_FALSE(run["schedulingPolicy"]["queue"].IsDefined());
  plan.kubernetes.min_available = 2;
  plan.kubernetes.queue = "research";
  plan.kubernetes.priority_class = "high";
  run = render(plan)["spec"]["runPolicy"];
  CHECK(run["schedulingPolicy"]["minAvailable"].as<int>() == 2);
  CHECK(run["schedulingPolicy"]["queue"].as<std::string>() == "research");
  CHECK(run["schedulingPolicy"]["priorityClass"].as<std::string>() == "high");
}

TEST_CASE("node selector, tolerations, pull secrets and claims reach every pod") {
  Plan plan = make_mpi_plan();
  plan.kubernetes.node_selector = {{"gpus", "8"}, {"pool", "train"}};
  plan.kubernetes.tolerations = {{"nvidia.com/gpu", "Exists", "", "NoSchedule", -1},
                                 {"dedicated", "Equal", "ml", "NoExecute", 300}};
  plan.kubernetes.image_pull_secrets = {"regcred"};
  plan.kubernetes.volumes = {{"ckpt", "ckpt-pvc", "/ckpt", false}, {"ds", "ds", "/ds", true}};
  const YAML::Node job = render(plan);
  for (const char* type : {"Launcher", "Worker"}) {
    INFO(type);
    const YAML::Node pod = pod_spec(job, type);
    // Quoted: "8" must stay a string for the API server.
    CHECK(pod["nodeSelector"]["gpus"].Tag() == "!");
    CHECK(pod["nodeSelector"]["gpus"].as<std::string>() == "8");
    CHECK(pod["nodeSelector"]["pool"].as<std::string>() == "train");
    REQUIRE(pod["tolerations"].size() == 2);
    CHECK(pod["tolerations"][0]["key"].as<std::string>() == "nvidia.com/gpu");
    CHECK(pod["tolerations"][0]["operator"].as<std::string>() == "Exists");
    CHECK_FALSE(pod["tolerations"][0]["value"].IsDefined());
    CHECK(pod["tolerations"][1]["value"].as<std::string>() == "ml");
    CHECK(pod["tolerations"][1]["tolerationSeconds"].as<int>() == 300);
    CHECK(pod["imagePullSecrets"][0]["name"].as<std::string>() == "regcred");
    const YAML::Node volumes = pod["volumes"];
    const YAML::Node ckpt = volumes[volumes.size() - 2];
    CHECK(ckpt["name"].as<std::string>() == "ckpt");
    CHECK(ckpt["persistentVolumeClaim"]["claimName"].as<std::string>() == "ckpt-pvc");
    CHECK_FALSE(ckpt["persistentVolumeClaim"]["readOnly"].IsDefined());
    CHECK(volumes[volumes.size() - 1]["persistentVolumeClaim"]["readOnly"].as<bool>());
    const YAML::Node mounts = pod["containers"][0]["volumeMounts"];
    CHECK(mounts[mounts.size() - 2]["mountPath"].as<std::string>() == "/ckpt");
    CHECK(mounts[mounts.size() - 1]["readOnly"].as<bool>());
  }
}

TEST_CASE("plan_for_pods names the pods as longest_pod_name counts them") {
  Plan plan = make_test_plan(11, 1);  // 11 workers + ps: master-0 and worker-0..10
  const Plan pods = pai::plan_for_pods(plan);
  CHECK(pods.placements.front().host.name == "test-job-master-0");
  CHECK(pods.placements.back().host.name == "test-job-worker-10");
  CHECK(pods.placements.back().host.name == pai::longest_pod_name(plan));
  const Plan mpi = pai::plan_for_pods(make_mpi_plan());  // 3 workers + the launcher
  CHECK(mpi.placements[2].host.name == "test-job-worker-2");
  CHECK(mpi.placements.back().host.name == "test-job-launcher");
}

TEST_CASE("under Trainer v2 the pods are JobSet's hosts, and spares become its restarts") {
  Plan plan = pai::testing::make_test_plan(2, 2);  // the default api, with one spare
  const Plan pods = pai::plan_for_pods(plan);
  REQUIRE(pods.placements.size() == 3);
  CHECK(pods.placements[0].host.name == "test-job-node-0-0");
  CHECK(pods.placements[0].host.address == "test-job-node-0-0.test-job");
  CHECK(pods.placements[2].host.name == "test-job-node-0-2");
  CHECK(pods.placements[2].role == "ps");
  CHECK(pods.coordinator.address == "test-job-node-0-0.test-job");
  CHECK(pods.spares.empty());
  CHECK(pods.kubernetes.jobset_max_restarts == 1);
  CHECK(pods.placements.back().host.name + pai::kPodRandomSuffix == pai::longest_pod_name(plan));
  // The v1 kinds keep no count: a lost pod fails the job.
  CHECK(pai::plan_for_pods(make_test_plan()).kubernetes.jobset_max_restarts == 0);
  // What is rendered follows the api.
  CHECK(pai::render_k8s_manifest(pods).find("kind: TrainJob\n") != std::string::npos);
  CHECK(pai::render_k8s_manifest(pai::plan_for_pods(make_test_plan())).find("kind: PyTorchJob\n") !=
        std::string::npos);
}

TEST_CASE("a job name starting with a digit is an error for Kubernetes") {
  Plan plan = make_test_plan();
  plan.name = "1job";
  Diagnostics diags;
  pai::check_for_k8s(plan, Location{"job.yaml", 0, 0}, diags);
  REQUIRE(diags.all().size() == 1);
  CHECK(diags.all()[0].path == "name");
  CHECK(diags.all()[0].message ==
        "--target k8s: \"1job\" starts with a digit; the training operators name Services "
        "after the job and its pods, and a Service name must start with a letter");
}

TEST_CASE("pod_network resolves auto by the fabric") {
  Plan plan = make_test_plan();
  CHECK(pai::pod_network(plan) == pai::PodNetwork::Host);  // RoCE
  plan.fabric.type = pai::FabricType::Ib;
  CHECK(pai::pod_network(plan) == pai::PodNetwork::Host);
  plan.fabric.type = pai::FabricType::Ethernet;
  CHECK(pai::pod_network(plan) == pai::PodNetwork::Pod);
  plan.fabric.type = pai::FabricType::None;
  CHECK(pai::pod_network(plan) == pai::PodNetwork::Pod);
  plan.kubernetes.network = pai::PodNetwork::Host;
  CHECK(pai::pod_network(plan) == pai::PodNetwork::Host);
}

}  // namespace k8s_manifest_test
