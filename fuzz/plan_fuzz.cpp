// libFuzzer harness over the launcher's plan loader: any input must either load or be
// refused with a PlanError.
#include <cstddef>
#include <cstdint>
#include <string>

#include "libpai/plan_json.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 256 * 1024) return -1;
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const pai::Plan plan = pai::plan_from_json(text, "plan.json");
    // What loaded must serialize again without surprises.
    pai::plan_to_json(plan);
  } catch (const pai::PlanError&) {
  }
  return 0;
}
