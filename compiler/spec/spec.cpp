#include "compiler/spec/spec.h"

namespace pai {

Location JobSpec::where(const std::string& path) const {
  std::string p = path;
  while (true) {
    const auto it = locations.find(p);
    if (it != locations.end()) return it->second;
    if (p.empty()) break;
    // The parent of "a.b" and of "a[2]" is "a"; of a top-level field it is "".
    const size_t cut = p.find_last_of(".[");
    p = cut == std::string::npos ? std::string() : p.substr(0, cut);
  }
  Location file_only;
  if (!locations.empty()) file_only.file = locations.begin()->second.file;
  return file_only;
}

}  // namespace pai
