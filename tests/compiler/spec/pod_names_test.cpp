#include "compiler/spec/pod_names.h"

#include <catch2/catch.hpp>

#include "support/plan_fixture.h"

namespace pod_names_test {

using pai::Plan;
using pai::testing::make_test_plan;

TEST_CASE("pods are named after the job: launcher, master-0 and workers by index") {
  CHECK(pai::launcher_pod_name("job") == "job-launcher");
  CHECK(pai::master_pod_name("job") == "job-master-0");
  CHECK(pai::worker_pod_name("job", 0) == "job-worker-0");
  CHECK(pai::worker_pod_name("job", 12) == "job-worker-12");
}

TEST_CASE("JobSet's host names are <job>-<replicated job>-<job index>-<pod index>") {
  CHECK(pai::jobset_host_name("job", "node", 0) == "job-node-0-0");
  CHECK(pai::jobset_host_name("job", "launcher", 12) == "job-launcher-0-12");
}

TEST_CASE("the longest pod name takes the largest worker index") {
  Plan plan = make_test_plan(11, 1);  // 11 workers + ps: master-0 and worker-0..10
  plan.kubernetes.api = pai::KubernetesApi::PyTorchJob;
  CHECK(pai::longest_pod_name(plan) == "test-job-worker-10");
  plan.roles[0].instances = 1;  // master-0 and worker-0 (ps): as long as each other
  CHECK(pai::longest_pod_name(plan).size() == std::string("test-job-master-0").size());
  // An MPI job: its "ps" role becomes the launcher, which has a pod of its own.
  Plan mpi = make_test_plan(3, 8);
  mpi.framework = pai::Framework::Mpi;
  mpi.kubernetes.api = pai::KubernetesApi::MpiJob;
  mpi.roles[1].name = "launcher";
  CHECK(pai::longest_pod_name(mpi) == "test-job-launcher");
  mpi.roles[0].instances = 1000;
  CHECK(pai::longest_pod_name(mpi) == "test-job-worker-999");
  // Without a launcher role every MPI instance is a worker.
  mpi.roles[1].name = "ps";
  CHECK(pai::longest_pod_name(mpi) == "test-job-worker-1000");
}

TEST_CASE("under Trainer v2 the longest pod name is a JobSet pod's, its random suffix counted") {
  Plan plan = make_test_plan(11, 1);  // 12 pods: node-0-0..node-0-11
  CHECK(pai::longest_pod_name(plan) == "test-job-node-0-11-xxxxx");
  plan.roles[0].instances = 8;  // node-0-0..node-0-8
  CHECK(pai::longest_pod_name(plan) == "test-job-node-0-8-xxxxx");
  // An MPI job's launcher is a replicated job of its own, longer than node-0-<one digit>.
  Plan mpi = make_test_plan(3, 8);
  mpi.framework = pai::Framework::Mpi;
  mpi.roles[1].name = "launcher";
  CHECK(pai::longest_pod_name(mpi) == "test-job-launcher-0-0-xxxxx");
  mpi.roles[0].instances = 1000000;
  CHECK(pai::longest_pod_name(mpi) == "test-job-node-0-999999-xxxxx");
}

}  // namespace pod_names_test
