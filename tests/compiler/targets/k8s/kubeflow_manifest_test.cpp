#include "compiler/targets/k8s/kubeflow_manifest.h"

#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>

#include "compiler/targets/k8s/k8s_manifest.h"
#include "support/plan_fixture.h"

namespace kubeflow_manifest_test {

using pai::Plan;

namespace {

Plan pytorch_job() {
  Plan plan = pai::testing::make_test_plan(2, 2);
  plan.kubernetes.api = pai::KubernetesApi::PyTorchJob;
  return plan;
}

YAML::Node render(const Plan& plan) {
  return YAML::Load(pai::render_kubeflow_job(pai::plan_for_pods(plan)));
}

}  // namespace

TEST_CASE("Kueue admits a v1 job it holds suspended, and reads topology from its pods") {
  Plan plan = pytorch_job();
  const YAML::Node plain = render(plan);
  CHECK_FALSE(plain["spec"]["runPolicy"]["suspend"]);
  CHECK_FALSE(plain["metadata"]["labels"]["kueue.x-k8s.io/queue-name"]);
  plan.kubernetes.kueue_queue = "team-a";
  plan.kubernetes.topology_preferred = "cloud.example.com/rack";
  const YAML::Node job = render(plan);
  CHECK(job["metadata"]["labels"]["kueue.x-k8s.io/queue-name"].as<std::string>() == "team-a");
  CHECK(job["metadata"]["labels"]["app.kubernetes.io/managed-by"].as<std::string>() ==
        "pai-compile");
  CHECK(job["spec"]["runPolicy"]["suspend"].as<bool>());
  for (const char* replica : {"Master", "Worker"}) {
    const YAML::Node annotations =
        job["spec"]["pytorchReplicaSpecs"][replica]["template"]["metadata"]["annotations"];
    CHECK(annotations["kueue.x-k8s.io/podset-preferred-topology"].as<std::string>() ==
          "cloud.example.com/rack");
  }
}

TEST_CASE("Volcano schedules every pod of a v1 job as one gang") {
  Plan plan = pytorch_job();
  plan.kubernetes.scheduler = pai::PodScheduler::Volcano;
  const YAML::Node job = render(plan);
  // No schedulingPolicy in the spec: the PodGroup holds every pod.
  CHECK(job["spec"]["runPolicy"]["schedulingPolicy"]["minAvailable"].as<int>() == 3);
  CHECK_FALSE(job["spec"]["runPolicy"]["schedulingPolicy"]["queue"]);
  CHECK(job["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]["schedulerName"]
            .as<std::string>() == "volcano");
  plan.kubernetes.gang = true;
  plan.kubernetes.min_available = 2;
  plan.kubernetes.queue = "research";
  const YAML::Node gang = render(plan);
  CHECK(gang["spec"]["runPolicy"]["schedulingPolicy"]["minAvailable"].as<int>() == 2);
  CHECK(gang["spec"]["runPolicy"]["schedulingPolicy"]["queue"].as<std::string>() == "research");
}

TEST_CASE("an MPIJob is written for the mpi framework, with its slots per worker") {
  Plan plan = pai::testing::make_test_plan(3, 8);
  plan.framework = pai::Framework::Mpi;
  plan.kubernetes.api = pai::KubernetesApi::MpiJob;
  plan.roles[1].name = "launcher";
  pai::place(plan, plan.hosts);
  const YAML::Node job = render(plan);
  CHECK(job["apiVersion"].as<std::string>() == "kubeflow.org/v2beta1");
  CHECK(job["kind"].as<std::string>() == "MPIJob");
  CHECK(job["spec"]["slotsPerWorker"].as<int>() == 8);
  CHECK(job["spec"]["mpiReplicaSpecs"]["Launcher"]["replicas"].as<int>() == 1);
  CHECK(job["spec"]["mpiReplicaSpecs"]["Worker"]["replicas"].as<int>() == 3);
}

}  // namespace kubeflow_manifest_test
