// Golden tests: every folder under tests/golden/ is one case, run through the real
// pai-compile binary.
//
//   <case>/job.yaml | job.yml | job.json | job.jsonnet   the spec, or
//   <case>/spec                    a path relative to the repository root (an example)
//   <case>/args                    optional extra arguments, one per line; {case} is
//                                  replaced by the case folder's absolute path
//   <case>/expected/diagnostics.txt  -> `pai-compile --check`: stderr must equal it and the
//                                  exit code must be 1 (or expected/exit_code)
//   <case>/expected/...            otherwise -> `pai-compile -o DIR --token-file
//                                  tests/golden/job.token`: every file must be byte-identical,
//                                  and nothing else written (job.token aside); DIR, an absolute
//                                  temporary path, is written {out} in them. The fixed token
//                                  makes the plan's seal (and the roles' planHash) repeatable.
//
// pai-compile runs in the case folder so that diagnostics name files relatively; the case
// folder and the repository root are removed from absolute paths in its output.
// PAI_UPDATE_GOLDEN=1 rewrites expected/ from what the compiler does now.
#include <sys/wait.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>

#include "libpai/shell_quote.h"
#include "support/temp_dir.h"

namespace golden_test {

using pai::testing::slurp;
using pai::testing::spit;
using pai::testing::TempDir;

namespace fs = std::filesystem;

namespace {

const std::string kGoldenDir = std::string(PAI_SOURCE_DIR) + "/tests/golden";
const std::string kCompiler = std::string(PAI_BINARY_DIR) + "/compiler/pai-compile";
// The job token every artifact case is compiled with: plan.json is sealed with it.
const std::string kToken = kGoldenDir + "/job.token";

bool updating() {
  const char* v = std::getenv("PAI_UPDATE_GOLDEN");
  return v && std::string(v) == "1";
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size()) {
    s.replace(pos, from.size(), to);
  }
  return s;
}

std::string spec_argument(const fs::path& dir) {
  for (const char* name : {"job.yaml", "job.yml", "job.json", "job.jsonnet"}) {
    if (fs::exists(dir / name)) return name;
  }
  if (fs::exists(dir / "spec")) {
    std::string rel = slurp(dir / "spec");
    rel.erase(rel.find_last_not_of(" \n\r\t") + 1);
    return std::string(PAI_SOURCE_DIR) + "/" + rel;
  }
  FAIL("case " << dir << " has no job.yaml, job.yml, job.json, job.jsonnet or spec file");
  return "";
}

std::vector<std::string> extra_arguments(const fs::path& dir) {
  std::vector<std::string> args;
  if (!fs::exists(dir / "args")) return args;
  std::istringstream in(slurp(dir / "args"));
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) args.push_back(replace_all(line, "{case}", dir.string()));
  }
  return args;
}

struct Run {
  int exit_code = -1;
  std::string err;
};

Run run_compiler(const fs::path& dir, const std::vector<std::string>& argv,
                 const TempDir& scratch) {
  std::vector<std::string> words = {"timeout", "20", kCompiler};
  words.insert(words.end(), argv.begin(), argv.end());
  const std::string command = "cd " + pai::shell_quote(dir.string()) + " && " +
                              pai::shell_join(words) + " >" +
                              pai::shell_quote(scratch / "stdout") + " 2>" +
                              pai::shell_quote(scratch / "stderr");
  const int status = std::system(command.c_str());
  Run run;
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  run.err = slurp(scratch / "stderr");
  run.err = replace_all(run.err, dir.string() + "/", "");
  run.err = replace_all(run.err, std::string(PAI_SOURCE_DIR) + "/", "");
  return run;
}

std::set<std::string> files_under(const fs::path& root) {
  std::set<std::string> files;
  if (!fs::exists(root)) return files;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.is_regular_file()) files.insert(fs::relative(entry.path(), root).string());
  }
  return files;
}

void check_diagnostics_case(const fs::path& dir) {
  TempDir scratch;
  std::vector<std::string> argv = {"--check", spec_argument(dir)};
  const std::vector<std::string> extra = extra_arguments(dir);
  argv.insert(argv.end(), extra.begin(), extra.end());
  const Run run = run_compiler(dir, argv, scratch);
  const fs::path expected = dir / "expected";
  int expected_code = 1;
  if (fs::exists(expected / "exit_code")) expected_code = std::stoi(slurp(expected / "exit_code"));
  if (updating()) {
    spit(expected / "diagnostics.txt", run.err);
    if (run.exit_code != 1) {
      spit(expected / "exit_code", std::to_string(run.exit_code) + "\n");
    } else {
      fs::remove(expected / "exit_code");
    }
    return;
  }
  CHECK(run.exit_code == expected_code);
  CHECK(run.err == slurp(expected / "diagnostics.txt"));
}

void check_artifacts_case(const fs::path& dir) {
  TempDir scratch;
  const std::string out = scratch / "out";
  std::vector<std::string> argv = {spec_argument(dir), "-o", out, "--token-file", kToken};
  const std::vector<std::string> extra = extra_arguments(dir);
  argv.insert(argv.end(), extra.begin(), extra.end());
  const Run run = run_compiler(dir, argv, scratch);
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  std::set<std::string> produced = files_under(out);
  produced.erase("job.token");
  const fs::path expected = dir / "expected";
  // Artifacts that must name their own folder (job.sbatch) would differ on every run.
  const auto produced_text = [&](const std::string& file) {
    return replace_all(slurp(out + "/" + file), out, "{out}");
  };
  if (updating()) {
    fs::remove_all(expected);
    for (const std::string& file : produced) {
      fs::create_directories((expected / file).parent_path());
      spit(expected / file, produced_text(file));
      fs::permissions(expected / file, fs::status(fs::path(out) / file).permissions());
    }
    return;
  }
  const std::set<std::string> wanted = files_under(expected);
  for (const std::string& file : wanted) {
    INFO("file " << file);
    CHECK(produced.count(file) == 1);
    CHECK(produced_text(file) == slurp((expected / file).string()));
  }
  for (const std::string& file : produced) {
    INFO("unexpected file " << file);
    CHECK(wanted.count(file) == 1);
  }
}

}  // namespace

TEST_CASE("golden cases") {
  REQUIRE(fs::exists(kCompiler));
  std::vector<fs::path> cases;
  for (const auto& entry : fs::directory_iterator(kGoldenDir)) {
    if (entry.is_directory()) cases.push_back(entry.path());
  }
  std::sort(cases.begin(), cases.end());
  REQUIRE_FALSE(cases.empty());
  for (const fs::path& dir : cases) {
    DYNAMIC_SECTION(dir.filename().string()) {
      if (fs::exists(dir / "expected/diagnostics.txt") ||
          (updating() && dir.filename().string().rfind("invalid-", 0) == 0)) {
        fs::create_directories(dir / "expected");
        check_diagnostics_case(dir);
      } else {
        check_artifacts_case(dir);
      }
    }
  }
}

}  // namespace golden_test
