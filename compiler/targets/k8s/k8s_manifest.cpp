#include "compiler/targets/k8s/k8s_manifest.h"

#include <yaml-cpp/emitter.h>
#include <yaml-cpp/emittermanip.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <map>
#include <vector>

#include "compiler/targets/time_limit.h"
#include "libpai/placement.h"
#include "libpai/quantity.h"

namespace pai {

namespace {

const char* const kPlanVolume = kPodPlanVolume;
const char* const kShmVolume = kPodShmVolume;
const char* const kOutputVolume = kPodOutputVolume;
// Pods of a host-network job are kept on distinct nodes by this label: two would share the
// node's ports.
const char* const kJobLabel = "pai-compile/job";

std::string plan_config_map(const Plan& plan) { return plan.name + "-pai-plan"; }
std::string token_secret(const Plan& plan) { return plan.name + "-pai-token"; }
bool is_mpi(const Plan& plan) { return plan.framework == Framework::Mpi; }
bool is_launcher(const Plan& plan, const Placement& p) {
  return is_mpi(plan) && p.role == "launcher";
}

// One Kubeflow replica type: which roles its pods run and how many pods it has.
struct ReplicaGroup {
  std::string type;  // Master, Worker, Launcher
  int replicas = 0;
  std::vector<const Role*> roles;  // distinct, in rank order
  bool coordinator = false;        // its pod runs the job's coordinator
  bool ranks = false;              // its pods run ranks (all but an MPIJob's Launcher)
};

std::vector<ReplicaGroup> replica_groups(const Plan& plan) {
  ReplicaGroup first{is_mpi(plan) ? "Launcher" : "Master", 0, {}};
  ReplicaGroup workers{"Worker", 0, {}};
  for (const Placement& p : plan.placements) {
    const bool in_first = is_mpi(plan) ? is_launcher(plan, p) : p.node_rank == 0;
    ReplicaGroup& group = in_first ? first : workers;
    group.coordinator = group.coordinator || p.host.name == plan.coordinator.host;
    const Role* role = &plan.roles[static_cast<size_t>(p.role_index)];
    if (std::find(group.roles.begin(), group.roles.end(), role) == group.roles.end()) {
      group.roles.push_back(role);
    }
    group.ranks = group.ranks || holds_ranks(plan, *role);
    ++group.replicas;
  }
  std::vector<ReplicaGroup> groups = {first};
  if (workers.replicas > 0) groups.push_back(workers);
  return groups;
}

// Per field, the largest request of the group's roles.
Resources largest_resources(const ReplicaGroup& group) {
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
std::vector<std::pair<std::string, std::string>> shared_env(const ReplicaGroup& group) {
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

bool rdma_fabric(const Plan& plan) {
  return plan.fabric.type == FabricType::Roce || plan.fabric.type == FabricType::Ib;
}

// /dev/shm's size: the largest `resources.shm` of the group's roles, else the spec's
// kubernetes.shmSize; 0 = no limit (the pod's memory limit bounds it).
std::int64_t shm_size(const Plan& plan, const Resources& r) {
  return r.shm_bytes > 0 ? r.shm_bytes : plan.kubernetes.shm_bytes;
}

// Every pod with GPUs gets /dev/shm as a memory volume (NCCL and the data loaders need more
// than the runtime's 64 MiB), as does every pod whose roles state a shm size.
bool has_shm(const Resources& r) { return r.gpu > 0 || r.shm_bytes > 0; }

int worker_slots(const Plan& plan) {
  int slots = 1;
  for (const Role& role : plan.roles) {
    if (role.name != "launcher") slots = std::max(slots, role.nproc_per_node);
  }
  return slots;
}

class ManifestWriter {
 public:
  explicit ManifestWriter(const Plan& plan) : plan_(plan) { out_.SetIndent(2); }

  std::string render() {
    out_ << YAML::BeginMap;
    out_ << YAML::Key << "apiVersion" << YAML::Value
         << (is_mpi(plan_) ? "kubeflow.org/v2beta1" : "kubeflow.org/v1");
    out_ << YAML::Key << "kind" << YAML::Value << (is_mpi(plan_) ? "MPIJob" : "PyTorchJob");
    out_ << YAML::Key << "metadata" << YAML::Value << YAML::BeginMap;
    out_ << YAML::Key << "name" << YAML::Value << plan_.name;
    out_ << YAML::Key << "labels" << YAML::Value << YAML::BeginMap;
    out_ << YAML::Key << "app.kubernetes.io/managed-by" << YAML::Value << "pai-compile";
    out_ << YAML::EndMap << YAML::EndMap;
    out_ << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
    if (is_mpi(plan_)) out_ << YAML::Key << "slotsPerWorker" << YAML::Value << worker_slots(plan_);
    run_policy();
    out_ << YAML::Key << (is_mpi(plan_) ? "mpiReplicaSpecs" : "pytorchReplicaSpecs") << YAML::Value
         << YAML::BeginMap;
    for (const ReplicaGroup& group : replica_groups(plan_)) replica(group);
    out_ << YAML::EndMap << YAML::EndMap << YAML::EndMap;
    return header() + out_.c_str() + "\n";
  }

 private:
  std::string header() const {
    return "# " + plan_.name + ": Kubeflow " + (is_mpi(plan_) ? "MPIJob" : "PyTorchJob") +
           " written by pai-compile; every pod runs pai-launch.\n"
           "# From the output folder, create the plan and the token first:\n"
           "#   kubectl create configmap " +
           plan_config_map(plan_) +
           " --from-file=plan.json\n"
           "#   kubectl create secret generic " +
           token_secret(plan_) +
           " --from-file=job.token\n"
           "#   kubectl apply -f k8s/job.yaml\n";
  }

  // backoffLimit 0 and restartPolicy Never (replica()): pai-launch's restart budget is the
  // only one (see k8s_manifest.h).
  void run_policy() {
    const Kubernetes& k = plan_.kubernetes;
    out_ << YAML::Key << "runPolicy" << YAML::Value << YAML::BeginMap;
    out_ << YAML::Key << "cleanPodPolicy" << YAML::Value << "Running";
    out_ << YAML::Key << "backoffLimit" << YAML::Value << 0;
    if (const std::int64_t deadline = scheduler_deadline_seconds(plan_); deadline > 0) {
      out_ << YAML::Key << "activeDeadlineSeconds" << YAML::Value << deadline;
    }
    if (k.ttl_seconds >= 0) {
      out_ << YAML::Key << "ttlSecondsAfterFinished" << YAML::Value << k.ttl_seconds;
    }
    if (k.gang) {
      // Every pod by default: pai-launch's rendezvous waits for all of them.
      const int min_available =
          k.min_available > 0 ? k.min_available : static_cast<int>(plan_.placements.size());
      out_ << YAML::Key << "schedulingPolicy" << YAML::Value << YAML::BeginMap;
      out_ << YAML::Key << "minAvailable" << YAML::Value << min_available;
      if (!k.queue.empty()) out_ << YAML::Key << "queue" << YAML::Value << k.queue;
      if (!k.priority_class.empty()) {
        out_ << YAML::Key << "priorityClass" << YAML::Value << k.priority_class;
      }
      out_ << YAML::EndMap;
    }
    out_ << YAML::EndMap;
  }

  void replica(const ReplicaGroup& group) {
    const Resources resources = largest_resources(group);
    out_ << YAML::Key << group.type << YAML::Value << YAML::BeginMap;
    out_ << YAML::Key << "replicas" << YAML::Value << group.replicas;
    out_ << YAML::Key << "restartPolicy" << YAML::Value << "Never";
    out_ << YAML::Key << "template" << YAML::Value << YAML::BeginMap;
    pod_metadata(group);
    out_ << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
    scheduling(group);
    out_ << YAML::Key << "containers" << YAML::Value << YAML::BeginSeq;
    container(group, resources);
    out_ << YAML::EndSeq;
    volumes(resources);
    out_ << YAML::EndMap << YAML::EndMap << YAML::EndMap;
  }

  // Labels and annotations of the group's pods, when they have any.
  void pod_metadata(const ReplicaGroup& group) {
    const bool host = group.ranks && pod_network(plan_) == PodNetwork::Host;
    const bool multus = group.ranks && pod_network(plan_) == PodNetwork::Multus;
    // Annotated for scraping only when its one pod is the coordinator's: an MPIJob's Worker
    // pods share one template, and only the first serves.
    const bool scrape = serves_metrics(group) && group.replicas == 1;
    if (!host && !multus && !scrape) return;
    out_ << YAML::Key << "metadata" << YAML::Value << YAML::BeginMap;
    if (host) {
      out_ << YAML::Key << "labels" << YAML::Value << YAML::BeginMap;
      out_ << YAML::Key << kJobLabel << YAML::Value << plan_.name << YAML::EndMap;
    }
    if (multus || scrape) {
      out_ << YAML::Key << "annotations" << YAML::Value << YAML::BeginMap;
      if (multus) {
        std::string networks;
        for (const std::string& n : plan_.kubernetes.networks) {
          networks += (networks.empty() ? "" : ",") + n;
        }
        out_ << YAML::Key << "k8s.v1.cni.cncf.io/networks" << YAML::Value << networks;
      }
      if (scrape) {
        // Prometheus' usual pod annotations, for a scrape configuration that discovers pods.
        out_ << YAML::Key << "prometheus.io/scrape" << YAML::Value << YAML::DoubleQuoted << "true";
        out_ << YAML::Key << "prometheus.io/port" << YAML::Value << YAML::DoubleQuoted
             << std::to_string(plan_.monitoring.metrics_port);
        out_ << YAML::Key << "prometheus.io/path" << YAML::Value << "/metrics";
      }
      out_ << YAML::EndMap;
    }
    out_ << YAML::EndMap;
  }

  // Where the group's pods may run: network, node selection, tolerations, pull secrets.
  void scheduling(const ReplicaGroup& group) {
    const Kubernetes& k = plan_.kubernetes;
    if (group.ranks && pod_network(plan_) == PodNetwork::Host) {
      out_ << YAML::Key << "hostNetwork" << YAML::Value << true;
      // Cluster DNS still resolves the pods' names (hostfile, coordinator).
      out_ << YAML::Key << "dnsPolicy" << YAML::Value << "ClusterFirstWithHostNet";
      host_anti_affinity();
    }
    if (!k.node_selector.empty()) {
      out_ << YAML::Key << "nodeSelector" << YAML::Value << YAML::BeginMap;
      for (const auto& [key, value] : k.node_selector) {
        out_ << YAML::Key << key << YAML::Value << YAML::DoubleQuoted << value;
      }
      out_ << YAML::EndMap;
    }
    if (!k.tolerations.empty()) {
      out_ << YAML::Key << "tolerations" << YAML::Value << YAML::BeginSeq;
      for (const Toleration& t : k.tolerations) toleration(t);
      out_ << YAML::EndSeq;
    }
    if (!k.image_pull_secrets.empty()) {
      out_ << YAML::Key << "imagePullSecrets" << YAML::Value << YAML::BeginSeq;
      for (const std::string& secret : k.image_pull_secrets) {
        out_ << YAML::BeginMap << YAML::Key << "name" << YAML::Value << secret << YAML::EndMap;
      }
      out_ << YAML::EndSeq;
    }
  }

  // On the host network two of the job's pods on one node would share its ports.
  void host_anti_affinity() {
    out_ << YAML::Key << "affinity" << YAML::Value << YAML::BeginMap;
    out_ << YAML::Key << "podAntiAffinity" << YAML::Value << YAML::BeginMap;
    out_ << YAML::Key << "requiredDuringSchedulingIgnoredDuringExecution" << YAML::Value
         << YAML::BeginSeq << YAML::BeginMap;
    out_ << YAML::Key << "labelSelector" << YAML::Value << YAML::BeginMap;
    out_ << YAML::Key << "matchLabels" << YAML::Value << YAML::BeginMap;
    out_ << YAML::Key << kJobLabel << YAML::Value << plan_.name;
    out_ << YAML::EndMap << YAML::EndMap;
    out_ << YAML::Key << "topologyKey" << YAML::Value << "kubernetes.io/hostname";
    out_ << YAML::EndMap << YAML::EndSeq << YAML::EndMap << YAML::EndMap;
  }

  void toleration(const Toleration& t) {
    out_ << YAML::BeginMap;
    if (!t.key.empty()) out_ << YAML::Key << "key" << YAML::Value << t.key;
    out_ << YAML::Key << "operator" << YAML::Value << t.op;
    if (t.op == "Equal")
      out_ << YAML::Key << "value" << YAML::Value << YAML::DoubleQuoted << t.value;
    if (!t.effect.empty()) out_ << YAML::Key << "effect" << YAML::Value << t.effect;
    if (t.seconds >= 0) out_ << YAML::Key << "tolerationSeconds" << YAML::Value << t.seconds;
    out_ << YAML::EndMap;
  }

  void container(const ReplicaGroup& group, const Resources& resources) {
    out_ << YAML::BeginMap;
    // The training operator injects its variables into the container named "pytorch".
    out_ << YAML::Key << "name" << YAML::Value << (is_mpi(plan_) ? "mpi" : "pytorch");
    out_ << YAML::Key << "image" << YAML::Value
         << (plan_.image.empty() ? kPodDefaultImage : plan_.image);
    const std::string dir = kPodPlanDir;
    // The MPI launcher's pod name has a random suffix; its host name is fixed.
    const std::string node = group.type == "Launcher" ? launcher_host() : "$(PAI_POD_NAME)";
    out_ << YAML::Key << "command" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (const std::string& word :
         {std::string("pai-launch"), std::string("run"), std::string("--plan"), dir + "/plan.json",
          std::string("--token-file"), dir + "/job.token", std::string("--node"), node}) {
      out_ << YAML::DoubleQuoted << word;
    }
    out_ << YAML::EndSeq;
    env(group);
    if (serves_metrics(group)) metrics_port();
    const bool rdma = rdma_fabric(plan_) && group.ranks;
    limits(resources, rdma);
    // Registering RDMA memory pins it: the container needs to lock memory past its ulimit.
    if (rdma) {
      out_ << YAML::Key << "securityContext" << YAML::Value << YAML::BeginMap;
      out_ << YAML::Key << "capabilities" << YAML::Value << YAML::BeginMap;
      out_ << YAML::Key << "add" << YAML::Value << YAML::Flow << YAML::BeginSeq << "IPC_LOCK"
           << YAML::EndSeq << YAML::EndMap << YAML::EndMap;
    }
    volume_mounts(resources);
    out_ << YAML::EndMap;
  }

  // The coordinator's pod serves the metrics (spec `monitoring.metricsPort`).
  bool serves_metrics(const ReplicaGroup& group) const {
    return group.coordinator && plan_.monitoring.metrics_port > 0;
  }

  void metrics_port() {
    out_ << YAML::Key << "ports" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
    out_ << YAML::Key << "name" << YAML::Value << "metrics";
    out_ << YAML::Key << "containerPort" << YAML::Value << plan_.monitoring.metrics_port;
    out_ << YAML::Key << "protocol" << YAML::Value << "TCP";
    out_ << YAML::EndMap << YAML::EndSeq;
  }

  std::string launcher_host() const {
    for (const Placement& p : plan_.placements) {
      if (is_launcher(plan_, p)) return p.host.name;
    }
    return "";
  }

  void env(const ReplicaGroup& group) {
    out_ << YAML::Key << "env" << YAML::Value << YAML::BeginSeq;
    out_ << YAML::BeginMap << YAML::Key << "name" << YAML::Value << "PAI_POD_NAME";
    out_ << YAML::Key << "valueFrom" << YAML::Value << YAML::BeginMap << YAML::Key << "fieldRef"
         << YAML::Value << YAML::BeginMap << YAML::Key << "fieldPath" << YAML::Value
         << "metadata.name" << YAML::EndMap << YAML::EndMap << YAML::EndMap;
    for (const auto& [name, value] : shared_env(group)) {
      out_ << YAML::BeginMap << YAML::Key << "name" << YAML::Value << name;
      out_ << YAML::Key << "value" << YAML::Value << YAML::DoubleQuoted << value << YAML::EndMap;
    }
    out_ << YAML::EndSeq;
  }

  // Limits only: Kubernetes sets a container's requests to its limits when it states none,
  // which extended resources (GPUs, RDMA devices) require anyway.
  void limits(const Resources& r, bool rdma) {
    if (r.cpu <= 0 && r.memory_bytes <= 0 && r.gpu <= 0 && !rdma) return;
    out_ << YAML::Key << "resources" << YAML::Value << YAML::BeginMap;
    out_ << YAML::Key << "limits" << YAML::Value << YAML::BeginMap;
    if (r.cpu > 0)
      out_ << YAML::Key << "cpu" << YAML::Value << YAML::DoubleQuoted << cpu_quantity(r.cpu);
    if (r.memory_bytes > 0) {
      out_ << YAML::Key << "memory" << YAML::Value << YAML::DoubleQuoted
           << format_quantity(r.memory_bytes);
    }
    if (r.gpu > 0) out_ << YAML::Key << "nvidia.com/gpu" << YAML::Value << r.gpu;
    if (rdma) {
      out_ << YAML::Key << plan_.kubernetes.rdma_resource << YAML::Value
           << plan_.kubernetes.rdma_count;
    }
    out_ << YAML::EndMap << YAML::EndMap;
  }

  void mount(const std::string& name, const std::string& path, bool read_only) {
    out_ << YAML::BeginMap << YAML::Key << "name" << YAML::Value << name;
    out_ << YAML::Key << "mountPath" << YAML::Value << path;
    if (read_only) out_ << YAML::Key << "readOnly" << YAML::Value << true;
    out_ << YAML::EndMap;
  }

  void volume_mounts(const Resources& r) {
    out_ << YAML::Key << "volumeMounts" << YAML::Value << YAML::BeginSeq;
    mount(kPlanVolume, kPodPlanDir, true);
    if (has_shm(r)) mount(kShmVolume, "/dev/shm", false);
    for (const Mount& m : plan_.mounts) mount(m.name, m.target, m.read_only);
    if (!plan_.output.empty()) mount(kOutputVolume, plan_.output, false);
    for (const ClaimVolume& v : plan_.kubernetes.volumes) mount(v.name, v.mount_path, v.read_only);
    out_ << YAML::EndSeq;
  }

  void projected_item(const char* kind, const std::string& name, const char* key) {
    out_ << YAML::BeginMap << YAML::Key << kind << YAML::Value << YAML::BeginMap;
    out_ << YAML::Key << "name" << YAML::Value << name;
    out_ << YAML::Key << "items" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
    out_ << YAML::Key << "key" << YAML::Value << key << YAML::Key << "path" << YAML::Value << key;
    out_ << YAML::EndMap << YAML::EndSeq << YAML::EndMap << YAML::EndMap;
  }

  void host_path(const std::string& name, const std::string& path, const char* type) {
    out_ << YAML::BeginMap << YAML::Key << "name" << YAML::Value << name;
    out_ << YAML::Key << "hostPath" << YAML::Value << YAML::BeginMap;
    out_ << YAML::Key << "path" << YAML::Value << path;
    if (type) out_ << YAML::Key << "type" << YAML::Value << type;
    out_ << YAML::EndMap << YAML::EndMap;
  }

  void volumes(const Resources& r) {
    out_ << YAML::Key << "volumes" << YAML::Value << YAML::BeginSeq;
    out_ << YAML::BeginMap << YAML::Key << "name" << YAML::Value << kPlanVolume;
    out_ << YAML::Key << "projected" << YAML::Value << YAML::BeginMap;
    out_ << YAML::Key << "sources" << YAML::Value << YAML::BeginSeq;
    projected_item("configMap", plan_config_map(plan_), "plan.json");
    projected_item("secret", token_secret(plan_), "job.token");
    out_ << YAML::EndSeq << YAML::EndMap << YAML::EndMap;
    if (has_shm(r)) {
      out_ << YAML::BeginMap << YAML::Key << "name" << YAML::Value << kShmVolume;
      out_ << YAML::Key << "emptyDir" << YAML::Value << YAML::BeginMap;
      out_ << YAML::Key << "medium" << YAML::Value << "Memory";
      if (const std::int64_t size = shm_size(plan_, r); size > 0) {
        out_ << YAML::Key << "sizeLimit" << YAML::Value << YAML::DoubleQuoted
             << format_quantity(size);
      }
      out_ << YAML::EndMap << YAML::EndMap;
    }
    for (const Mount& m : plan_.mounts) host_path(m.name, m.source, nullptr);
    if (!plan_.output.empty()) host_path(kOutputVolume, plan_.output, "DirectoryOrCreate");
    for (const ClaimVolume& v : plan_.kubernetes.volumes) {
      out_ << YAML::BeginMap << YAML::Key << "name" << YAML::Value << v.name;
      out_ << YAML::Key << "persistentVolumeClaim" << YAML::Value << YAML::BeginMap;
      out_ << YAML::Key << "claimName" << YAML::Value << v.claim_name;
      if (v.read_only) out_ << YAML::Key << "readOnly" << YAML::Value << true;
      out_ << YAML::EndMap << YAML::EndMap;
    }
    out_ << YAML::EndSeq;
  }

  const Plan& plan_;
  YAML::Emitter out_;
};

}  // namespace

PodNetwork pod_network(const Plan& plan) {
  if (plan.kubernetes.network != PodNetwork::Auto) return plan.kubernetes.network;
  return rdma_fabric(plan) ? PodNetwork::Host : PodNetwork::Pod;
}

void check_for_k8s(const Plan& plan, const Location& spec, Diagnostics& diags) {
  if (plan.image.empty()) {
    diags.warning(spec, "image",
                  std::string("--target k8s: no image given; the pods use \"") + kPodDefaultImage +
                      "\", which has neither pai-launch nor your code");
  }
  if (!plan.name.empty() && !std::isalpha(static_cast<unsigned char>(plan.name.front()))) {
    diags.error(spec, "name",
                "--target k8s: \"" + plan.name +
                    "\" starts with a digit; the training operators name Services after the "
                    "job and its pods, and a Service name must start with a letter");
  }
  for (size_t i = 0; i < plan.mounts.size(); ++i) {
    const std::string& name = plan.mounts[i].name;
    if (name == kPlanVolume || name == kShmVolume || name == kOutputVolume) {
      diags.error(spec, "mounts[" + std::to_string(i) + "].name",
                  "--target k8s: \"" + name + "\" is the name of a volume pai-compile adds");
    }
  }
  const Role* launcher = is_mpi(plan) ? find_role(plan, "launcher") : nullptr;
  if (launcher && launcher->instances != 1) {
    diags.error(
        spec, "roles.launcher.instances",
        "--target k8s: an MPIJob has one launcher, got " + std::to_string(launcher->instances));
  }
}

Plan plan_for_pods(const Plan& plan) {
  Plan pods = plan;
  pods.runtime = Runtime::Host;
  for (Role& role : pods.roles) role.launch_argv = role.command;
  pods.spares.clear();
  pods.coordinator_host.clear();
  // Since mpi-operator 0.5 one headless Service named after the job selects the launcher and
  // the workers, and each pod's hostname and subdomain are `<pod>` and `<job>`
  // (kubeflow/mpi-operator pkg/controller/mpi_job_controller.go, commit cbe4f8aa:
  // newJobService, newWorker and newLauncherPodTemplate set Subdomain = mpiJob.Name; its
  // hostfile lists `<job>-worker-<i>.<job>.<namespace>.svc`). Up to 0.4 the Service was
  // `<job>-worker`. The namespace is left to the pods' DNS search path.
  const std::string domain = is_mpi(plan) ? "." + plan.name : "";
  std::vector<Host> hosts;
  int workers = 0;
  for (const Placement& p : plan.placements) {
    std::string name;
    if (is_launcher(plan, p)) {
      name = launcher_pod_name(plan.name);
    } else if (!is_mpi(plan) && p.node_rank == 0) {
      name = master_pod_name(plan.name);
    } else {
      name = worker_pod_name(plan.name, workers++);
    }
    hosts.push_back(Host{name, name + domain, p.host.slots});
  }
  pods.hosts = hosts;
  place(pods, hosts);
  return pods;
}

std::string render_k8s_manifest(const Plan& plan) { return ManifestWriter(plan).render(); }

}  // namespace pai
