// The shapes of Kubernetes names the spec's `kubernetes` section holds (Kubernetes' own
// validation rules, k8s.io/apimachinery/pkg/util/validation): checked when the spec is parsed,
// so that the API server never refuses a manifest pai-compile wrote.
#pragma once

#include <string>

namespace pai {

/// A DNS-1123 subdomain: dot-separated DNS labels, at most 253 characters (names of Secrets,
/// PersistentVolumeClaims, PriorityClasses, queues, label key prefixes).
bool is_dns_subdomain(const std::string& s);

/// A label's name part or a label value: at most 63 letters, digits, '-', '_' or '.',
/// starting and ending with a letter or digit (a value may also be empty; not checked here).
bool is_label_name(const std::string& s);

/// A label key or a resource name: [prefix/]name, the prefix a DNS subdomain, the name as
/// is_label_name(); the prefix is required when `prefix_required`.
bool is_qualified_name(const std::string& s, bool prefix_required);

/// A Multus network reference: [namespace/]name[@interface].
bool is_network_reference(const std::string& s);

}  // namespace pai
