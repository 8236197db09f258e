// The manifests' YAML as a value: the writers of k8s/job.yaml (kubeflow_manifest.h,
// trainer_manifest.h and the pod template they share, pod_template.h) build a tree of these,
// and emit_yaml() writes it, the only use of yaml-cpp's emitter. Building a tree keeps the
// third-party type out of the headers and lets the writers share parts (one pod template
// serves a Kubeflow replica and a JobSet replicated job).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace pai {

/// One YAML node: a scalar (plain text, double-quoted text, an integer or a boolean), a
/// sequence (block or flow style) or a mapping whose keys keep the order they were set in.
class Yaml {
 public:
  enum class Kind { Plain, Quoted, Integer, Boolean, Sequence, FlowSequence, Mapping };

  /// A plain scalar (yaml-cpp quotes it only where YAML needs it).
  Yaml(std::string text);  // NOLINT(google-explicit-constructor): scalars read naturally
  Yaml(const char* text);  // NOLINT(google-explicit-constructor)
  /// A double-quoted scalar: text a reader must not take for a number or a bool.
  static Yaml quoted(std::string text);
  static Yaml integer(std::int64_t value);
  static Yaml boolean(bool value);
  /// An empty mapping, block sequence or flow sequence ([a, b]).
  static Yaml map();
  static Yaml seq();
  static Yaml flow_seq();

  /// Appends `key: value` to a mapping and returns the value added, to be filled in.
  Yaml& set(const std::string& key, Yaml value);
  /// Appends `item` to a sequence and returns it.
  Yaml& add(Yaml item);

  Kind kind() const { return kind_; }
  /// A scalar's text ("true"/"false" for a boolean, the digits of an integer).
  std::string text() const;
  /// An integer's value; a boolean's.
  std::int64_t number() const { return number_; }
  bool flag() const { return flag_; }
  /// A mapping's entries in order; a sequence's items.
  const std::vector<std::pair<std::string, Yaml>>& entries() const { return entries_; }
  const std::vector<Yaml>& items() const { return items_; }
  /// The value of `key` in a mapping, or nullptr.
  const Yaml* find(const std::string& key) const;

 private:
  explicit Yaml(Kind kind) : kind_(kind) {}

  Kind kind_ = Kind::Plain;
  std::string text_;
  std::int64_t number_ = 0;
  bool flag_ = false;
  std::vector<std::pair<std::string, Yaml>> entries_;
  std::vector<Yaml> items_;
};

/// `doc` as YAML text (yaml-cpp's emitter, indent 2), without a trailing newline.
/// Deterministic.
std::string emit_yaml(const Yaml& doc);

}  // namespace pai
