#include "compiler/targets/k8s/trainer_manifest.h"

#include <cstdint>
#include <vector>

#include "compiler/spec/pod_names.h"
#include "compiler/targets/k8s/k8s_manifest.h"
#include "compiler/targets/k8s/pod_template.h"
#include "compiler/targets/time_limit.h"
#include "libpai/exit_codes.h"

namespace pai {

namespace {

const char* const kTrainerApi = "trainer.kubeflow.org/v1alpha1";
// The label by which Trainer finds the replicated job a TrainJob's `trainer` settings (its
// numNodes above all) apply to.
const char* const kAncestorLabel = "trainer.kubeflow.org/trainjob-ancestor-step";
// Volcano's queue of the PodGroup Trainer creates, read from the runtime's template.
const char* const kVolcanoQueue = "scheduling.volcano.sh/queue-name";

int node_pods(const std::vector<PodGroup>& groups) {
  for (const PodGroup& g : groups) {
    if (g.name == kTrainerNodeJob) return g.replicas;
  }
  return 0;
}

// A pod failure with one of pai-launch's verdicts fails its Job at once (reason
// PodFailurePolicy); any other counts against backoffLimit 0, which fails the Job too
// (reason BackoffLimitExceeded). The JobSet's rules tell the two apart.
Yaml pod_failure_policy() {
  Yaml exit_codes = Yaml::map();
  exit_codes.set("containerName", "node");
  exit_codes.set("operator", "In");
  Yaml& values = exit_codes.set("values", Yaml::flow_seq());
  for (int code : kPaiVerdictExitCodes) values.add(Yaml::integer(code));
  Yaml rule = Yaml::map();
  rule.set("action", "FailJob");
  rule.set("onExitCodes", std::move(exit_codes));
  Yaml policy = Yaml::map();
  policy.set("rules", Yaml::seq()).add(std::move(rule));
  return policy;
}

Yaml replicated_job(const Plan& plan, const PodGroup& group) {
  Yaml rjob = Yaml::map();
  rjob.set("name", group.name);
  rjob.set("replicas", Yaml::integer(1));
  Yaml& job = rjob.set("template", Yaml::map());
  if (group.name == kTrainerNodeJob) {
    job.set("metadata", Yaml::map()).set("labels", Yaml::map()).set(kAncestorLabel, "trainer");
  }
  Yaml& spec = job.set("spec", Yaml::map());
  // One pod per index, each index one host of the plan.
  spec.set("completionMode", "Indexed");
  spec.set("parallelism", Yaml::integer(group.replicas));
  spec.set("completions", Yaml::integer(group.replicas));
  spec.set("backoffLimit", Yaml::integer(0));
  spec.set("podFailurePolicy", pod_failure_policy());
  spec.set("template", pod_template(plan, group, PodController::JobSet));
  return rjob;
}

// What happens to the JobSet when one of its Jobs failed (see trainer_manifest.h).
Yaml failure_policy(const Plan& plan) {
  Yaml policy = Yaml::map();
  policy.set("maxRestarts", Yaml::integer(plan.kubernetes.jobset_max_restarts));
  Yaml& rules = policy.set("rules", Yaml::seq());
  Yaml& verdict = rules.add(Yaml::map());
  verdict.set("name", "paiVerdict");
  verdict.set("action", "FailJobSet");
  verdict.set("onJobFailureReasons", Yaml::flow_seq()).add("PodFailurePolicy");
  Yaml& lost = rules.add(Yaml::map());
  lost.set("name", "podLost");
  lost.set("action", "RestartJobSet");
  lost.set("onJobFailureReasons", Yaml::flow_seq()).add("BackoffLimitExceeded");
  return policy;
}

Yaml runtime(const Plan& plan) {
  const Kubernetes& k = plan.kubernetes;
  const std::vector<PodGroup> groups = pod_groups(plan, PodController::JobSet);
  Yaml doc = Yaml::map();
  doc.set("apiVersion", kTrainerApi);
  doc.set("kind", to_string(k.runtime_kind));
  Yaml& metadata = doc.set("metadata", Yaml::map());
  metadata.set("name", trainer_runtime_name(plan.name));
  metadata.set("labels", Yaml::map()).set("app.kubernetes.io/managed-by", "pai-compile");
  Yaml& spec = doc.set("spec", Yaml::map());
  // No framework policy: pai-launch sets the env contract itself (Trainer's torch and MPI
  // policies would add their own rendezvous), so the runtime is Trainer's plain one.
  spec.set("mlPolicy", Yaml::map()).set("numNodes", Yaml::integer(node_pods(groups)));
  if (k.gang || k.scheduler == PodScheduler::Volcano) {
    // Trainer creates the PodGroup of every pod: Volcano's, else scheduler-plugins'.
    spec.set("podGroupPolicy", Yaml::map())
        .set(k.scheduler == PodScheduler::Volcano ? "volcano" : "coscheduling", Yaml::map());
  }
  Yaml& templ = spec.set("template", Yaml::map());
  if (!k.queue.empty()) {
    templ.set("metadata", Yaml::map()).set("annotations", Yaml::map()).set(kVolcanoQueue, k.queue);
  }
  Yaml& jobset = templ.set("spec", Yaml::map());
  Yaml& network = jobset.set("network", Yaml::map());
  network.set("enableDNSHostnames", Yaml::boolean(true));
  // The pods resolve each other before they are ready: the rendezvous comes first.
  network.set("publishNotReadyAddresses", Yaml::boolean(true));
  jobset.set("successPolicy", Yaml::map()).set("operator", "All");
  jobset.set("failurePolicy", failure_policy(plan));
  if (k.ttl_seconds >= 0) jobset.set("ttlSecondsAfterFinished", Yaml::integer(k.ttl_seconds));
  Yaml& rjobs = jobset.set("replicatedJobs", Yaml::seq());
  for (const PodGroup& group : groups) rjobs.add(replicated_job(plan, group));
  return doc;
}

Yaml train_job(const Plan& plan) {
  const Kubernetes& k = plan.kubernetes;
  Yaml doc = Yaml::map();
  doc.set("apiVersion", kTrainerApi);
  doc.set("kind", "TrainJob");
  Yaml& metadata = doc.set("metadata", Yaml::map());
  metadata.set("name", plan.name);
  metadata.set("labels", job_labels(plan));
  Yaml& spec = doc.set("spec", Yaml::map());
  Yaml& ref = spec.set("runtimeRef", Yaml::map());
  ref.set("apiGroup", "trainer.kubeflow.org");
  ref.set("kind", to_string(k.runtime_kind));
  ref.set("name", trainer_runtime_name(plan.name));
  spec.set("trainer", Yaml::map())
      .set("numNodes", Yaml::integer(node_pods(pod_groups(plan, PodController::JobSet))));
  if (const std::int64_t deadline = scheduler_deadline_seconds(plan); deadline > 0) {
    spec.set("activeDeadlineSeconds", Yaml::integer(deadline));
  }
  // Kueue admits a job it holds suspended, and unsuspends it.
  if (!k.kueue_queue.empty()) spec.set("suspend", Yaml::boolean(true));
  return doc;
}

}  // namespace

std::string trainer_runtime_name(const std::string& job) { return job + "-pai-distributed"; }

std::string render_trainjob(const Plan& plan) {
  const std::string what = std::string("Kubeflow Trainer v2 TrainJob and its ") +
                           to_string(plan.kubernetes.runtime_kind);
  return manifest_header(plan, what) + emit_yaml(runtime(plan)) + "\n---\n" +
         emit_yaml(train_job(plan)) + "\n";
}

}  // namespace pai
