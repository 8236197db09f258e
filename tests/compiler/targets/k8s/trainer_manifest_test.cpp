#include "compiler/targets/k8s/trainer_manifest.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <set>

#include "compiler/targets/k8s/k8s_manifest.h"
#include "libpai/exit_codes.h"
#include "support/plan_fixture.h"

namespace trainer_manifest_test {

using pai::Plan;
using pai::testing::make_test_plan;

namespace {

struct Manifest {
  YAML::Node runtime;
  YAML::Node train_job;
};

Manifest render(const Plan& plan) {
  const std::vector<YAML::Node> docs =
      YAML::LoadAll(pai::render_trainjob(pai::plan_for_pods(plan)));
  REQUIRE(docs.size() == 2);
  return Manifest{docs[0], docs[1]};
}

Plan make_mpi_plan() {
  Plan plan = make_test_plan(3, 8);
  plan.framework = pai::Framework::Mpi;
  plan.roles[1].name = "launcher";
  pai::place(plan, plan.hosts);
  return plan;
}

// `text` with every $(NAME) replaced by env[NAME], as the kubelet expands a container's
// command; a name `env` lacks stays as written.
std::string expand(const std::string& text, const std::map<std::string, std::string>& env) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t end = text.find(')', i);
    if (text.compare(i, 2, "$(") == 0 && end != std::string::npos &&
        env.count(text.substr(i + 2, end - i - 2))) {
      out += env.at(text.substr(i + 2, end - i - 2));
      i = end + 1;
    } else {
      out += text[i++];
    }
  }
  return out;
}

// What the downward API gives a container's env of pod `pod_index` of Job `job_index`: JobSet
// labels the pod with its Job's index, the Job controller annotates it with its completion
// index (kubernetes-sigs/jobset labelAndAnnotateObject; the Indexed Job).
std::map<std::string, std::string> downward_env(const YAML::Node& env, int job_index,
                                                int pod_index) {
  const std::map<std::string, std::string> fields = {
      {"metadata.labels['jobset.sigs.k8s.io/job-index']", std::to_string(job_index)},
      {"metadata.annotations['batch.kubernetes.io/job-completion-index']",
       std::to_string(pod_index)}};
  std::map<std::string, std::string> out;
  for (const YAML::Node& var : env) {
    if (!var["valueFrom"]) continue;
    const std::string field = var["valueFrom"]["fieldRef"]["fieldPath"].as<std::string>();
    REQUIRE(fields.count(field) == 1);
    out[var["name"].as<std::string>()] = fields.at(field);
  }
  return out;
}

}  // namespace

TEST_CASE("a TrainJob refers to the job's own runtime, which sizes the trainer job") {
  const Manifest m = render(make_test_plan(2, 2));
  CHECK(m.runtime["apiVersion"].as<std::string>() == "trainer.kubeflow.org/v1alpha1");
  CHECK(m.runtime["kind"].as<std::string>() == "TrainingRuntime");
  CHECK(m.runtime["metadata"]["name"].as<std::string>() == "test-job-pai-distributed");
  CHECK(m.runtime["spec"]["mlPolicy"]["numNodes"].as<int>() == 3);
  CHECK(m.train_job["kind"].as<std::string>() == "TrainJob");
  CHECK(m.train_job["metadata"]["name"].as<std::string>() == "test-job");
  const YAML::Node ref = m.train_job["spec"]["runtimeRef"];
  CHECK(ref["apiGroup"].as<std::string>() == "trainer.kubeflow.org");
  CHECK(ref["kind"].as<std::string>() == "TrainingRuntime");
  CHECK(ref["name"].as<std::string>() == pai::trainer_runtime_name("test-job"));
  CHECK(m.train_job["spec"]["trainer"]["numNodes"].as<int>() == 3);
  const YAML::Node rjobs = m.runtime["spec"]["template"]["spec"]["replicatedJobs"];
  REQUIRE(rjobs.size() == 1);
  CHECK(rjobs[0]["name"].as<std::string>() == "node");
  CHECK(rjobs[0]["replicas"].as<int>() == 1);
  CHECK(rjobs[0]["template"]["metadata"]["labels"]["trainer.kubeflow.org/trainjob-ancestor-step"]
            .as<std::string>() == "trainer");
  const YAML::Node job = rjobs[0]["template"]["spec"];
  CHECK(job["completionMode"].as<std::string>() == "Indexed");
  CHECK(job["parallelism"].as<int>() == 3);
  CHECK(job["completions"].as<int>() == 3);
  // A cluster-wide runtime on request.
  Plan cluster = make_test_plan(2, 2);
  cluster.kubernetes.runtime_kind = pai::TrainingRuntimeKind::Cluster;
  const Manifest c = render(cluster);
  CHECK(c.runtime["kind"].as<std::string>() == "ClusterTrainingRuntime");
  CHECK(c.train_job["spec"]["runtimeRef"]["kind"].as<std::string>() == "ClusterTrainingRuntime");
}

TEST_CASE("every pod's --node is the host name JobSet gives it, a host of the plan") {
  for (const Plan& plan : {make_test_plan(4, 1), make_mpi_plan()}) {
    const Plan in_pods = pai::plan_for_pods(plan);
    const Manifest m = render(plan);
    const std::string jobset = m.train_job["metadata"]["name"].as<std::string>();
    const YAML::Node spec = m.runtime["spec"]["template"]["spec"];
    // DNS host names on, under the JobSet's own headless Service unless it names another.
    REQUIRE(spec["network"]["enableDNSHostnames"].as<bool>());
    const std::string subdomain =
        spec["network"]["subdomain"] ? spec["network"]["subdomain"].as<std::string>() : jobset;
    std::set<std::string> seen;
    for (const YAML::Node& rjob : spec["replicatedJobs"]) {
      const std::string name = rjob["name"].as<std::string>();
      const YAML::Node container = rjob["template"]["spec"]["template"]["spec"]["containers"][0];
      const std::string node = container["command"][7].as<std::string>();
      REQUIRE(container["command"][6].as<std::string>() == "--node");
      for (int job = 0; job < rjob["replicas"].as<int>(); ++job) {
        for (int pod = 0; pod < rjob["template"]["spec"]["completions"].as<int>(); ++pod) {
          const std::string host = expand(node, downward_env(container["env"], job, pod));
          CHECK(host ==
                jobset + "-" + name + "-" + std::to_string(job) + "-" + std::to_string(pod));
          const auto it = std::find_if(in_pods.hosts.begin(), in_pods.hosts.end(),
                                       [&](const pai::Host& h) { return h.name == host; });
          REQUIRE(it != in_pods.hosts.end());
          CHECK(it->address == host + "." + subdomain);
          seen.insert(host);
        }
      }
    }
    CHECK(seen.size() == in_pods.hosts.size());
  }
}

TEST_CASE("pai-launch's verdicts fail the JobSet, other pod failures recreate it, spares times") {
  Plan plan = make_test_plan(2, 2);  // one spare
  const Manifest m = render(plan);
  const YAML::Node spec = m.runtime["spec"]["template"]["spec"];
  const YAML::Node job = spec["replicatedJobs"][0]["template"]["spec"];
  CHECK(job["backoffLimit"].as<int>() == 0);
  CHECK(job["template"]["spec"]["restartPolicy"].as<std::string>() == "Never");
  const YAML::Node rule = job["podFailurePolicy"]["rules"][0];
  CHECK(job["podFailurePolicy"]["rules"].size() == 1);
  CHECK(rule["action"].as<std::string>() == "FailJob");
  CHECK(rule["onExitCodes"]["operator"].as<std::string>() == "In");
  CHECK(rule["onExitCodes"]["containerName"].as<std::string>() ==
        job["template"]["spec"]["containers"][0]["name"].as<std::string>());
  CHECK(rule["onExitCodes"]["values"].as<std::vector<int>>() ==
        std::vector<int>{1, 2, 126, 127, 129, 130, 143});
  const YAML::Node failure = spec["failurePolicy"];
  CHECK(failure["maxRestarts"].as<int>() == 1);
  REQUIRE(failure["rules"].size() == 2);
  CHECK(failure["rules"][0]["action"].as<std::string>() == "FailJobSet");
  CHECK(failure["rules"][0]["onJobFailureReasons"].as<std::vector<std::string>>() ==
        std::vector<std::string>{"PodFailurePolicy"});
  CHECK(failure["rules"][1]["action"].as<std::string>() == "RestartJobSet");
  CHECK(failure["rules"][1]["onJobFailureReasons"].as<std::vector<std::string>>() ==
        std::vector<std::string>{"BackoffLimitExceeded"});
  CHECK(spec["successPolicy"]["operator"].as<std::string>() == "All");
  // No restarts at all: no recreation either.
  plan.fault_tolerance.restart_enabled = false;
  CHECK(
      render(plan).runtime["spec"]["template"]["spec"]["failurePolicy"]["maxRestarts"].as<int>() ==
      0);
  CHECK(pai::plan_for_pods(plan).kubernetes.jobset_max_restarts == 0);
}

TEST_CASE("a lost coordinator's exit 3 recreates the JobSet - at least once without spares") {
  Plan plan = make_test_plan(2, 2);
  plan.spares.clear();
  const Manifest m = render(plan);
  const YAML::Node spec = m.runtime["spec"]["template"]["spec"];
  const YAML::Node rules =
      spec["replicatedJobs"][0]["template"]["spec"]["podFailurePolicy"]["rules"];
  REQUIRE(rules.size() == 1);
  // Exit 3 is no FailJob code: the pod's Job fails as BackoffLimitExceeded, which the JobSet
  // answers with RestartJobSet; the verdicts still fail it.
  const std::vector<int> fail_job = rules[0]["onExitCodes"]["values"].as<std::vector<int>>();
  CHECK(std::find(fail_job.begin(), fail_job.end(), pai::kExitCoordinatorLost) == fail_job.end());
  CHECK(fail_job ==
        std::vector<int>(pai::kPaiVerdictExitCodes.begin(), pai::kPaiVerdictExitCodes.end()));
  CHECK(spec["failurePolicy"]["rules"][1]["action"].as<std::string>() == "RestartJobSet");
  // A JobSet restart replaces the lost node, spares or not: one restart without spares.
  CHECK(spec["failurePolicy"]["maxRestarts"].as<int>() == 1);
  CHECK(pai::plan_for_pods(plan).kubernetes.jobset_max_restarts == 1);
  // Each spare adds one.
  plan.spares = {pai::Host{"spare-0", "10.0.1.1", 8}, pai::Host{"spare-1", "10.0.1.2", 8}};
  CHECK(pai::plan_for_pods(plan).kubernetes.jobset_max_restarts == 2);
}

TEST_CASE("the time limit, the TTL and Kueue's queue reach the TrainJob and its JobSet") {
  Plan plan = make_test_plan(2, 2);
  const Manifest plain = render(plan);
  CHECK_FALSE(plain.train_job["spec"]["activeDeadlineSeconds"]);
  CHECK_FALSE(plain.train_job["spec"]["suspend"]);
  CHECK_FALSE(plain.train_job["metadata"]["labels"]["kueue.x-k8s.io/queue-name"]);
  CHECK_FALSE(plain.runtime["spec"]["template"]["spec"]["ttlSecondsAfterFinished"]);
  CHECK_FALSE(plain.runtime["spec"]["podGroupPolicy"]);
  plan.time_limit_seconds = 3600;
  plan.kubernetes.ttl_seconds = 600;
  plan.kubernetes.kueue_queue = "team-a";
  const Manifest m = render(plan);
  CHECK(m.train_job["spec"]["activeDeadlineSeconds"].as<std::int64_t>() ==
        3600 + plan.fault_tolerance.grace_period_seconds +
            plan.fault_tolerance.checkpoint_wait_seconds + 60);
  CHECK(m.train_job["spec"]["suspend"].as<bool>());
  CHECK(m.train_job["metadata"]["labels"]["kueue.x-k8s.io/queue-name"].as<std::string>() ==
        "team-a");
  CHECK(m.runtime["spec"]["template"]["spec"]["ttlSecondsAfterFinished"].as<int>() == 600);
}

TEST_CASE("a gang is Trainer's PodGroup: Volcano's with its queue, else scheduler-plugins'") {
  Plan plan = make_test_plan(2, 2);
  plan.kubernetes.scheduler = pai::PodScheduler::Volcano;
  plan.kubernetes.gang = true;
  plan.kubernetes.queue = "research";
  const Manifest volcano = render(plan);
  CHECK(volcano.runtime["spec"]["podGroupPolicy"]["volcano"].IsMap());
  CHECK(volcano
            .runtime["spec"]["template"]["metadata"]["annotations"]
                    ["scheduling.volcano.sh/queue-name"]
            .as<std::string>() == "research");
  plan.kubernetes.scheduler = pai::PodScheduler::Default;
  plan.kubernetes.queue.clear();
  const Manifest coscheduling = render(plan);
  CHECK(coscheduling.runtime["spec"]["podGroupPolicy"]["coscheduling"].IsMap());
  CHECK_FALSE(coscheduling.runtime["spec"]["template"]["metadata"]);
}

TEST_CASE("an MPI job's launcher is a replicated job of its own, outside the trainer job") {
  const Manifest m = render(make_mpi_plan());
  const YAML::Node rjobs = m.runtime["spec"]["template"]["spec"]["replicatedJobs"];
  REQUIRE(rjobs.size() == 2);
  CHECK(rjobs[0]["name"].as<std::string>() == "launcher");
  CHECK_FALSE(rjobs[0]["template"]["metadata"]);
  CHECK(rjobs[0]["template"]["spec"]["parallelism"].as<int>() == 1);
  const YAML::Node launcher = rjobs[0]["template"]["spec"]["template"]["spec"]["containers"][0];
  CHECK_FALSE(launcher["resources"]["limits"]["nvidia.com/gpu"]);
  CHECK(rjobs[1]["name"].as<std::string>() == "node");
  CHECK(rjobs[1]["template"]["spec"]["parallelism"].as<int>() == 3);
  CHECK(m.runtime["spec"]["mlPolicy"]["numNodes"].as<int>() == 3);
  CHECK(m.train_job["spec"]["trainer"]["numNodes"].as<int>() == 3);
}

TEST_CASE("the manifest starts with the kubectl commands and is deterministic") {
  const Plan pods = pai::plan_for_pods(make_test_plan());
  const std::string text = pai::render_trainjob(pods);
  CHECK(
      text.starts_with("# test-job: Kubeflow Trainer v2 TrainJob and its TrainingRuntime "
                       "written by pai-compile; every pod runs pai-launch.\n"));
  CHECK(text.find("#   kubectl create configmap test-job-pai-plan --from-file=plan.json\n") !=
        std::string::npos);
  CHECK(text == pai::render_trainjob(pods));
  CHECK(text == pai::render_k8s_manifest(pods));
}

}  // namespace trainer_manifest_test
