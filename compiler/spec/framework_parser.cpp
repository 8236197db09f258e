#include "compiler/spec/framework_parser.h"

#include <string>
#include <vector>

namespace pai {
namespace {

const std::vector<std::string> kMegatronKeys = {"tensorParallel", "pipelineParallel",
                                                "contextParallel"};
const std::vector<std::string> kRayKeys = {"entrypoint"};

// The section `key` when it is there and the job's framework is `framework`; an error at the
// key when it is there under another framework.
const Node* section(const Node& root, FieldReader& reader, const JobSpec& spec, const char* key,
                    Framework framework) {
  const Node* node = reader.optional(root, "", key);
  if (node == nullptr || spec.job.framework == framework) return node;
  reader.error(*node, key,
               std::string(key) + " is for framework " + to_string(framework) +
                   " (the framework is " + to_string(spec.job.framework) + ")");
  return nullptr;
}

void parse_megatron(const Node& node, FieldReader& reader, Megatron* out) {
  if (!reader.mapping(node, "megatron", kMegatronKeys)) return;
  for (const auto& [key, field] : {std::pair{"tensorParallel", &out->tensor_parallel},
                                   {"pipelineParallel", &out->pipeline_parallel},
                                   {"contextParallel", &out->context_parallel}}) {
    if (const Node* n = reader.optional(node, "megatron", key)) {
      reader.integer(*n, join_path("megatron", key), 1, 65536, field);
    }
  }
}

void parse_ray(const Node& node, FieldReader& reader, RaySpec* out) {
  if (!reader.mapping(node, "ray", kRayKeys)) return;
  if (const Node* n = reader.optional(node, "ray", "entrypoint")) {
    size_t index = 0;
    if (reader.enumeration(*n, "ray.entrypoint", {"driver", "submit"}, &index)) {
      out->submit = index == 1;
    }
  }
}

}  // namespace

void parse_framework_sections(const Node& root, FieldReader& reader, JobSpec& spec) {
  if (const Node* n = section(root, reader, spec, "megatron", Framework::Megatron)) {
    parse_megatron(*n, reader, &spec.job.megatron);
  }
  if (const Node* n = section(root, reader, spec, "ray", Framework::Ray)) {
    parse_ray(*n, reader, &spec.ray);
  }
}

}  // namespace pai
