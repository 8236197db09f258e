#include "compiler/targets/k8s/yaml_tree.h"

#include <yaml-cpp/emitter.h>
#include <yaml-cpp/emittermanip.h>

#include <stdexcept>

namespace pai {

Yaml::Yaml(std::string text) : kind_(Kind::Plain), text_(std::move(text)) {}

Yaml::Yaml(const char* text) : Yaml(std::string(text)) {}

Yaml Yaml::quoted(std::string text) {
  Yaml y(Kind::Quoted);
  y.text_ = std::move(text);
  return y;
}

Yaml Yaml::integer(std::int64_t value) {
  Yaml y(Kind::Integer);
  y.number_ = value;
  return y;
}

Yaml Yaml::boolean(bool value) {
  Yaml y(Kind::Boolean);
  y.flag_ = value;
  return y;
}

Yaml Yaml::map() { return Yaml(Kind::Mapping); }
Yaml Yaml::seq() { return Yaml(Kind::Sequence); }
Yaml Yaml::flow_seq() { return Yaml(Kind::FlowSequence); }

// Misuse is a bug in a writer, not bad input: it fails loudly.
Yaml& Yaml::set(const std::string& key, Yaml value) {
  if (kind_ != Kind::Mapping) throw std::logic_error("Yaml::set on a node that is no mapping");
  entries_.emplace_back(key, std::move(value));
  return entries_.back().second;
}

Yaml& Yaml::add(Yaml item) {
  if (kind_ != Kind::Sequence && kind_ != Kind::FlowSequence) {
    throw std::logic_error("Yaml::add on a node that is no sequence");
  }
  items_.push_back(std::move(item));
  return items_.back();
}

std::string Yaml::text() const {
  switch (kind_) {
    case Kind::Integer:
      return std::to_string(number_);
    case Kind::Boolean:
      return flag_ ? "true" : "false";
    default:
      return text_;
  }
}

const Yaml* Yaml::find(const std::string& key) const {
  for (const auto& [name, value] : entries_) {
    if (name == key) return &value;
  }
  return nullptr;
}

namespace {

void emit(YAML::Emitter& out, const Yaml& node) {
  switch (node.kind()) {
    case Yaml::Kind::Plain:
      out << node.text();
      break;
    case Yaml::Kind::Quoted:
      out << YAML::DoubleQuoted << node.text();
      break;
    case Yaml::Kind::Integer:
      out << static_cast<long long>(node.number());
      break;
    case Yaml::Kind::Boolean:
      out << node.flag();
      break;
    case Yaml::Kind::FlowSequence:
      out << YAML::Flow;
      [[fallthrough]];
    case Yaml::Kind::Sequence:
      out << YAML::BeginSeq;
      for (const Yaml& item : node.items()) emit(out, item);
      out << YAML::EndSeq;
      break;
    case Yaml::Kind::Mapping:
      // An empty mapping reads best as {} on its key's line.
      if (node.entries().empty()) out << YAML::Flow;
      out << YAML::BeginMap;
      for (const auto& [key, value] : node.entries()) {
        out << YAML::Key << key << YAML::Value;
        emit(out, value);
      }
      out << YAML::EndMap;
      break;
  }
}

}  // namespace

std::string emit_yaml(const Yaml& doc) {
  YAML::Emitter out;
  out.SetIndent(2);
  emit(out, doc);
  return out.c_str();
}

}  // namespace pai
