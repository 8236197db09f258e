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
//   <case>/keep                    a scale case (hundreds of near-identical files): expected/
//                                  holds whole only the files this lists, one a line ("#"
//                                  starts a comment); a JSON file listed as "PATH abridged" as
//                                  expected/<name>.abridged.json, its lists of more than 4
//                                  objects cut to the first 2, "(N more)" and the last; and
//                                  expected/MANIFEST lists every output file not held whole
//                                  ("PATH BYTES SHA256", by path), whose size and SHA-256 must
//                                  match. Nothing else may be written, nor be in expected/.
//
// pai-compile runs in the case folder so that diagnostics name files relatively; the case
// folder and the repository root are removed from absolute paths in its output.
// PAI_UPDATE_GOLDEN=1 rewrites expected/ from what the compiler does now (a scale case's
// MANIFEST and abridged files included; its keep file stays as written).
#include <sys/wait.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "libpai/hmac.h"
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

// What a scale case's expected/ holds besides MANIFEST (<case>/keep).
struct Kept {
  std::set<std::string> whole;     // byte for byte
  std::set<std::string> abridged;  // JSON, as <name>.abridged.json
};

Kept read_kept(const fs::path& dir) {
  Kept kept;
  std::istringstream in(slurp(dir / "keep"));
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line.substr(0, line.find('#')));
    std::string file, how;
    if (!(words >> file)) continue;
    if (!(words >> how)) {
      kept.whole.insert(file);
    } else if (how == "abridged" && fs::path(file).extension() == ".json") {
      kept.abridged.insert(file);
    } else {
      FAIL(dir / "keep"
           << ": expected PATH or JSON-PATH abridged, got \"" << line << "\"");
    }
  }
  return kept;
}

// "roles/worker.json" -> "roles/worker.abridged.json".
std::string abridged_name(const std::string& file) {
  return fs::path(file).replace_extension(".abridged.json").string();
}

// `value` with every list of more than 4 objects (hosts, placements, spares) cut to its first
// 2, "(N more)" and its last: what a reader of a plan of 512 hosts looks at, every field and
// the shape of each list. Lists of strings (a command, the HCAs) stay whole.
nlohmann::json abridge(const nlohmann::json& value) {
  if (value.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [key, item] : value.items()) out[key] = abridge(item);
    return out;
  }
  if (!value.is_array()) return value;
  const bool cut = value.size() > 4 && value[0].is_object();
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t i = 0; i < value.size(); ++i) {
    if (cut && i == 2) {
      out.push_back("(" + std::to_string(value.size() - 3) + " more)");
      i = value.size() - 2;
      continue;
    }
    out.push_back(abridge(value[i]));
  }
  return out;
}

std::string abridged_text(const std::string& json) {
  return abridge(nlohmann::json::parse(json)).dump(2) + "\n";
}

// MANIFEST's entries: path -> "BYTES SHA256".
using Manifest = std::map<std::string, std::string>;

std::string manifest_entry(const std::string& text) {
  return std::to_string(text.size()) + " " + pai::to_hex(pai::sha256(text));
}

Manifest read_manifest(const fs::path& file) {
  Manifest manifest;
  std::istringstream in(slurp(file));
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const std::size_t space = line.find(' ');
    manifest[line.substr(0, space)] = space == std::string::npos ? "" : line.substr(space + 1);
  }
  return manifest;
}

std::string render_manifest(const Manifest& manifest) {
  std::string text =
      "# PATH BYTES SHA256 of every output file that expected/ does not hold whole (../keep)\n";
  for (const auto& [file, entry] : manifest) text += file + " " + entry + "\n";
  return text;
}

// Writes `text` to expected/`file` with the permissions of the output's `from`.
void write_expected(const fs::path& expected, const std::string& file, const std::string& text,
                    const fs::path& from) {
  fs::create_directories((expected / file).parent_path());
  spit(expected / file, text);
  fs::permissions(expected / file, fs::status(from).permissions());
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
  const bool scale = fs::exists(dir / "keep");
  const Kept kept = scale ? read_kept(dir) : Kept{produced, {}};
  for (const std::string& file : kept.whole) {
    INFO("kept file " << file);
    REQUIRE(produced.count(file) == 1);
  }
  for (const std::string& file : kept.abridged) {
    INFO("abridged file " << file);
    REQUIRE(produced.count(file) == 1);
  }
  Manifest manifest;
  for (const std::string& file : produced) {
    if (!kept.whole.count(file)) manifest[file] = manifest_entry(produced_text(file));
  }
  if (updating()) {
    fs::remove_all(expected);
    for (const std::string& file : kept.whole) {
      write_expected(expected, file, produced_text(file), fs::path(out) / file);
    }
    for (const std::string& file : kept.abridged) {
      write_expected(expected, abridged_name(file), abridged_text(produced_text(file)),
                     fs::path(out) / file);
    }
    if (scale) spit(expected / "MANIFEST", render_manifest(manifest));
    return;
  }
  if (scale) {
    std::set<std::string> held = kept.whole;
    for (const std::string& file : kept.abridged) held.insert(abridged_name(file));
    held.insert("MANIFEST");
    CHECK(files_under(expected) == held);
  }
  const std::set<std::string> wanted = scale ? kept.whole : files_under(expected);
  for (const std::string& file : wanted) {
    INFO("file " << file);
    CHECK(produced.count(file) == 1);
    CHECK(produced_text(file) == slurp((expected / file).string()));
  }
  for (const std::string& file : produced) {
    INFO("unexpected file " << file);
    CHECK((wanted.count(file) == 1 || manifest.count(file) == 1));
  }
  for (const std::string& file : kept.abridged) {
    INFO("abridged file " << file);
    CHECK(abridged_text(produced_text(file)) == slurp(expected / abridged_name(file)));
  }
  if (!scale) return;
  const Manifest listed = read_manifest(expected / "MANIFEST");
  for (const auto& [file, entry] : listed) {
    INFO("manifest file " << file);
    CHECK(manifest.count(file) == 1);
    if (manifest.count(file)) CHECK(manifest.at(file) == entry);
  }
  for (const auto& [file, entry] : manifest) {
    INFO("file missing from MANIFEST: " << file);
    CHECK(listed.count(file) == 1);
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
