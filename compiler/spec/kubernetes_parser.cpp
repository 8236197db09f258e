#include "compiler/spec/kubernetes_parser.h"

#include <cstdint>
#include <map>

#include "compiler/spec/kubernetes_names.h"
#include "compiler/spec/pod_names.h"

namespace pai {

namespace {

const std::vector<std::string> kKubernetesKeys = {
    "api",      "runtimeKind",      "network",          "networks",         "rdma",
    "shmSize",  "ttlAfterFinished", "schedulingPolicy", "scheduler",        "queue",
    "topology", "nodeSelector",     "tolerations",      "imagePullSecrets", "volumes"};
const std::vector<std::string> kTopologyKeys = {"required", "preferred"};
const std::vector<std::string> kRdmaKeys = {"resource", "count"};
const std::vector<std::string> kSchedulingKeys = {"minAvailable", "queue", "priorityClass"};
const std::vector<std::string> kTolerationKeys = {"key", "operator", "value", "effect",
                                                  "tolerationSeconds"};
const std::vector<std::string> kVolumeKeys = {"name", "claimName", "mountPath", "readOnly"};
const std::vector<std::string> kOperators = {"Equal", "Exists"};
const std::vector<std::string> kEffects = {"NoSchedule", "PreferNoSchedule", "NoExecute"};

const char kSubdomain[] =
    "a DNS subdomain (lowercase letters, digits, '-' and '.', at most 253 characters)";

class KubernetesParser {
 public:
  KubernetesParser(const std::string& path, const Plan& job, FieldReader& reader, Kubernetes* out)
      : path_(path), job_(job), reader_(reader), out_(*out) {}

  void parse(const Node& node);

 private:
  std::string at(const std::string& key) const { return join_path(path_, key); }
  void parse_api(const Node& section);
  void parse_network(const Node& section);
  void parse_kueue(const Node& section);
  void parse_rdma(const Node& node);
  void parse_scheduling(const Node& node);
  void parse_node_selector(const Node& node);
  void parse_tolerations(const Node& node);
  void parse_toleration(const Node& node, const std::string& path);
  void parse_pull_secrets(const Node& node);
  void parse_volumes(const Node& node);

  const std::string& path_;
  const Plan& job_;
  FieldReader& reader_;
  Kubernetes& out_;
};

void KubernetesParser::parse(const Node& node) {
  static const std::vector<std::string> kNested = {
      "rdma.resource",          "rdma.count",        "schedulingPolicy.minAvailable",
      "schedulingPolicy.queue", "topology.required", "topology.preferred"};
  if (!reader_.mapping(node, path_, kKubernetesKeys, kNested)) return;
  parse_api(node);
  parse_network(node);
  if (const Node* n = reader_.optional(node, path_, "rdma")) parse_rdma(*n);
  if (const Node* n = reader_.optional(node, path_, "shmSize")) {
    reader_.quantity(*n, at("shmSize"), 1, &out_.shm_bytes);
  }
  if (const Node* n = reader_.optional(node, path_, "ttlAfterFinished")) {
    reader_.duration(*n, at("ttlAfterFinished"), 0, &out_.ttl_seconds);
  }
  if (const Node* n = reader_.optional(node, path_, "scheduler")) {
    reader_.enumeration(*n, at("scheduler"), enum_values<PodScheduler>(), &out_.scheduler);
  }
  if (const Node* n = reader_.optional(node, path_, "schedulingPolicy")) parse_scheduling(*n);
  parse_kueue(node);
  if (const Node* n = reader_.optional(node, path_, "nodeSelector")) parse_node_selector(*n);
  if (const Node* n = reader_.optional(node, path_, "tolerations")) parse_tolerations(*n);
  if (const Node* n = reader_.optional(node, path_, "imagePullSecrets")) parse_pull_secrets(*n);
  if (const Node* n = reader_.optional(node, path_, "volumes")) parse_volumes(*n);
}

// The objects the job becomes, which must be able to run its framework: an MPIJob runs
// mpirun in its Launcher, a PyTorchJob has none.
void KubernetesParser::parse_api(const Node& section) {
  const Node* api = reader_.optional(section, path_, "api");
  if (api && reader_.enumeration(*api, at("api"), enum_values<KubernetesApi>(), &out_.api)) {
    const bool mpi = job_.framework == Framework::Mpi;
    if (out_.api == KubernetesApi::MpiJob && !mpi) {
      reader_.error(*api, at("api"),
                    std::string("api mpijob runs framework mpi only (the framework is ") +
                        to_string(job_.framework) + "); use trainer-v2 or pytorchjob");
    } else if (out_.api == KubernetesApi::PyTorchJob && mpi) {
      reader_.error(*api, at("api"),
                    "api pytorchjob cannot run framework mpi (it has no launcher pod for "
                    "mpirun); use trainer-v2 or mpijob");
    }
  }
  if (const Node* n = reader_.optional(section, path_, "runtimeKind")) {
    if (out_.api != KubernetesApi::TrainerV2) {
      reader_.error(*n, at("runtimeKind"),
                    std::string("runtimeKind is only used with api trainer-v2 (api is ") +
                        to_string(out_.api) + ")");
    } else {
      reader_.enumeration(*n, at("runtimeKind"), enum_values<TrainingRuntimeKind>(),
                          &out_.runtime_kind);
    }
  }
}

// Kueue: the LocalQueue the job is submitted to, and its topology-aware scheduling, which
// only Kueue applies (to the jobs it admits).
void KubernetesParser::parse_kueue(const Node& section) {
  const Node* queue = reader_.optional(section, path_, "queue");
  if (queue) {
    // The name is a label value too: at most 63 characters.
    reader_.matching(
        *queue, at("queue"),
        [](const std::string& s) { return is_dns_subdomain(s) && s.size() <= 63; },
        "a Kueue LocalQueue name (lowercase letters, digits, '-' and '.', at most 63 characters)",
        &out_.kueue_queue);
  }
  const Node* topology = reader_.optional(section, path_, "topology");
  if (!topology) return;
  const std::string path = at("topology");
  if (!reader_.mapping(*topology, path, kTopologyKeys)) return;
  const Node* required = reader_.optional(*topology, path, "required");
  const Node* preferred = reader_.optional(*topology, path, "preferred");
  if (required && preferred) {
    reader_.error(*preferred, join_path(path, "preferred"),
                  "give either required or preferred, not both");
    return;
  }
  if (!required && !preferred) {
    reader_.error(*topology, path,
                  "expected required or preferred: the node label the pods must or should share "
                  "(e.g. required: kubernetes.io/hostname)");
    return;
  }
  if (!queue) {
    reader_.error(*topology, path,
                  "topology is Kueue's topology-aware scheduling: it needs kubernetes.queue, the "
                  "LocalQueue of a Kueue ClusterQueue with topology levels");
    return;
  }
  const char* kLabel = "a node label key ([prefix/]name, e.g. kubernetes.io/hostname)";
  const auto label = [](const std::string& s) { return is_qualified_name(s, false); };
  if (required) {
    reader_.matching(*required, join_path(path, "required"), label, kLabel,
                     &out_.topology_required);
  } else {
    reader_.matching(*preferred, join_path(path, "preferred"), label, kLabel,
                     &out_.topology_preferred);
  }
}

void KubernetesParser::parse_network(const Node& section) {
  const Node* network = reader_.optional(section, path_, "network");
  if (network) {
    reader_.enumeration(*network, at("network"), enum_values<PodNetwork>(), &out_.network);
  }
  const Node* networks = reader_.optional(section, path_, "networks");
  if (networks && reader_.list(*networks, at("networks"), "a list of Multus network names")) {
    for (size_t i = 0; i < networks->items.size(); ++i) {
      const Node& item = networks->items[i];
      const std::string path = index_path(at("networks"), i);
      reader_.record(path, item);
      std::string reference;
      if (reader_.matching(item, path, is_network_reference,
                           "a Multus network, [namespace/]name[@interface]", &reference)) {
        out_.networks.push_back(reference);
      }
    }
    if (networks->items.empty())
      reader_.error(*networks, at("networks"), "expected at least one network");
  }
  if (out_.network == PodNetwork::Multus && !networks) {
    reader_.error(*network, at("network"),
                  "network multus needs kubernetes.networks, the Multus networks to attach");
  } else if (out_.network != PodNetwork::Multus && networks) {
    reader_.error(*networks, at("networks"),
                  "networks is only used with network: multus (network is " +
                      std::string(to_string(out_.network)) + ")");
  }
}

void KubernetesParser::parse_rdma(const Node& node) {
  const std::string path = at("rdma");
  if (!reader_.mapping(node, path, kRdmaKeys)) return;
  if (job_.fabric.type != FabricType::Roce && job_.fabric.type != FabricType::Ib) {
    reader_.error(node, path,
                  std::string("rdma is only used with fabric type roce or ib (the fabric is ") +
                      to_string(job_.fabric.type) + ")");
    return;
  }
  if (const Node* n = reader_.optional(node, path, "resource")) {
    reader_.matching(
        *n, join_path(path, "resource"),
        [](const std::string& s) { return is_qualified_name(s, true); },
        "a device-plugin resource name, domain/name (e.g. rdma/rdma_shared_device_a)",
        &out_.rdma_resource);
  }
  if (const Node* n = reader_.optional(node, path, "count")) {
    reader_.integer(*n, join_path(path, "count"), 1, 1024, &out_.rdma_count);
  }
}

void KubernetesParser::parse_scheduling(const Node& node) {
  const std::string path = at("schedulingPolicy");
  if (!reader_.mapping(node, path, kSchedulingKeys)) return;
  out_.gang = true;
  // A TrainJob's PodGroup (Trainer's volcano and coscheduling plugins) always gangs every pod
  // and takes a queue only for Volcano.
  const bool trainer = out_.api == KubernetesApi::TrainerV2;
  if (const Node* n = reader_.optional(node, path, "minAvailable")) {
    if (reader_.integer(*n, join_path(path, "minAvailable"), 1, INT32_MAX, &out_.min_available) &&
        trainer) {
      reader_.error(*n, join_path(path, "minAvailable"),
                    "minAvailable is not used with api trainer-v2: Trainer's PodGroup gangs "
                    "every pod of the job (leave it out, or use api pytorchjob or mpijob)");
    }
  }
  if (const Node* n = reader_.optional(node, path, "queue")) {
    if (reader_.matching(*n, join_path(path, "queue"), is_dns_subdomain, kSubdomain, &out_.queue) &&
        trainer && out_.scheduler != PodScheduler::Volcano) {
      reader_.error(*n, join_path(path, "queue"),
                    "with api trainer-v2 the gang scheduler's queue is Volcano's: it needs "
                    "kubernetes.scheduler: volcano (for Kueue, use kubernetes.queue)");
    }
  }
  if (const Node* n = reader_.optional(node, path, "priorityClass")) {
    reader_.matching(*n, join_path(path, "priorityClass"), is_dns_subdomain, kSubdomain,
                     &out_.priority_class);
  }
}

void KubernetesParser::parse_node_selector(const Node& node) {
  const std::string path = at("nodeSelector");
  if (!reader_.free_mapping(node, path)) return;
  std::map<std::string, std::string> selector;
  for (const auto& [key, value] : node.entries) {
    const std::string entry = join_path(path, key.scalar);
    reader_.record(entry, value.is_scalar() ? value : key);
    if (!key.is_scalar() || !is_qualified_name(key.scalar, false)) {
      reader_.error(key, path,
                    "expected a label key ([prefix/]name, the name at most 63 letters, digits, "
                    "'-', '_' or '.'), got " +
                        describe(key));
      continue;
    }
    std::string text;
    if (!reader_.scalar_value(value, entry, &text)) continue;
    if (!text.empty() && !is_label_name(text)) {
      reader_.error(value, entry,
                    "expected a label value (at most 63 letters, digits, '-', '_' or '.', "
                    "starting and ending with a letter or digit), got " +
                        describe(value));
      continue;
    }
    selector[key.scalar] = text;
  }
  out_.node_selector.assign(selector.begin(), selector.end());
}

void KubernetesParser::parse_tolerations(const Node& node) {
  if (!reader_.list(node, at("tolerations"), "a list of tolerations")) return;
  for (size_t i = 0; i < node.items.size(); ++i) {
    const std::string path = index_path(at("tolerations"), i);
    reader_.record(path, node.items[i]);
    parse_toleration(node.items[i], path);
  }
}

void KubernetesParser::parse_toleration(const Node& node, const std::string& path) {
  if (!reader_.mapping(node, path, kTolerationKeys)) return;
  Toleration t;
  bool ok = true;
  if (const Node* n = reader_.optional(node, path, "key")) {
    ok &= reader_.matching(
        *n, join_path(path, "key"),
        [](const std::string& s) { return is_qualified_name(s, false); },
        "a taint key ([prefix/]name)", &t.key);
  }
  size_t index = 0;
  const Node* op = reader_.optional(node, path, "operator");
  if (op && (ok &= reader_.enumeration(*op, join_path(path, "operator"), kOperators, &index))) {
    t.op = kOperators[index];
  }
  const Node* value = reader_.optional(node, path, "value");
  if (value) ok &= reader_.scalar_value(*value, join_path(path, "value"), &t.value);
  const Node* effect = reader_.optional(node, path, "effect");
  if (effect && (ok &= reader_.enumeration(*effect, join_path(path, "effect"), kEffects, &index))) {
    t.effect = kEffects[index];
  }
  if (const Node* n = reader_.optional(node, path, "tolerationSeconds")) {
    if (t.effect != "NoExecute") {
      reader_.error(*n, join_path(path, "tolerationSeconds"),
                    "tolerationSeconds is only used with effect NoExecute");
      ok = false;
    } else {
      ok &= reader_.duration(*n, join_path(path, "tolerationSeconds"), 0, &t.seconds);
    }
  }
  if (t.op == "Exists" && value && !t.value.empty()) {
    reader_.error(*value, join_path(path, "value"),
                  "operator Exists matches any value: leave value out");
    ok = false;
  }
  if (t.key.empty() && t.op != "Exists") {
    reader_.error(node, path, "a toleration without a key needs operator: Exists");
    ok = false;
  }
  if (ok) out_.tolerations.push_back(std::move(t));
}

void KubernetesParser::parse_pull_secrets(const Node& node) {
  const std::string path = at("imagePullSecrets");
  if (!reader_.list(node, path, "a list of Secret names")) return;
  for (size_t i = 0; i < node.items.size(); ++i) {
    const std::string item = index_path(path, i);
    reader_.record(item, node.items[i]);
    std::string secret;
    if (reader_.matching(node.items[i], item, is_dns_subdomain, kSubdomain, &secret)) {
      out_.image_pull_secrets.push_back(secret);
    }
  }
}

void KubernetesParser::parse_volumes(const Node& node) {
  const std::string list = at("volumes");
  if (!reader_.list(node, list, "a list of volumes")) return;
  // Names and paths already taken in the pods: pai's own volumes, the spec's mounts and output.
  std::map<std::string, std::string> names = {{kPodPlanVolume, "pai-compile's plan volume"},
                                              {kPodShmVolume, "pai-compile's /dev/shm volume"},
                                              {kPodOutputVolume, "pai-compile's output volume"}};
  std::map<std::string, std::string> paths = {{kPodPlanDir, "the plan's mount"},
                                              {"/dev/shm", "the /dev/shm volume"}};
  for (size_t i = 0; i < job_.mounts.size(); ++i) {
    names.emplace(job_.mounts[i].name, index_path("mounts", i));
    paths.emplace(job_.mounts[i].target, index_path("mounts", i));
  }
  if (!job_.output.empty()) paths.emplace(job_.output, "output");
  for (size_t i = 0; i < node.items.size(); ++i) {
    const std::string path = index_path(list, i);
    const Node& item = node.items[i];
    reader_.record(path, item);
    if (!reader_.mapping(item, path, kVolumeKeys)) continue;
    ClaimVolume volume;
    bool ok = true;
    const Node* name_node = reader_.required(item, path, "name");
    ok &= name_node && reader_.dns_label(*name_node, join_path(path, "name"), &volume.name);
    if (const Node* n = reader_.required(item, path, "claimName")) {
      ok &= reader_.matching(*n, join_path(path, "claimName"), is_dns_subdomain, kSubdomain,
                             &volume.claim_name);
    } else {
      ok = false;
    }
    const Node* mount = reader_.required(item, path, "mountPath");
    ok &= mount && reader_.absolute_path(*mount, join_path(path, "mountPath"), &volume.mount_path);
    if (const Node* n = reader_.optional(item, path, "readOnly")) {
      ok &= reader_.boolean(*n, join_path(path, "readOnly"), &volume.read_only);
    }
    if (!ok) continue;
    if (const auto [it, fresh] = names.emplace(volume.name, path); !fresh) {
      reader_.error(*name_node, join_path(path, "name"),
                    "volume name " + quote(volume.name) + " is already used by " + it->second);
      continue;
    }
    if (const auto [it, fresh] = paths.emplace(volume.mount_path, path); !fresh) {
      reader_.error(*mount, join_path(path, "mountPath"),
                    "mount path " + quote(volume.mount_path) + " is already used by " + it->second);
      continue;
    }
    out_.volumes.push_back(std::move(volume));
  }
}

}  // namespace

void parse_kubernetes(const Node& node, const std::string& path, const Plan& job,
                      FieldReader& reader, Kubernetes* out) {
  KubernetesParser(path, job, reader, out).parse(node);
}

}  // namespace pai
