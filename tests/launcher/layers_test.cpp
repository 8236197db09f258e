// The layers of the tree (docs/launcher-layers.md), checked against the includes: each folder
// may include only the folders its row of kAllowed names, so a lower layer that starts to
// include a higher one fails here, not in review. launcher/CMakeLists.txt links the folders'
// libraries in the same direction.
#include "support/layers.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/temp_dir.h"

namespace layers_test {

namespace fs = std::filesystem;

using pai::testing::layer_violations;

namespace {

// Folder (relative to the root) -> folders it may include from, besides itself. "launcher" is
// main.cpp alone. Folders not listed here may not exist under launcher/. compiler/'s rows are
// tests/compiler/layers_test.cpp's; `pai-launch torchrun` plans with the compiler's torchrun
// folder (and reports its diagnostics), the only compiler code in pai-launch.
const pai::testing::LayerTable kAllowed = {
    {"libpai", {}},
    {"launcher/os", {"libpai"}},
    {"launcher/policy", {"libpai"}},
    {"launcher/logs", {"launcher/os", "libpai"}},
    {"launcher/net", {"libpai"}},
    {"launcher/ha", {"libpai"}},
    {"launcher/checks", {"libpai"}},
    {"launcher/store", {"launcher/net", "libpai"}},
    {"launcher/supervisor",
     {"launcher/logs", "launcher/policy", "launcher/store", "launcher/os", "libpai"}},
    {"launcher/coordinator",
     {"launcher/net", "launcher/checks", "launcher/policy", "launcher/logs", "libpai"}},
    {"launcher/report", {"launcher/logs", "libpai"}},
    {"launcher/node",
     {"launcher/supervisor", "launcher/net", "launcher/checks", "launcher/logs", "launcher/policy",
      "launcher/os", "libpai"}},
    {"launcher/commands",
     {"launcher/node", "launcher/coordinator", "launcher/report", "launcher/supervisor",
      "launcher/ha", "launcher/checks", "launcher/net", "launcher/logs", "launcher/policy",
      "launcher/os", "compiler/torchrun", "compiler/document", "libpai"}},
    {"launcher", {"launcher/commands", "libpai"}},
};

std::vector<std::string> launcher_violations(const fs::path& root) {
  return layer_violations(root, kAllowed, {"launcher"});
}

void put(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

}  // namespace

TEST_CASE("no folder of the tree includes a folder above it") {
  const std::vector<std::string> violations = launcher_violations(PAI_SOURCE_DIR);
  for (const std::string& v : violations) UNSCOPED_INFO(v);
  CHECK(violations.empty());
}

TEST_CASE("the layer check names a lower folder that includes a higher one") {
  pai::testing::TempDir root;
  put(fs::path(root.path()) / "launcher/os/process.cpp",
      "#include \"launcher/os/process.h\"\n#include \"libpai/plan.h\"\n"
      "#include \"launcher/supervisor/supervisor.h\"\n");
  put(fs::path(root.path()) / "launcher/node/node_agent.cpp",
      "#include \"launcher/supervisor/supervisor.h\"\n#include \"launcher/commands/run.h\"\n");
  put(fs::path(root.path()) / "launcher/supervisor/supervisor.h", "#pragma once\n");
  put(fs::path(root.path()) / "libpai/plan.cpp", "#include \"compiler/spec.h\"\n");
  std::vector<std::string> violations = launcher_violations(root.path());
  std::sort(violations.begin(), violations.end());
  CHECK(violations == std::vector<std::string>{
                          "launcher/node/node_agent.cpp: includes launcher/commands",
                          "launcher/os/process.cpp: includes launcher/supervisor",
                          "libpai/plan.cpp: includes compiler",
                      });
}

TEST_CASE("the layer check refuses unknown folders and files at the top of launcher/") {
  pai::testing::TempDir root;
  put(fs::path(root.path()) / "launcher/main.cpp", "#include \"launcher/commands/run.h\"\n");
  put(fs::path(root.path()) / "launcher/CMakeLists.txt", "");
  put(fs::path(root.path()) / "launcher/helpers.cpp", "");
  put(fs::path(root.path()) / "launcher/misc/thing.cpp", "");
  std::vector<std::string> violations = launcher_violations(root.path());
  std::sort(violations.begin(), violations.end());
  CHECK(violations == std::vector<std::string>{
                          "launcher/helpers.cpp: only main.cpp and CMakeLists.txt belong at the "
                          "top of launcher/",
                          "launcher/misc: unknown folder",
                      });
}

}  // namespace layers_test
