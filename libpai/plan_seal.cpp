#include "libpai/plan_seal.h"

#include "libpai/hmac.h"

namespace pai {
namespace {

// The context string of the derived key: a new version of the seal takes a new string.
constexpr std::string_view kSealKeyLabel = "pai plan seal v1";

const char* const kRecompile = "; recompile with pai-compile";

bool lower_hex(std::string_view text) {
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace

std::string plan_seal_key(std::string_view token) { return hmac_sha256(token, kSealKeyLabel); }

std::string keyed_seal(std::string_view canonical, std::string_view token) {
  return std::string(kKeyedSealPrefix) + to_hex(hmac_sha256(plan_seal_key(token), canonical));
}

std::string digest_seal(std::string_view canonical) {
  return std::string(kDigestSealPrefix) + to_hex(sha256(canonical));
}

bool is_seal(std::string_view text) {
  for (std::string_view prefix : {kKeyedSealPrefix, kDigestSealPrefix}) {
    if (text.starts_with(prefix)) {
      const std::string_view hex = text.substr(prefix.size());
      return hex.size() == 2 * kSha256Bytes && lower_hex(hex);
    }
  }
  return false;
}

std::string seal_problem(const std::optional<std::string>& canonical, std::string_view seal,
                         const std::optional<JobToken>& token) {
  if (!is_seal(seal)) {
    return std::string("hash: expected a plan seal, \"") + std::string(kKeyedSealPrefix) +
           "\" and 64 hexadecimal digits" + kRecompile;
  }
  if (seal.starts_with(kKeyedSealPrefix)) {
    if (!token) {
      return "the plan is sealed with its job token, which was not found: keep job.token next "
             "to plan.json or pass --token-file";
    }
    if (!canonical || !equal_secret(keyed_seal(*canonical, token->secret), seal)) {
      return "the plan's seal does not verify with the job token " + token->file +
             ": the plan was edited after pai-compile wrote it, or compiled with another "
             "token" +
             kRecompile;
    }
    return "";
  }
  if (token) {
    return "the plan has an unkeyed sha256 seal, but a job token is present (" + token->file +
           "): pai-compile seals with the token, so the seal was replaced (the plan was "
           "edited)" +
           kRecompile;
  }
  if (!canonical || digest_seal(*canonical) != seal) {
    return "hash mismatch: the plan was modified after it was written" + std::string(kRecompile);
  }
  return "";
}

}  // namespace pai
