// The layers of compiler/ (docs/compiler-layers.md), checked against the includes: each folder
// may include only the folders its row of kAllowed names, so a lower layer that starts to
// include a higher one fails here, not in review. compiler/CMakeLists.txt links the folders'
// libraries in the same direction.
#include "support/layers.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/temp_dir.h"

namespace compiler_layers_test {

namespace fs = std::filesystem;

namespace {

// Folder (relative to the root) -> folders it may include from, besides itself. "compiler" is
// main.cpp alone. Folders not listed here may not exist under compiler/.
const pai::testing::LayerTable kAllowed = {
    {"libpai", {}},
    {"compiler/document", {"libpai"}},
    {"compiler/spec", {"compiler/document", "libpai"}},
    {"compiler/openpai", {"compiler/document", "libpai"}},
    {"compiler/plan", {"compiler/spec", "compiler/document", "libpai"}},
    {"compiler/render", {"libpai"}},
    {"compiler/torchrun", {"compiler/plan", "compiler/spec", "compiler/document", "libpai"}},
    {"compiler/targets", {"compiler/spec", "compiler/document", "libpai"}},
    {"compiler/targets/bare", {"compiler/targets", "compiler/spec", "compiler/document", "libpai"}},
    {"compiler/targets/k8s",
     {"compiler/targets", "compiler/render", "compiler/spec", "compiler/document", "libpai"}},
    {"compiler/targets/slurm",
     {"compiler/targets", "compiler/render", "compiler/spec", "compiler/document", "libpai"}},
    {"compiler/commands",
     {"compiler/targets/bare", "compiler/targets/k8s", "compiler/targets/slurm", "compiler/targets",
      "compiler/plan", "compiler/openpai", "compiler/render", "compiler/spec", "compiler/document",
      "libpai"}},
    {"compiler", {"compiler/commands"}},
};

std::vector<std::string> compiler_violations(const fs::path& root) {
  return pai::testing::layer_violations(root, kAllowed, {"compiler"});
}

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

}  // namespace

TEST_CASE("no folder of compiler/ includes a folder above it") {
  const std::vector<std::string> violations = compiler_violations(PAI_SOURCE_DIR);
  for (const std::string& v : violations) UNSCOPED_INFO(v);
  CHECK(violations.empty());
}

TEST_CASE("the compiler's layer check names a lower folder that includes a higher one") {
  pai::testing::TempDir root;
  const fs::path dir = root.path();
  // The spec's rules reaching for a target, and a target for the pipeline that picks it.
  write(dir / "compiler/spec/spec_rules.cpp",
        "#include \"compiler/spec/spec_rules.h\"\n#include \"compiler/document/diagnostics.h\"\n"
        "#include \"compiler/targets/k8s/k8s_manifest.h\"\n");
  write(dir / "compiler/targets/k8s/k8s_target.cpp",
        "#include \"compiler/targets/target.h\"\n#include \"compiler/commands/targets.h\"\n");
  // The importer and the renderers stand beside the spec, not above it.
  write(dir / "compiler/openpai/protocol.cpp", "#include \"compiler/spec/spec.h\"\n");
  write(dir / "compiler/render/artifacts.cpp", "#include \"compiler/plan/planner.h\"\n");
  write(dir / "libpai/plan.cpp", "#include \"compiler/spec/spec.h\"\n");
  std::vector<std::string> violations = compiler_violations(dir);
  std::sort(violations.begin(), violations.end());
  CHECK(violations == std::vector<std::string>{
                          "compiler/openpai/protocol.cpp: includes compiler/spec",
                          "compiler/render/artifacts.cpp: includes compiler/plan",
                          "compiler/spec/spec_rules.cpp: includes compiler/targets/k8s",
                          "compiler/targets/k8s/k8s_target.cpp: includes compiler/commands",
                          "libpai/plan.cpp: includes compiler/spec",
                      });
}

TEST_CASE("the compiler's layer check refuses unknown folders and files at the top") {
  pai::testing::TempDir root;
  const fs::path dir = root.path();
  write(dir / "compiler/main.cpp", "#include \"compiler/commands/command_line.h\"\n");
  write(dir / "compiler/CMakeLists.txt", "");
  write(dir / "compiler/compile_command.cpp", "");
  write(dir / "compiler/targets/pbs/pbs_target.cpp", "");
  std::vector<std::string> violations = compiler_violations(dir);
  std::sort(violations.begin(), violations.end());
  CHECK(violations == std::vector<std::string>{
                          "compiler/compile_command.cpp: only main.cpp and CMakeLists.txt belong "
                          "at the top of compiler/",
                          "compiler/targets/pbs: unknown folder",
                      });
}

}  // namespace compiler_layers_test
