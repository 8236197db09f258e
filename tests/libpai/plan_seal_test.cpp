#include "libpai/plan_seal.h"

#include <catch2/catch.hpp>
#include <optional>
#include <string>

#include "libpai/hmac.h"

namespace plan_seal_test {

namespace {

const std::string kCanonical = "{\n  \"name\": \"job\"\n}";
const pai::JobToken kToken{"0123456789abcdef0123456789abcdef", "out/job.token"};
const pai::JobToken kOtherToken{"fedcba9876543210fedcba9876543210", "elsewhere/job.token"};

}  // namespace

TEST_CASE("the seal key is derived from the token - not the token itself") {
  CHECK(pai::plan_seal_key(kToken.secret) == pai::hmac_sha256(kToken.secret, "pai plan seal v1"));
  CHECK(pai::plan_seal_key(kToken.secret) != kToken.secret);
  // The seal is not the HMAC the coordinator handshake would make with the token itself.
  CHECK(pai::keyed_seal(kCanonical, kToken.secret) !=
        "hmac-sha256:" + pai::to_hex(pai::hmac_sha256(kToken.secret, kCanonical)));
  CHECK(pai::keyed_seal(kCanonical, kToken.secret) ==
        "hmac-sha256:" +
            pai::to_hex(pai::hmac_sha256(pai::plan_seal_key(kToken.secret), kCanonical)));
  CHECK(pai::digest_seal(kCanonical) == "sha256:" + pai::to_hex(pai::sha256(kCanonical)));
}

TEST_CASE("is_seal accepts both forms with 64 lowercase hex digits only") {
  CHECK(pai::is_seal(pai::keyed_seal(kCanonical, kToken.secret)));
  CHECK(pai::is_seal(pai::digest_seal(kCanonical)));
  CHECK(pai::is_seal("sha256:" + std::string(64, 'a')));
  CHECK_FALSE(pai::is_seal("sha256:" + std::string(63, 'a')));
  CHECK_FALSE(pai::is_seal("sha256:" + std::string(65, 'a')));
  CHECK_FALSE(pai::is_seal("sha256:" + std::string(64, 'A')));
  CHECK_FALSE(pai::is_seal("md5:" + std::string(64, 'a')));
  CHECK_FALSE(pai::is_seal("hmac-sha256:" + std::string(63, 'a') + "\n"));
  CHECK_FALSE(pai::is_seal(""));
}

TEST_CASE("a keyed seal verifies with its token only") {
  const std::string seal = pai::keyed_seal(kCanonical, kToken.secret);
  CHECK(pai::seal_problem(kCanonical, seal, kToken) == "");
  const std::string not_verified =
      "the plan's seal does not verify with the job token out/job.token: the plan was edited "
      "after pai-compile wrote it, or compiled with another token; recompile with pai-compile";
  CHECK(pai::seal_problem(kCanonical + " ", seal, kToken) == not_verified);
  CHECK(pai::seal_problem(std::nullopt, seal, kToken) == not_verified);
  CHECK(pai::seal_problem(kCanonical, seal, kOtherToken) ==
        "the plan's seal does not verify with the job token elsewhere/job.token: the plan was "
        "edited after pai-compile wrote it, or compiled with another token; recompile with "
        "pai-compile");
  CHECK(pai::seal_problem(kCanonical, seal, std::nullopt) ==
        "the plan is sealed with its job token, which was not found: keep job.token next to "
        "plan.json or pass --token-file");
}

TEST_CASE("an unkeyed seal is verified without a token - refused next to one") {
  const std::string seal = pai::digest_seal(kCanonical);
  CHECK(pai::seal_problem(kCanonical, seal, std::nullopt) == "");
  CHECK(pai::seal_problem(kCanonical + " ", seal, std::nullopt) ==
        "hash mismatch: the plan was modified after it was written; recompile with pai-compile");
  CHECK(pai::seal_problem(std::nullopt, seal, std::nullopt) ==
        "hash mismatch: the plan was modified after it was written; recompile with pai-compile");
  // A correct digest is no excuse: with a token, the plan must carry the token's seal.
  CHECK(pai::seal_problem(kCanonical, seal, kToken) ==
        "the plan has an unkeyed sha256 seal, but a job token is present (out/job.token): "
        "pai-compile seals with the token, so the seal was replaced (the plan was edited); "
        "recompile with pai-compile");
}

TEST_CASE("a seal of another form is refused with or without a token") {
  const std::string expected =
      "hash: expected a plan seal, \"hmac-sha256:\" and 64 hexadecimal digits; recompile with "
      "pai-compile";
  for (const std::string& seal :
       {std::string("md5:abc"), std::string(""), "HMAC-SHA256:" + std::string(64, '0')}) {
    INFO(seal);
    CHECK(pai::seal_problem(kCanonical, seal, kToken) == expected);
    CHECK(pai::seal_problem(kCanonical, seal, std::nullopt) == expected);
  }
}

}  // namespace plan_seal_test
