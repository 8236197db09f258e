// The spec's framework sections (docs/frameworks.md): `megatron` (the model-parallel sizes)
// and `ray` (how the head runs the entrypoint), parsed for parse_spec().
#pragma once

#include "compiler/document/document.h"
#include "compiler/document/field_reader.h"
#include "compiler/spec/spec.h"

namespace pai {

/// Reads `megatron` and `ray` from the spec's `root` into `spec` (spec.job.megatron,
/// spec.ray). Each belongs to its framework: under another one it is an error at its key.
/// `spec.job.framework` must be parsed already.
void parse_framework_sections(const Node& root, FieldReader& reader, JobSpec& spec);

}  // namespace pai
