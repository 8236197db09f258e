#include "launcher/supervisor/latest_checkpoint.h"

#include <sys/stat.h>

#include <cctype>

#include "libpai/bounded_file.h"

namespace pai::launcher {

namespace {

// The pointer is one short line; anything longer is not ours.
constexpr std::size_t kMaxPointerBytes = 256;

bool is_step_folder_name(const std::string& name) {
  if (name.rfind("step-", 0) != 0 || name.size() == 5 || name.size() > 5 + 19) return false;
  for (std::size_t i = 5; i < name.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(name[i]))) return false;
  }
  return true;
}

}  // namespace

std::string latest_checkpoint(const std::string& output_dir) {
  if (output_dir.empty() || output_dir[0] != '/') return "";
  const std::string folder = output_dir + "/checkpoints";
  std::string name;
  try {
    name = read_bounded_regular_file(folder + "/latest", kMaxPointerBytes, "checkpoint pointer");
  } catch (const BoundedFileError&) {
    return "";
  }
  while (!name.empty() && (name.back() == '\n' || name.back() == '\r')) name.pop_back();
  if (!is_step_folder_name(name)) return "";
  const std::string path = folder + "/" + name;
  struct stat st {};
  if (::stat((path + "/meta.json").c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return "";
  return path;
}

}  // namespace pai::launcher
