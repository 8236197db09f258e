#include "compiler/targets/k8s/pod_template.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "compiler/spec/pod_names.h"
#include "compiler/targets/time_limit.h"
#include "libpai/quantity.h"

namespace pai {

namespace {

// Pods of a host-network job are kept on distinct nodes by this label: two would share the
// node's ports.
const char* const kJobLabel = "pai-compile/job";
// Kueue's topology-aware scheduling, per pod set (Kueue's labels and annotations reference).
const char* const kRequiredTopology = "kueue.x-k8s.io/podset-required-topology";
const char* const kPreferredTopology = "kueue.x-k8s.io/podset-preferred-topology";
// Where the downward API finds a JobSet pod's indexes: JobSet labels its pods with their
// Job's index, the Job controller annotates them with their completion index.
const char* const kJobIndexField = "metadata.labels['jobset.sigs.k8s.io/job-index']";
const char* const kPodIndexField =
    "metadata.annotations['batch.kubernetes.io/job-completion-index']";

bool is_mpi(const Plan& plan) { return plan.framework == Framework::Mpi; }
bool is_launcher(const Plan& plan, const Placement& p) {
  return is_mpi(plan) && p.role == "launcher";
}

bool rdma_fabric(const Plan& plan) {
  return plan.fabric.type == FabricType::Roce || plan.fabric.type == FabricType::Ib;
}

// Per field, the largest request of the group's roles.
Resources largest_resources(const PodGroup& group) {
  Resources r;
  for (const Role* role : group.roles) {
    r.gpu = std::max(r.gpu, role->resources.gpu);
    r.cpu = std::max(r.cpu, role->resources.cpu);
    r.memory_bytes = std::max(r.memory_bytes, role->resources.memory_bytes);
    r.shm_bytes = std::max(r.shm_bytes, role->resources.shm_bytes);
  }
  return r;
}

// The env entries every role of the group has with the same value, sorted by name.
std::vector<std::pair<std::string, std::string>> shared_env(const PodGroup& group) {
  std::vector<std::pair<std::string, std::string>> env = group.roles.front()->env;
  for (const Role* role : group.roles) {
    env.erase(std::remove_if(env.begin(), env.end(),
                             [&](const auto& entry) {
                               return std::find(role->env.begin(), role->env.end(), entry) ==
                                      role->env.end();
                             }),
              env.end());
  }
  return env;
}

// CPU as Kubernetes writes it: whole cores plainly, else millicores.
std::string cpu_quantity(double cores) {
  const auto milli = static_cast<std::int64_t>(std::llround(cores * 1000));
  if (milli % 1000 == 0) return std::to_string(milli / 1000);
  return std::to_string(milli) + "m";
}

// /dev/shm's size: the largest `resources.shm` of the group's roles, else the spec's
// kubernetes.shmSize; 0 = no limit (the pod's memory limit bounds it).
std::int64_t shm_size(const Plan& plan, const Resources& r) {
  return r.shm_bytes > 0 ? r.shm_bytes : plan.kubernetes.shm_bytes;
}

// Every pod with GPUs gets /dev/shm as a memory volume (NCCL and the data loaders need more
// than the runtime's 64 MiB), as does every pod whose roles state a shm size.
bool has_shm(const Resources& r) { return r.gpu > 0 || r.shm_bytes > 0; }

Yaml named(const std::string& name) {
  Yaml item = Yaml::map();
  item.set("name", name);
  return item;
}

Yaml field_env(const char* name, const char* field_path) {
  Yaml item = named(name);
  item.set("valueFrom", Yaml::map()).set("fieldRef", Yaml::map()).set("fieldPath", field_path);
  return item;
}

class TemplateWriter {
 public:
  TemplateWriter(const Plan& plan, const PodGroup& group, PodController controller)
      : plan_(plan),
        group_(group),
        jobset_(controller == PodController::JobSet),
        resources_(largest_resources(group)) {}

  Yaml write() {
    Yaml pod = Yaml::map();
    metadata(pod);
    Yaml& spec = pod.set("spec", Yaml::map());
    if (jobset_) {
      // Kubernetes never restarts a container: pai-launch's restart budget is the only one
      // (trainer_manifest.h). SIGTERM to a pod is a cancel for pai-launch, whose stop takes
      // up to the checkpoint wait and the grace period: the kubelet waits that long.
      spec.set("restartPolicy", "Never");
      spec.set("terminationGracePeriodSeconds", Yaml::integer(stop_lead_seconds(plan_)));
    }
    scheduling(spec);
    spec.set("containers", Yaml::seq()).add(container());
    spec.set("volumes", volumes());
    return pod;
  }

 private:
  bool host_network() const { return group_.ranks && pod_network(plan_) == PodNetwork::Host; }

  // The coordinator's pod serves the metrics (spec `monitoring.metricsPort`).
  bool serves_metrics() const { return group_.coordinator && plan_.monitoring.metrics_port > 0; }

  // Labels and annotations of the group's pods, when they have any.
  void metadata(Yaml& pod) const {
    const Kubernetes& k = plan_.kubernetes;
    const bool multus = group_.ranks && pod_network(plan_) == PodNetwork::Multus;
    // Annotated for scraping only when its one pod is the coordinator's: a set of several pods
    // shares one template, and only the first serves.
    const bool scrape = serves_metrics() && group_.replicas == 1;
    const bool topology = !k.topology_required.empty() || !k.topology_preferred.empty();
    if (!host_network() && !multus && !scrape && !topology) return;
    Yaml& meta = pod.set("metadata", Yaml::map());
    if (host_network()) meta.set("labels", Yaml::map()).set(kJobLabel, plan_.name);
    if (!multus && !scrape && !topology) return;
    Yaml& annotations = meta.set("annotations", Yaml::map());
    if (multus) {
      std::string networks;
      for (const std::string& n : k.networks) networks += (networks.empty() ? "" : ",") + n;
      annotations.set("k8s.v1.cni.cncf.io/networks", networks);
    }
    if (scrape) {
      // Prometheus' usual pod annotations, for a scrape configuration that discovers pods.
      annotations.set("prometheus.io/scrape", Yaml::quoted("true"));
      annotations.set("prometheus.io/port",
                      Yaml::quoted(std::to_string(plan_.monitoring.metrics_port)));
      annotations.set("prometheus.io/path", "/metrics");
    }
    if (!k.topology_required.empty()) annotations.set(kRequiredTopology, k.topology_required);
    if (!k.topology_preferred.empty()) annotations.set(kPreferredTopology, k.topology_preferred);
  }

  // Where the group's pods may run: scheduler, network, node selection, tolerations, pull
  // secrets.
  void scheduling(Yaml& spec) const {
    const Kubernetes& k = plan_.kubernetes;
    if (k.scheduler == PodScheduler::Volcano) spec.set("schedulerName", "volcano");
    if (jobset_ && !k.priority_class.empty()) spec.set("priorityClassName", k.priority_class);
    if (host_network()) {
      spec.set("hostNetwork", Yaml::boolean(true));
      // Cluster DNS still resolves the pods' names (hostfile, coordinator).
      spec.set("dnsPolicy", "ClusterFirstWithHostNet");
      spec.set("affinity", host_anti_affinity());
    }
    if (!k.node_selector.empty()) {
      Yaml& selector = spec.set("nodeSelector", Yaml::map());
      for (const auto& [key, value] : k.node_selector) selector.set(key, Yaml::quoted(value));
    }
    if (!k.tolerations.empty()) {
      Yaml& tolerations = spec.set("tolerations", Yaml::seq());
      for (const Toleration& t : k.tolerations) tolerations.add(toleration(t));
    }
    if (!k.image_pull_secrets.empty()) {
      Yaml& secrets = spec.set("imagePullSecrets", Yaml::seq());
      for (const std::string& secret : k.image_pull_secrets) secrets.add(named(secret));
    }
  }

  // On the host network two of the job's pods on one node would share its ports.
  Yaml host_anti_affinity() const {
    Yaml term = Yaml::map();
    term.set("labelSelector", Yaml::map())
        .set("matchLabels", Yaml::map())
        .set(kJobLabel, plan_.name);
    term.set("topologyKey", "kubernetes.io/hostname");
    Yaml affinity = Yaml::map();
    affinity.set("podAntiAffinity", Yaml::map())
        .set("requiredDuringSchedulingIgnoredDuringExecution", Yaml::seq())
        .add(std::move(term));
    return affinity;
  }

  static Yaml toleration(const Toleration& t) {
    Yaml out = Yaml::map();
    if (!t.key.empty()) out.set("key", t.key);
    out.set("operator", t.op);
    if (t.op == "Equal") out.set("value", Yaml::quoted(t.value));
    if (!t.effect.empty()) out.set("effect", t.effect);
    if (t.seconds >= 0) out.set("tolerationSeconds", Yaml::integer(t.seconds));
    return out;
  }

  // The host of the plan this pod is (pai-launch's --node).
  std::string node_argument() const {
    if (jobset_) {
      return plan_.name + "-" + group_.name + "-$(" + kJobIndexEnv + ")-$(" + kPodIndexEnv + ")";
    }
    // The MPI launcher's pod name has a random suffix; its host name is fixed.
    if (group_.name == "Launcher") {
      for (const Placement& p : plan_.placements) {
        if (is_launcher(plan_, p)) return p.host.name;
      }
    }
    return "$(PAI_POD_NAME)";
  }

  Yaml container() const {
    Yaml c = Yaml::map();
    // Trainer and the training operator inject their variables into the container named
    // "node" (Trainer) or "pytorch" (PyTorchJob); the MPI Operator looks for no name.
    c.set("name", jobset_ ? "node" : (is_mpi(plan_) ? "mpi" : "pytorch"));
    c.set("image", plan_.image.empty() ? kPodDefaultImage : plan_.image);
    const std::string dir = kPodPlanDir;
    Yaml& command = c.set("command", Yaml::flow_seq());
    for (const std::string& word :
         {std::string("pai-launch"), std::string("run"), std::string("--plan"), dir + "/plan.json",
          std::string("--token-file"), dir + "/job.token", std::string("--node"),
          node_argument()}) {
      command.add(Yaml::quoted(word));
    }
    Yaml& env = c.set("env", Yaml::seq());
    if (jobset_) {
      env.add(field_env(kJobIndexEnv, kJobIndexField));
      env.add(field_env(kPodIndexEnv, kPodIndexField));
    } else {
      env.add(field_env("PAI_POD_NAME", "metadata.name"));
    }
    for (const auto& [name, value] : shared_env(group_)) {
      Yaml item = named(name);
      item.set("value", Yaml::quoted(value));
      env.add(std::move(item));
    }
    if (serves_metrics()) {
      Yaml port = named("metrics");
      port.set("containerPort", Yaml::integer(plan_.monitoring.metrics_port));
      port.set("protocol", "TCP");
      c.set("ports", Yaml::seq()).add(std::move(port));
    }
    const bool rdma = rdma_fabric(plan_) && group_.ranks;
    limits(c, rdma);
    // Registering RDMA memory pins it: the container needs to lock memory past its ulimit.
    if (rdma) {
      c.set("securityContext", Yaml::map())
          .set("capabilities", Yaml::map())
          .set("add", Yaml::flow_seq())
          .add("IPC_LOCK");
    }
    c.set("volumeMounts", volume_mounts());
    return c;
  }

  // Limits only: Kubernetes sets a container's requests to its limits when it states none,
  // which extended resources (GPUs, RDMA devices) require anyway.
  void limits(Yaml& c, bool rdma) const {
    const Resources& r = resources_;
    if (r.cpu <= 0 && r.memory_bytes <= 0 && r.gpu <= 0 && !rdma) return;
    Yaml& limits = c.set("resources", Yaml::map()).set("limits", Yaml::map());
    if (r.cpu > 0) limits.set("cpu", Yaml::quoted(cpu_quantity(r.cpu)));
    if (r.memory_bytes > 0) limits.set("memory", Yaml::quoted(format_quantity(r.memory_bytes)));
    if (r.gpu > 0) limits.set("nvidia.com/gpu", Yaml::integer(r.gpu));
    if (rdma) {
      limits.set(plan_.kubernetes.rdma_resource, Yaml::integer(plan_.kubernetes.rdma_count));
    }
  }

  static Yaml mount(const std::string& name, const std::string& path, bool read_only) {
    Yaml m = named(name);
    m.set("mountPath", path);
    if (read_only) m.set("readOnly", Yaml::boolean(true));
    return m;
  }

  Yaml volume_mounts() const {
    Yaml mounts = Yaml::seq();
    mounts.add(mount(kPodPlanVolume, kPodPlanDir, true));
    if (has_shm(resources_)) mounts.add(mount(kPodShmVolume, "/dev/shm", false));
    for (const Mount& m : plan_.mounts) mounts.add(mount(m.name, m.target, m.read_only));
    if (!plan_.output.empty()) mounts.add(mount(kPodOutputVolume, plan_.output, false));
    for (const ClaimVolume& v : plan_.kubernetes.volumes) {
      mounts.add(mount(v.name, v.mount_path, v.read_only));
    }
    return mounts;
  }

  static Yaml projected_item(const char* kind, const std::string& name, const char* key) {
    Yaml item = Yaml::map();
    Yaml& source = item.set(kind, named(name));
    Yaml path = Yaml::map();
    path.set("key", key);
    path.set("path", key);
    source.set("items", Yaml::seq()).add(std::move(path));
    return item;
  }

  static Yaml host_path(const std::string& name, const std::string& path, const char* type) {
    Yaml volume = named(name);
    Yaml& host = volume.set("hostPath", Yaml::map());
    host.set("path", path);
    if (type) host.set("type", type);
    return volume;
  }

  Yaml volumes() const {
    Yaml volumes = Yaml::seq();
    Yaml& sources = volumes.add(named(kPodPlanVolume))
                        .set("projected", Yaml::map())
                        .set("sources", Yaml::seq());
    sources.add(projected_item("configMap", plan_.name + "-pai-plan", "plan.json"));
    sources.add(projected_item("secret", plan_.name + "-pai-token", "job.token"));
    if (has_shm(resources_)) {
      Yaml& dir = volumes.add(named(kPodShmVolume)).set("emptyDir", Yaml::map());
      dir.set("medium", "Memory");
      if (const std::int64_t size = shm_size(plan_, resources_); size > 0) {
        dir.set("sizeLimit", Yaml::quoted(format_quantity(size)));
      }
    }
    for (const Mount& m : plan_.mounts) volumes.add(host_path(m.name, m.source, nullptr));
    if (!plan_.output.empty()) {
      volumes.add(host_path(kPodOutputVolume, plan_.output, "DirectoryOrCreate"));
    }
    for (const ClaimVolume& v : plan_.kubernetes.volumes) {
      Yaml& claim = volumes.add(named(v.name)).set("persistentVolumeClaim", Yaml::map());
      claim.set("claimName", v.claim_name);
      if (v.read_only) claim.set("readOnly", Yaml::boolean(true));
    }
    return volumes;
  }

  const Plan& plan_;
  const PodGroup& group_;
  const bool jobset_;
  const Resources resources_;
};

}  // namespace

std::vector<PodGroup> pod_groups(const Plan& plan, PodController controller) {
  const bool jobset = controller == PodController::JobSet;
  PodGroup first{is_mpi(plan) ? (jobset ? kTrainerLauncherJob : "Launcher")
                              : (jobset ? kTrainerNodeJob : "Master"),
                 0,
                 {}};
  PodGroup rest{jobset ? kTrainerNodeJob : "Worker", 0, {}};
  for (const Placement& p : plan.placements) {
    // JobSet has one `node` job for every instance but an MPI launcher; Kubeflow a Master
    // (node rank 0) or Launcher apart from the Workers.
    const bool in_first = is_mpi(plan) ? is_launcher(plan, p) : !jobset && p.node_rank == 0;
    PodGroup& group = in_first ? first : rest;
    group.coordinator = group.coordinator || p.host.name == plan.coordinator.host;
    const Role* role = &plan.roles[static_cast<size_t>(p.role_index)];
    if (std::find(group.roles.begin(), group.roles.end(), role) == group.roles.end()) {
      group.roles.push_back(role);
    }
    group.ranks = group.ranks || holds_ranks(plan, *role);
    ++group.replicas;
  }
  std::vector<PodGroup> groups;
  if (first.replicas > 0) groups.push_back(first);
  if (rest.replicas > 0) groups.push_back(rest);
  return groups;
}

PodNetwork pod_network(const Plan& plan) {
  if (plan.kubernetes.network != PodNetwork::Auto) return plan.kubernetes.network;
  return rdma_fabric(plan) ? PodNetwork::Host : PodNetwork::Pod;
}

Yaml pod_template(const Plan& plan, const PodGroup& group, PodController controller) {
  return TemplateWriter(plan, group, controller).write();
}

}  // namespace pai
