// What a coordinator taking over a job reads from etcd (launcher/coordinator/takeover.h): the
// lost leader's state, JSON that any client of the etcd cluster could have written. Anything
// must be refused with a TakeoverStateError, or read within the bounds given and written back
// to JSON that reads to the same state.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "launcher/coordinator/takeover.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using pai::launcher::coordinator::TakeoverStateError;
  using pai::launcher::coordinator::takeover_state_from_json;
  constexpr std::size_t kInstances = 64;
  constexpr std::size_t kNodes = 80;
  const auto json =
      nlohmann::json::parse(std::string(reinterpret_cast<const char*>(data), size), nullptr, false);
  if (json.is_discarded()) return 0;
  try {
    const auto state = takeover_state_from_json(json, kInstances, kNodes);
    if (state.policy.restart_counts.size() > kInstances || state.out.size() > kNodes) std::abort();
    if (takeover_state_from_json(nlohmann::json::parse(to_json(state).dump()), kInstances,
                                 kNodes) != state) {
      std::abort();
    }
  } catch (const TakeoverStateError&) {
  }
  return 0;
}
