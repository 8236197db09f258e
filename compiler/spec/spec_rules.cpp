#include "compiler/spec/spec_rules.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <unordered_map>

#include "compiler/document/did_you_mean.h"
#include "compiler/document/field_reader.h"
#include "compiler/spec/framework_rules.h"
#include "compiler/spec/pod_names.h"
#include "libpai/env_contract.h"
#include "libpai/etcd_endpoint.h"

namespace pai {

namespace {

class RuleChecker {
 public:
  RuleChecker(const JobSpec& spec, Diagnostics& diags) : spec_(spec), diags_(diags) {}

  void check();

 private:
  void error(const std::string& path, const std::string& message) {
    diags_.error(spec_.where(path), path, message);
  }
  void check_hosts();
  void check_enough_hosts();
  void check_role(const Role& role, const std::string& path, size_t first_host);
  void check_slots(const Role& role, const std::string& path, const char* field, int value,
                   size_t first_host);
  void check_names();
  void check_mounts();
  void check_kubernetes();
  void check_coordinator_ha();

  const JobSpec& spec_;
  Diagnostics& diags_;
};

std::string role_path(const Role& role) { return "roles." + role.name; }

void RuleChecker::check() {
  const Plan& job = spec_.job;
  if (job.port_range_min > job.port_range_max) {
    error("portRange.min", "min " + std::to_string(job.port_range_min) + " is greater than max " +
                               std::to_string(job.port_range_max));
  }
  if (const int port = job.monitoring.metrics_port; port != 0) {
    // The coordinator's host also runs ranks: a port the plan hands out there must stay free.
    if (port >= job.port_range_min && port <= job.port_range_max) {
      error("monitoring.metricsPort", "port " + std::to_string(port) + " is inside portRange " +
                                          std::to_string(job.port_range_min) + "-" +
                                          std::to_string(job.port_range_max) +
                                          ", whose ports go to the job");
    } else if (port == job.coordinator_port) {
      error("monitoring.metricsPort",
            "port " + std::to_string(port) + " is the coordinator's (coordinator.port)");
    }
  }
  if (job.runtime != Runtime::Host && job.image.empty()) {
    error("runtime", std::string("runtime ") + to_string(job.runtime) +
                         " needs an image: set the top-level image field");
  }
  if (job.framework == Framework::Mpi && !find_role(job, "launcher")) {
    error("framework", "framework mpi needs a role named \"launcher\" (the instance that runs "
                       "mpirun)");
  }
  check_hosts();
  check_enough_hosts();
  size_t first_host = 0;
  for (const Role& role : job.roles) {
    check_role(role, role_path(role), first_host);
    first_host += static_cast<size_t>(role.instances);
  }
  check_names();
  check_mounts();
  check_kubernetes();
  check_framework(spec_, diags_);
}

void RuleChecker::check_hosts() {
  const Plan& job = spec_.job;
  struct Seen {
    std::string path;
    std::string name;
  };
  // Hashed: only lookups, and a 10,000-node inventory makes 20,000 of them.
  std::unordered_map<std::string, Seen> names, addresses;
  names.reserve(job.hosts.size() + job.spares.size());
  addresses.reserve(job.hosts.size() + job.spares.size());
  const auto visit = [&](const std::vector<Host>& hosts, const char* list) {
    for (size_t i = 0; i < hosts.size(); ++i) {
      const Host& host = hosts[i];
      const std::string path = index_path(list, i);
      if (host.name.empty()) continue;  // already reported by the parser
      const auto [name_it, new_name] = names.try_emplace(host.name, Seen{path, host.name});
      if (!new_name) {
        error(join_path(path, "name"),
              "duplicate host name " + quote(host.name) + " (also " + name_it->second.path + ")");
        continue;
      }
      const auto [addr_it, new_address] =
          addresses.try_emplace(host.address, Seen{path, host.name});
      if (!new_address) {
        error(join_path(path, "address"), "duplicate address " + quote(host.address) +
                                              " (also " + addr_it->second.path + ", host " +
                                              quote(addr_it->second.name) + ")");
      }
    }
  };
  visit(job.hosts, "hosts");
  visit(job.spares, "spares");
}

void RuleChecker::check_enough_hosts() {
  const Plan& job = spec_.job;
  // Without roles (already an error) there is nothing to place.
  if (job.roles.empty()) return;
  // A malformed hosts list has its own errors already; counting what is left of it would
  // only add a misleading one.
  for (const Diagnostic& d : diags_.all()) {
    if (d.severity == Severity::Error && d.path.rfind("hosts", 0) == 0) return;
  }
  if (job.hosts.empty()) {
    error("hosts", "no hosts: list the inventory under hosts or pass --hosts FILE");
    return;
  }
  long needed = 0;
  std::string detail;
  for (const Role& role : job.roles) {
    needed += role.instances;
    detail += (detail.empty() ? "" : ", ") + role.name + ": " + std::to_string(role.instances);
  }
  if (needed > static_cast<long>(job.hosts.size())) {
    error("hosts", "not enough hosts: the roles have " + std::to_string(needed) +
                       " instances (" + detail + ") but there " +
                       (job.hosts.size() == 1 ? "is 1 host" :
                                                "are " + std::to_string(job.hosts.size()) +
                                                    " hosts") +
                       "; each instance needs its own host");
  }
}

void RuleChecker::check_slots(const Role& role, const std::string& path, const char* field,
                              int value, size_t first_host) {
  const std::vector<Host>& hosts = spec_.job.hosts;
  const size_t end = std::min(hosts.size(), first_host + static_cast<size_t>(role.instances));
  size_t first_bad = hosts.size();
  int bad = 0;
  for (size_t i = first_host; i < end; ++i) {
    if (hosts[i].slots > 0 && value > hosts[i].slots) {
      if (bad++ == 0) first_bad = i;
    }
  }
  if (bad == 0) return;
  const Host& host = hosts[first_bad];
  std::string message = std::string(field) + " " + std::to_string(value) +
                        " is more than the " + std::to_string(host.slots) + " slots of host " +
                        quote(host.name) + " (hosts[" + std::to_string(first_bad) + "]";
  if (bad > 1) message += ", and " + std::to_string(bad - 1) + " more of the role's hosts";
  error(join_path(path, field), message + ")");
}

void RuleChecker::check_role(const Role& role, const std::string& path, size_t first_host) {
  const int gpu = role.resources.gpu;
  const int nproc = role.nproc_per_node;
  bool nproc_ok = true;
  if (gpu >= 1 && nproc != 1 && nproc > gpu) {
    nproc_ok = false;
    error(join_path(path, "nprocPerNode"),
          "nprocPerNode " + std::to_string(nproc) + " is more than resources.gpu " +
              std::to_string(gpu) + " (use 1, at most " + std::to_string(gpu) + ", or gpu)");
  }
  if (nproc_ok) check_slots(role, path, "nprocPerNode", nproc, first_host);
  if (gpu != nproc) check_slots(role, path, "resources.gpu", gpu, first_host);

  const auto check_completion = [&](const char* field, int value) {
    if (value > role.instances) {
      error(join_path(path, std::string("completion.") + field),
            std::string(field) + " " + std::to_string(value) + " is more than the role's " +
                std::to_string(role.instances) +
                (role.instances == 1 ? " instance" : " instances"));
    }
  };
  check_completion("minSucceeded", role.completion.min_succeeded);
  check_completion("minFailed", role.completion.min_failed);

  std::map<std::string, std::string> folded;
  for (const PortRequest& port : role.ports) {
    std::string key = port.label;
    for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const auto [it, inserted] = folded.try_emplace(key, port.label);
    if (!inserted) {
      error(join_path(path, "ports." + port.label),
            "port label " + quote(port.label) + " collides with " + quote(it->second) +
                " (labels must differ in more than letter case)");
    }
  }
  for (const auto& [name, value] : role.env) {
    if (is_reserved_env_name(name, spec_.job)) {
      error(join_path(path, "env." + name),
            name + " is set by pai for every process and cannot be overridden");
    }
  }
}

void RuleChecker::check_names() {
  const Plan& job = spec_.job;
  if (!job.roles.empty() && !find_role(job, job.master_role)) {
    std::vector<std::string> names;
    for (const Role& role : job.roles) names.push_back(role.name);
    std::string hint = did_you_mean(job.master_role, names);
    if (hint.empty()) {
      hint = " (roles:";
      for (size_t i = 0; i < names.size(); ++i) hint += (i ? ", " : " ") + names[i];
      hint += ")";
    }
    error("masterRole", "unknown role " + quote(job.master_role) + hint);
  }
  if (!job.coordinator_host.empty()) {
    std::vector<std::string> names;
    size_t index = job.hosts.size();
    for (size_t i = 0; i < job.hosts.size(); ++i) {
      names.push_back(job.hosts[i].name);
      if (job.hosts[i].name == job.coordinator_host && index == job.hosts.size()) index = i;
    }
    size_t used = 0;
    for (const Role& role : job.roles) used += static_cast<size_t>(role.instances);
    if (index == job.hosts.size()) {
      error("coordinator.host", "unknown host " + quote(job.coordinator_host) +
                                    did_you_mean(job.coordinator_host, names));
    } else if (index >= used) {
      error("coordinator.host",
            "host " + quote(job.coordinator_host) + " runs no role instance (the roles use only " +
                (used == 1 ? std::string("the first host)")
                           : "the first " + std::to_string(used) + " hosts)"));
    }
  }
  check_coordinator_ha();
  std::map<std::string, size_t> checks;
  const std::vector<CustomCheck>& custom = job.sanity_check.custom;
  for (size_t i = 0; i < custom.size(); ++i) {
    const auto [it, inserted] = checks.try_emplace(custom[i].name, i);
    if (!inserted && !custom[i].name.empty()) {
      const std::string path = index_path("sanityCheck.custom", i);
      error(join_path(path, "name"), "duplicate check name " + quote(custom[i].name) + " (also " +
                                         index_path("sanityCheck.custom", it->second) + ")");
    }
  }
}

void RuleChecker::check_mounts() {
  std::map<std::string, size_t> names, targets;
  const std::vector<Mount>& mounts = spec_.job.mounts;
  for (size_t i = 0; i < mounts.size(); ++i) {
    const std::string path = index_path("mounts", i);
    const auto [name_it, new_name] = names.try_emplace(mounts[i].name, i);
    if (!new_name && !mounts[i].name.empty()) {
      error(join_path(path, "name"), "duplicate mount name " + quote(mounts[i].name) + " (also " +
                                         index_path("mounts", name_it->second) + ")");
    }
    const auto [target_it, new_target] = targets.try_emplace(mounts[i].target, i);
    if (!new_target && !mounts[i].target.empty()) {
      error(join_path(path, "target"), "duplicate mount target " + quote(mounts[i].target) +
                                           " (also " + index_path("mounts", target_it->second) +
                                           ")");
    }
  }
}

// The job's name becomes its pods' names and host names on Kubernetes (design §3: the name
// is usable as a Kubernetes name), which are DNS labels: checked with the longest suffix the
// job's instances get, whatever the target, so that a spec compiles alike for every target.
void RuleChecker::check_kubernetes() {
  const Plan& job = spec_.job;
  if (job.roles.empty() || job.name.empty()) return;
  const std::string longest = longest_pod_name(job);
  if (longest.size() > kMaxPodNameLength) {
    const std::string random = kPodRandomSuffix;
    const bool suffixed =
        longest.size() > random.size() &&
        longest.compare(longest.size() - random.size(), random.size(), random) == 0;
    error("name",
          "name " + quote(job.name) + " is too long for the job's pods: \"" + longest + "\"" +
              (suffixed ? " (" + random.substr(1) + ": the random characters Kubernetes appends)"
                        : "") +
              " has " + std::to_string(longest.size()) +
              " characters, and pod and host names are DNS labels of at most " +
              std::to_string(kMaxPodNameLength) + " (shorten the name by " +
              std::to_string(longest.size() - kMaxPodNameLength) + ")");
  }
  const Kubernetes& k = job.kubernetes;
  int pods = 0;
  for (const Role& role : job.roles) pods += role.instances;
  if (k.gang && k.min_available > pods) {
    error("kubernetes.schedulingPolicy.minAvailable",
          "minAvailable " + std::to_string(k.min_available) + " is more than the job's " +
              std::to_string(pods) + (pods == 1 ? " pod" : " pods"));
  }
}

}  // namespace

void RuleChecker::check_coordinator_ha() {
  const CoordinatorHa& ha = spec_.job.coordinator_ha;
  if (ha.etcd.empty()) {
    if (spec_.locations.count("coordinator.ha.etcd") != 0) {
      error("coordinator.ha.etcd", "lists no etcd member: give their client URLs, or leave ha out");
    }
    return;
  }
  constexpr std::size_t kMaxMembers = 16;
  if (ha.etcd.size() > kMaxMembers) {
    error("coordinator.ha.etcd", std::to_string(ha.etcd.size()) +
                                     " etcd members: at most 16 (an etcd cluster has 3 to 7)");
  }
  std::map<std::string, std::size_t> seen;
  for (std::size_t i = 0; i < ha.etcd.size(); ++i) {
    const std::string path = index_path("coordinator.ha.etcd", i);
    std::string why;
    if (!parse_etcd_endpoint(ha.etcd[i], &why)) {
      error(path, quote(ha.etcd[i]) + ": " + why);
    } else if (const auto [it, inserted] = seen.try_emplace(ha.etcd[i], i); !inserted) {
      error(path, "duplicate etcd member " + quote(ha.etcd[i]) + " (also " +
                      index_path("coordinator.ha.etcd", it->second) + ")");
    }
  }
  if (ha.lease_seconds > CoordinatorHa::kMaxLeaseSeconds) {
    error("coordinator.ha.lease",
          "expected 1s to 60s, got " + std::to_string(ha.lease_seconds) +
              "s (the job goes on without a coordinator for up to this long when it dies)");
  }
}

void check_spec(const JobSpec& spec, Diagnostics& diags) { RuleChecker(spec, diags).check(); }

}  // namespace pai
