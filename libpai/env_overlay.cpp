#include "libpai/env_overlay.h"

#include <string_view>
#include <unordered_map>

namespace pai {

void overlay_env(EnvList& base, const EnvList& layer) {
  if (layer.empty()) return;
  // Layers are small next to a job layer of a few hundred names, so index the base once
  // instead of searching it for every name of the layer.
  // Reserve first: the index points into the base's strings, which must not move.
  base.reserve(base.size() + layer.size());
  std::unordered_map<std::string_view, std::size_t> index;
  index.reserve(base.size());
  for (std::size_t i = 0; i < base.size(); ++i) index.emplace(base[i].first, i);
  std::size_t original = base.size();
  for (const auto& [name, value] : layer) {
    auto it = index.find(name);
    if (it != index.end() && it->second < original) {
      base[it->second].second = value;
    } else {
      base.emplace_back(name, value);
    }
  }
}

}  // namespace pai
