// faultTolerance and sanityCheck: the job's policies, parsed for parse_spec().
#pragma once

#include <map>
#include <string>

#include "compiler/document/document.h"
#include "compiler/document/field_reader.h"
#include "libpai/plan.h"

namespace pai {

/// Parses `faultTolerance` at `path` into `out`, whose fields keep their (AIMaster)
/// defaults where not written or wrong.
void parse_fault_tolerance(const Node& node, const std::string& path, FieldReader& reader,
                           FaultTolerance* out);

/// The built-in sanity checks in their run order: gpu, burn, nccl, network, mounts, disk.
const std::vector<std::string>& builtin_check_names();

/// What `sanityCheck.checks` may list: the built-in node checks and the job-wide `fabric`.
const std::vector<std::string>& check_names();

/// Parses `sanityCheck` at `path` into `out` (defaults kept where not written or wrong;
/// `out->checks` should start as all six). `fabric` in `checks` turns on
/// out->fabric and is not kept in out->checks. ${parameters.x} in custom commands is
/// substituted from `parameters`.
void parse_sanity_check(const Node& node, const std::string& path,
                        const std::map<std::string, std::string>& parameters,
                        FieldReader& reader, SanityCheck* out);

}  // namespace pai
