// The layers of a program's folders, checked against the includes (docs/launcher-layers.md,
// docs/compiler-layers.md): each folder may include only the folders its row names, so a
// lower layer that starts to include a higher one fails a test, not review.
#pragma once

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace pai::testing {

/// Folder (relative to the root) -> the folders its files may include from, besides itself.
/// A program's top folder ("launcher", "compiler") holds main.cpp alone.
using LayerTable = std::map<std::string, std::set<std::string>>;

/// The folder a project include names: "launcher/node/node_agent.h" -> "launcher/node",
/// "libpai/plan.h" -> "libpai".
inline std::string include_folder(const std::string& include) {
  const std::size_t slash = include.rfind('/');
  return slash == std::string::npos ? "" : include.substr(0, slash);
}

/// Every violation of `table` under `root`, one line each: "FILE: includes FOLDER",
/// "FOLDER: unknown folder" (inside a folder of the table, missing from it), or
/// "PROGRAM/FILE: only main.cpp and CMakeLists.txt belong at the top of PROGRAM/" for each
/// folder of `programs`. Folders of the table that `root` lacks are skipped.
inline std::vector<std::string> layer_violations(const std::filesystem::path& root,
                                                 const LayerTable& table,
                                                 const std::set<std::string>& programs) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  for (const auto& [folder, allowed] : table) {
    const fs::path dir = root / folder;
    if (!fs::is_directory(dir)) continue;
    for (const auto& entry : fs::directory_iterator(dir)) {
      const std::string name = entry.path().filename().string();
      const std::string rel = folder + "/" + name;
      if (entry.is_directory()) {
        if (!table.count(rel)) out.push_back(rel + ": unknown folder");
        continue;
      }
      if (programs.count(folder) && name != "main.cpp" && name != "CMakeLists.txt") {
        out.push_back(rel + ": only main.cpp and CMakeLists.txt belong at the top of " + folder +
                      "/");
      }
      const std::string ext = entry.path().extension().string();
      if (ext != ".h" && ext != ".cpp" && ext != ".cu") continue;
      std::ifstream in(entry.path());
      for (std::string line; std::getline(in, line);) {
        const std::string directive = "#include \"";
        if (line.rfind(directive, 0) != 0) continue;
        const std::size_t end = line.find('"', directive.size());
        const std::string target =
            include_folder(line.substr(directive.size(), end - directive.size()));
        // Includes of generated or sibling headers without a folder are the folder's own.
        if (target.empty() || target == folder) continue;
        if (!allowed.count(target)) out.push_back(rel + ": includes " + target);
      }
    }
  }
  return out;
}

}  // namespace pai::testing
