// The Kubernetes target (--target k8s): the plan made for pods and its Kubeflow manifest,
// k8s/job.yaml (k8s_manifest.h).
#pragma once

#include "compiler/targets/target.h"

namespace pai {

/// The plan is checked for Kubernetes (check_for_k8s()), run as plan_for_pods() makes it
/// (the pods' names in place of the hosts, each keeping its host's slots), and written with
/// k8s/job.yaml.
class KubernetesTarget final : public Target {
 public:
  /// "k8s".
  std::string_view name() const override;
  /// check_for_k8s().
  void check_plan(const Plan& plan, const JobSpec& spec, Diagnostics& diags) const override;
  /// plan_for_pods(): the pods' names as the inventory, the pod as the container.
  void adapt_plan(Plan& plan) const override;
  /// k8s/job.yaml, render_k8s_manifest() of `plan`.
  void write_files(const Plan& plan, const std::string& dir,
                   const std::string& out_dir) const override;
};

}  // namespace pai
