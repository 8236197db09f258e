#include "compiler/targets/k8s/k8s_target.h"

#include "compiler/render/atomic_file.h"
#include "compiler/targets/k8s/k8s_manifest.h"

namespace pai {

std::string_view KubernetesTarget::name() const { return "k8s"; }

// Its findings are about the job as a whole: located at the spec's file.
void KubernetesTarget::check_plan(const Plan& plan, const JobSpec& spec, Diagnostics& diags) const {
  check_for_k8s(plan, Location{spec.where("").file, 0, 0}, diags);
}

// In pods the inventory is the pods' names and the pod is the container.
void KubernetesTarget::adapt_plan(Plan& plan) const { plan = plan_for_pods(plan); }

void KubernetesTarget::write_files(const Plan& plan, const std::string& dir,
                                   const std::string&) const {
  make_directories(dir + "/k8s");
  write_new_file(dir + "/k8s/job.yaml", render_k8s_manifest(plan), FileAccess::Private);
}

}  // namespace pai
