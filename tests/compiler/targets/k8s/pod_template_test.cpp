#include "compiler/targets/k8s/pod_template.h"

#include <catch2/catch.hpp>

#include "compiler/targets/k8s/k8s_manifest.h"
#include "support/plan_fixture.h"

namespace pod_template_test {

using pai::Plan;
using pai::PodController;
using pai::PodGroup;
using pai::Yaml;

namespace {

// The test plan in pods: 2 workers and ps, RoCE, Trainer v2 unless `api` says otherwise.
Plan pods(pai::KubernetesApi api = pai::KubernetesApi::TrainerV2) {
  Plan plan = pai::testing::make_test_plan(2, 2);
  plan.kubernetes.api = api;
  return pai::plan_for_pods(plan);
}

// The value at `path` ("spec.containers"), keys only; nullptr when absent.
const Yaml* at(const Yaml& node, const std::string& path) {
  const Yaml* here = &node;
  std::size_t start = 0;
  while (here && start <= path.size()) {
    const std::size_t dot = path.find('.', start);
    here = here->find(path.substr(start, dot == std::string::npos ? dot : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return here;
}

std::vector<std::string> texts(const Yaml& seq) {
  std::vector<std::string> out;
  for (const Yaml& item : seq.items()) out.push_back(item.text());
  return out;
}

}  // namespace

TEST_CASE("JobSet runs every instance in `node`, an MPI launcher in `launcher`") {
  const Plan plan = pods();
  const std::vector<PodGroup> groups = pai::pod_groups(plan, PodController::JobSet);
  REQUIRE(groups.size() == 1);
  CHECK(groups[0].name == "node");
  CHECK(groups[0].replicas == 3);
  CHECK(groups[0].roles.size() == 2);
  CHECK(groups[0].coordinator);
  CHECK(groups[0].ranks);

  Plan mpi = pai::testing::make_test_plan(3, 8);
  mpi.framework = pai::Framework::Mpi;
  mpi.roles[1].name = "launcher";
  const std::vector<PodGroup> mpi_groups =
      pai::pod_groups(pai::plan_for_pods(mpi), PodController::JobSet);
  REQUIRE(mpi_groups.size() == 2);
  CHECK(mpi_groups[0].name == "launcher");
  CHECK(mpi_groups[0].replicas == 1);
  CHECK_FALSE(mpi_groups[0].ranks);
  CHECK(mpi_groups[1].name == "node");
  CHECK(mpi_groups[1].replicas == 3);

  const std::vector<PodGroup> kubeflow =
      pai::pod_groups(pods(pai::KubernetesApi::PyTorchJob), PodController::Kubeflow);
  REQUIRE(kubeflow.size() == 2);
  CHECK(kubeflow[0].name == "Master");
  CHECK(kubeflow[1].name == "Worker");
}

TEST_CASE("a JobSet pod finds its host from its job and completion indexes") {
  const Plan plan = pods();
  const PodGroup group = pai::pod_groups(plan, PodController::JobSet).at(0);
  const Yaml pod = pai::pod_template(plan, group, PodController::JobSet);
  const Yaml& c = at(pod, "spec.containers")->items().at(0);
  CHECK(c.find("name")->text() == "node");
  CHECK(texts(*c.find("command")) ==
        std::vector<std::string>{"pai-launch", "run", "--plan", "/etc/pai/plan.json",
                                 "--token-file", "/etc/pai/job.token", "--node",
                                 "test-job-node-$(PAI_JOB_INDEX)-$(PAI_POD_INDEX)"});
  const Yaml& env = *c.find("env");
  CHECK(env.items().at(0).find("name")->text() == "PAI_JOB_INDEX");
  CHECK(at(env.items().at(0), "valueFrom.fieldRef.fieldPath")->text() ==
        "metadata.labels['jobset.sigs.k8s.io/job-index']");
  CHECK(env.items().at(1).find("name")->text() == "PAI_POD_INDEX");
  CHECK(at(env.items().at(1), "valueFrom.fieldRef.fieldPath")->text() ==
        "metadata.annotations['batch.kubernetes.io/job-completion-index']");
  // worker's PYTHONUNBUFFERED is not ps' too: the shared template leaves it to the plan.
  CHECK(env.items().size() == 2);
  // No container restarts, and time for pai-launch's stop after SIGTERM.
  CHECK(at(pod, "spec.restartPolicy")->text() == "Never");
  CHECK(at(pod, "spec.terminationGracePeriodSeconds")->number() ==
        plan.fault_tolerance.grace_period_seconds + plan.fault_tolerance.checkpoint_wait_seconds +
            60);
  // The v1 template has neither: the operators set the restart policy per replica.
  const Plan v1 = pods(pai::KubernetesApi::PyTorchJob);
  const Yaml master = pai::pod_template(v1, pai::pod_groups(v1, PodController::Kubeflow).at(0),
                                        PodController::Kubeflow);
  CHECK(at(master, "spec.restartPolicy") == nullptr);
  CHECK(at(master, "spec.terminationGracePeriodSeconds") == nullptr);
  CHECK(at(master, "spec.containers")->items().at(0).find("name")->text() == "pytorch");
}

TEST_CASE("RDMA, host network and /dev/shm are carried into JobSet's pods") {
  const Plan plan = pods();
  const Yaml pod = pai::pod_template(plan, pai::pod_groups(plan, PodController::JobSet).at(0),
                                     PodController::JobSet);
  CHECK(at(pod, "spec.hostNetwork")->flag());
  CHECK(at(pod, "spec.dnsPolicy")->text() == "ClusterFirstWithHostNet");
  // The label by which the job's pods keep off each other's nodes.
  CHECK(at(pod, "metadata.labels.pai-compile/job")->text() == "test-job");
  const Yaml& c = at(pod, "spec.containers")->items().at(0);
  const Yaml& limits = *at(c, "resources.limits");
  CHECK(limits.find("rdma/rdma_shared_device_a")->number() == 1);
  CHECK(texts(*at(c, "securityContext.capabilities.add")) == std::vector<std::string>{"IPC_LOCK"});
  bool shm = false;
  for (const Yaml& m : c.find("volumeMounts")->items()) {
    shm = shm || m.find("mountPath")->text() == "/dev/shm";
  }
  CHECK(shm);
}

TEST_CASE("Kueue's topology annotation and Volcano's scheduler reach every pod template") {
  Plan plan = pai::testing::make_test_plan(2, 2);
  plan.kubernetes.kueue_queue = "team-a";
  plan.kubernetes.topology_required = "cloud.example.com/block";
  plan.kubernetes.scheduler = pai::PodScheduler::Volcano;
  plan.kubernetes.gang = true;
  plan.kubernetes.priority_class = "high";
  for (const auto api : {pai::KubernetesApi::TrainerV2, pai::KubernetesApi::PyTorchJob}) {
    plan.kubernetes.api = api;
    const Plan in_pods = pai::plan_for_pods(plan);
    const PodController controller =
        api == pai::KubernetesApi::TrainerV2 ? PodController::JobSet : PodController::Kubeflow;
    for (const PodGroup& group : pai::pod_groups(in_pods, controller)) {
      const Yaml pod = pai::pod_template(in_pods, group, controller);
      const Yaml* annotations = at(pod, "metadata.annotations");
      REQUIRE(annotations != nullptr);
      CHECK(annotations->find("kueue.x-k8s.io/podset-required-topology")->text() ==
            "cloud.example.com/block");
      CHECK(annotations->find("kueue.x-k8s.io/podset-preferred-topology") == nullptr);
      CHECK(at(pod, "spec.schedulerName")->text() == "volcano");
      // Trainer's PodGroup reads the PriorityClass from the pods; the v1 operators from
      // runPolicy.schedulingPolicy.
      const Yaml* priority = at(pod, "spec.priorityClassName");
      if (controller == PodController::JobSet) {
        REQUIRE(priority != nullptr);
        CHECK(priority->text() == "high");
      } else {
        CHECK(priority == nullptr);
      }
    }
  }
  plan.kubernetes = pai::Kubernetes{};
  plan.kubernetes.topology_preferred = "kubernetes.io/hostname";
  const Plan preferred = pai::plan_for_pods(plan);
  const Yaml pod = pai::pod_template(
      preferred, pai::pod_groups(preferred, PodController::JobSet).at(0), PodController::JobSet);
  CHECK(at(pod, "metadata.annotations")->find("kueue.x-k8s.io/podset-preferred-topology")->text() ==
        "kubernetes.io/hostname");
  CHECK(at(pod, "spec.schedulerName") == nullptr);
}

}  // namespace pod_template_test
