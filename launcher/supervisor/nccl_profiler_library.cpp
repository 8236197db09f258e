#include "launcher/supervisor/nccl_profiler_library.h"

#include <filesystem>
#include <system_error>

namespace pai::launcher {
namespace {

// `path` made absolute and normal when it names a regular file; "" otherwise.
std::string regular_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return "";
  const auto absolute = std::filesystem::absolute(path, ec);
  return ec ? "" : absolute.lexically_normal().string();
}

}  // namespace

std::string find_nccl_profiler(const std::string& exe, const std::string& override_path) {
  if (!override_path.empty()) return regular_file(override_path);
  const std::filesystem::path dir = std::filesystem::path(exe).parent_path();
  for (const auto& candidate :
       {dir / ".." / "lib" / "pai" / kNcclProfilerLibrary,
        dir / ".." / "nccl_profiler" / kNcclProfilerLibrary, dir / kNcclProfilerLibrary}) {
    std::string found = regular_file(candidate);
    if (!found.empty()) return found;
  }
  return "";
}

}  // namespace pai::launcher
