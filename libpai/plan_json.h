// plan.json: the Plan's JSON form (schemas/plan.schema.json) and its seal (plan_seal.h).
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "libpai/plan.h"
#include "libpai/plan_seal.h"

namespace pai {

/// A plan file that cannot be used: missing, malformed, tampered, from an older or newer
/// compiler. what() is a complete message naming the file and the field.
class PlanError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The plan as canonical JSON text (sorted keys, 2-space indent, trailing newline), sealed
/// with the job token: "hash": "hmac-sha256:<hex>" over the canonical text without the hash
/// member (plan_seal.h). What pai-compile writes. Same plan and token -> byte-identical text.
/// Throws std::invalid_argument for an empty token.
std::string plan_to_json(const Plan& plan, std::string_view token);

/// plan_to_json(plan, token), also setting `*seal` to the seal it wrote (plan_seal(plan,
/// token)): for a caller that needs both, the canonical text is made and hashed once.
std::string plan_to_json(const Plan& plan, std::string_view token, std::string* seal);

/// The same text with an unkeyed seal, "hash": "sha256:<hex>", for a plan written by a program
/// that has no job token. It catches accidents, not tampering; a launcher runs such a plan only
/// where it finds no token (a one-node job).
std::string plan_to_json_unkeyed(const Plan& plan);

/// The seal plan_to_json(plan, token) writes.
std::string plan_seal(const Plan& plan, std::string_view token);

/// The JSON of one role's launch plan (roles/<role>.json): the role, its placements, and as
/// "planHash" `seal`, the seal of the plan.json it belongs to.
std::string role_to_json(const Plan& plan, const Role& role, std::string_view seal);

/// Parses and verifies plan.json text read from `file` (used in messages) with the job token
/// found for it (nullopt: none). Throws PlanError for invalid JSON, a planVersion outside
/// [kMinPlanVersion, kPlanVersion], a missing or mistyped field (naming its path), or a seal
/// that does not verify (plan_seal.h's seal_problem). The plan's `seal` is the verified seal.
Plan plan_from_json(const std::string& text, const std::string& file,
                    const std::optional<JobToken>& token);

/// Reads and parses `path`, as plan_from_json; PlanError if it cannot be read.
Plan load_plan_file(const std::string& path, const std::optional<JobToken>& token);

}  // namespace pai
