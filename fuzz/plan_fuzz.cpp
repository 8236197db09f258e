// libFuzzer harness over the launcher's plan loader: any input must either load or be
// refused with a PlanError, with a job token (keyed seals) and without one (unkeyed seals).
// The seeds in corpus/plan are sealed unkeyed, so that mutations reach past the seal check.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "libpai/plan_json.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 256 * 1024) return -1;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const pai::JobToken token{"fuzz-token", "job.token"};
  const std::optional<pai::JobToken> tokens[] = {std::nullopt, token};
  for (const std::optional<pai::JobToken>& found : tokens) {
    try {
      const pai::Plan plan = pai::plan_from_json(text, "plan.json", found);
      // What loaded must serialize again without surprises.
      pai::plan_to_json(plan, token.secret);
    } catch (const pai::PlanError&) {
    }
  }
  return 0;
}
