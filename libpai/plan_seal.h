// The seal of plan.json (its "hash" member): what shows that a plan is the one pai-compile
// wrote for this job.
//
// Keyed, "hmac-sha256:<hex>": HMAC-SHA256 of the plan's canonical text under a key derived
// from the job token. pai-compile always seals so; without the token nobody can make a seal
// that verifies, so an edited plan is refused wherever the token is.
// Unkeyed, "sha256:<hex>": a plain digest, for a plan written by a program that has no job
// token (not by pai-compile). Anyone can recompute it: it catches accidents (a truncated copy,
// a stray edit), never tampering, and it is accepted only where no token is (a one-node job).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace pai {

inline constexpr std::string_view kKeyedSealPrefix = "hmac-sha256:";
inline constexpr std::string_view kDigestSealPrefix = "sha256:";

/// The job token a plan is verified with, as the launcher found it.
struct JobToken {
  std::string secret;  ///< the token's text; never part of a message
  std::string file;    ///< where it was read from, named in messages
};

/// The key of keyed seals: HMAC-SHA256(token, "pai plan seal v1"). Derived, so that a seal
/// never uses the key the coordinator's handshake proves knowledge of (docs/protocol.md).
std::string plan_seal_key(std::string_view token);

/// "hmac-sha256:" + hex of HMAC-SHA256(plan_seal_key(token), canonical).
std::string keyed_seal(std::string_view canonical, std::string_view token);

/// "sha256:" + hex of SHA-256(canonical).
std::string digest_seal(std::string_view canonical);

/// Whether `text` has the form of a seal: a prefix above and 64 lowercase hex digits.
bool is_seal(std::string_view text);

/// Why `seal` does not seal the plan whose canonical text is `canonical` (nullopt: the file
/// is not in the exact form its seal was made over, e.g. reformatted or truncated), given the
/// job token found beside it (nullopt: none), as text to follow "<plan file>: "; "" when it
/// does. A keyed seal needs the token and must verify with it; an unkeyed one must match its
/// digest and is refused outright when a token is present: pai-compile seals with the token,
/// so a plain digest next to one means the seal was replaced (a downgrade).
std::string seal_problem(const std::optional<std::string>& canonical, std::string_view seal,
                         const std::optional<JobToken>& token);

}  // namespace pai
