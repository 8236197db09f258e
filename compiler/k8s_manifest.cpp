#include "compiler/k8s_manifest.h"

#include <yaml-cpp/emitter.h>
#include <yaml-cpp/emittermanip.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <vector>

#include "compiler/time_limit.h"
#include "libpai/placement.h"
#include "libpai/quantity.h"

namespace pai {

namespace {

const char* const kPlanVolume = "pai-plan";
const char* const kShmVolume = "pai-shm";
const char* const kOutputVolume = "pai-output";

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

  void run_policy() {
    const FaultTolerance& ft = plan_.fault_tolerance;
    out_ << YAML::Key << "runPolicy" << YAML::Value << YAML::BeginMap;
    out_ << YAML::Key << "cleanPodPolicy" << YAML::Value << "Running";
    out_ << YAML::Key << "backoffLimit" << YAML::Value
         << (ft.restart_enabled ? ft.max_restarts : 0);
    if (const std::int64_t deadline = scheduler_deadline_seconds(plan_); deadline > 0) {
      out_ << YAML::Key << "activeDeadlineSeconds" << YAML::Value << deadline;
    }
    out_ << YAML::EndMap;
  }

  void replica(const ReplicaGroup& group) {
    const FaultTolerance& ft = plan_.fault_tolerance;
    const bool restarts = ft.restart_enabled && ft.policy != RestartPolicy::Never;
    const Resources resources = largest_resources(group);
    out_ << YAML::Key << group.type << YAML::Value << YAML::BeginMap;
    out_ << YAML::Key << "replicas" << YAML::Value << group.replicas;
    out_ << YAML::Key << "restartPolicy" << YAML::Value << (restarts ? "OnFailure" : "Never");
    out_ << YAML::Key << "template" << YAML::Value << YAML::BeginMap;
    // Annotated for scraping only when its one pod is the coordinator's: an MPIJob's Worker
    // pods share one template, and only the first serves.
    if (serves_metrics(group) && group.replicas == 1) metrics_annotations();
    out_ << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
    out_ << YAML::Key << "containers" << YAML::Value << YAML::BeginSeq;
    container(group, resources);
    out_ << YAML::EndSeq;
    volumes(resources);
    out_ << YAML::EndMap << YAML::EndMap << YAML::EndMap;
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
    limits(resources);
    volume_mounts(resources);
    out_ << YAML::EndMap;
  }

  // The coordinator's pod serves the metrics (spec `monitoring.metricsPort`).
  bool serves_metrics(const ReplicaGroup& group) const {
    return group.coordinator && plan_.monitoring.metrics_port > 0;
  }

  // Prometheus' usual pod annotations, for a scrape configuration that discovers pods.
  void metrics_annotations() {
    out_ << YAML::Key << "metadata" << YAML::Value << YAML::BeginMap;
    out_ << YAML::Key << "annotations" << YAML::Value << YAML::BeginMap;
    out_ << YAML::Key << "prometheus.io/scrape" << YAML::Value << YAML::DoubleQuoted << "true";
    out_ << YAML::Key << "prometheus.io/port" << YAML::Value << YAML::DoubleQuoted
         << std::to_string(plan_.monitoring.metrics_port);
    out_ << YAML::Key << "prometheus.io/path" << YAML::Value << "/metrics";
    out_ << YAML::EndMap << YAML::EndMap;
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

  void limits(const Resources& r) {
    if (r.cpu <= 0 && r.memory_bytes <= 0 && r.gpu <= 0) return;
    out_ << YAML::Key << "resources" << YAML::Value << YAML::BeginMap;
    out_ << YAML::Key << "limits" << YAML::Value << YAML::BeginMap;
    if (r.cpu > 0)
      out_ << YAML::Key << "cpu" << YAML::Value << YAML::DoubleQuoted << cpu_quantity(r.cpu);
    if (r.memory_bytes > 0) {
      out_ << YAML::Key << "memory" << YAML::Value << YAML::DoubleQuoted
           << format_quantity(r.memory_bytes);
    }
    if (r.gpu > 0) out_ << YAML::Key << "nvidia.com/gpu" << YAML::Value << r.gpu;
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
    if (r.shm_bytes > 0) mount(kShmVolume, "/dev/shm", false);
    for (const Mount& m : plan_.mounts) mount(m.name, m.target, m.read_only);
    if (!plan_.output.empty()) mount(kOutputVolume, plan_.output, false);
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
    if (r.shm_bytes > 0) {
      out_ << YAML::BeginMap << YAML::Key << "name" << YAML::Value << kShmVolume;
      out_ << YAML::Key << "emptyDir" << YAML::Value << YAML::BeginMap;
      out_ << YAML::Key << "medium" << YAML::Value << "Memory";
      out_ << YAML::Key << "sizeLimit" << YAML::Value << YAML::DoubleQuoted
           << format_quantity(r.shm_bytes);
      out_ << YAML::EndMap << YAML::EndMap;
    }
    for (const Mount& m : plan_.mounts) host_path(m.name, m.source, nullptr);
    if (!plan_.output.empty()) host_path(kOutputVolume, plan_.output, "DirectoryOrCreate");
    out_ << YAML::EndSeq;
  }

  const Plan& plan_;
  YAML::Emitter out_;
};

}  // namespace

void check_for_k8s(const Plan& plan, const Location& spec, Diagnostics& diags) {
  if (plan.image.empty()) {
    diags.warning(spec, "image",
                  std::string("--target k8s: no image given; the pods use \"") + kPodDefaultImage +
                      "\", which has neither pai-launch nor your code");
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
  // Under the MPI Operator, pods are addressed through the workers' headless service.
  const std::string domain = is_mpi(plan) ? "." + plan.name + "-worker" : "";
  std::vector<Host> hosts;
  int workers = 0;
  for (const Placement& p : plan.placements) {
    std::string name;
    if (is_launcher(plan, p)) {
      name = plan.name + "-launcher";
    } else if (!is_mpi(plan) && p.node_rank == 0) {
      name = plan.name + "-master-0";
    } else {
      name = plan.name + "-worker-" + std::to_string(workers++);
    }
    hosts.push_back(Host{name, name + domain, p.host.slots});
  }
  pods.hosts = hosts;
  place(pods, hosts);
  return pods;
}

std::string render_k8s_manifest(const Plan& plan) { return ManifestWriter(plan).render(); }

}  // namespace pai
