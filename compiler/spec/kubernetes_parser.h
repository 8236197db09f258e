// kubernetes: the settings of the Kubernetes target (--target k8s), parsed for parse_spec().
//
// Which objects the job becomes (a Kubeflow Trainer v2 TrainJob and its runtime, or a legacy
// PyTorchJob or MPIJob), and what the pods get besides what every target gets: how they are
// networked (pod network, host network or Multus secondary networks), which RDMA
// device-plugin resource they ask for on a RoCE or InfiniBand fabric, /dev/shm's size, their
// scheduler (Volcano) and gang scheduling, Kueue's queue and topology, node selection,
// tolerations, image pull secrets, PersistentVolumeClaims, and how long a finished job is
// kept. Rendered by compiler/targets/k8s/; ignored by the other targets.
#pragma once

#include <string>

#include "compiler/document/document.h"
#include "compiler/document/field_reader.h"
#include "libpai/plan.h"

namespace pai {

/// Parses `kubernetes` at `path` into `out` (defaults kept where not written or wrong).
/// `job` is the spec parsed so far: its framework decides which `api` can run it, its fabric
/// whether `rdma` applies, and its mounts and output must not share a name or target with
/// `volumes`.
void parse_kubernetes(const Node& node, const std::string& path, const Plan& job,
                      FieldReader& reader, Kubernetes* out);

}  // namespace pai
