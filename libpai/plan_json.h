// plan.json: the Plan's JSON form (schemas/plan.schema.json) and its content hash.
#pragma once

#include <stdexcept>
#include <string>

#include "libpai/plan.h"

namespace pai {

/// A plan file that cannot be used: missing, malformed, tampered, from a newer compiler.
/// what() is a complete message naming the file and the field.
class PlanError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The plan as canonical JSON text (sorted keys, 2-space indent, trailing newline),
/// including "hash": "sha256:<hex of the canonical text without the hash field>".
/// Same plan -> byte-identical text.
std::string plan_to_json(const Plan& plan);

/// The JSON of one role's launch plan (roles/<role>.json): the role and its placements.
std::string role_to_json(const Plan& plan, const Role& role);

/// Parses and verifies plan.json text read from `file` (used in messages). Throws
/// PlanError for invalid JSON, a missing or mistyped field (naming its path), a
/// planVersion newer than kPlanVersion, or a hash that does not match the content.
Plan plan_from_json(const std::string& text, const std::string& file);

/// Reads and parses `path`; PlanError if it cannot be read.
Plan load_plan_file(const std::string& path);

}  // namespace pai
