// replace_output_folder: the mark, the refusals, the whole-folder swap and what survives it.
#include "compiler/render/output_folder.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "libpai/shell_quote.h"
#include "support/temp_dir.h"

namespace output_folder_test {

namespace fs = std::filesystem;
using pai::OutputFolderOptions;
using pai::OutputFolderRefused;
using pai::replace_output_folder;
using pai::testing::slurp;
using pai::testing::spit;
using pai::testing::TempDir;

namespace {

const std::string kMark = std::string("pai-compile ") + PAI_VERSION +
                          "\nThis folder holds artifacts written by pai-compile; pai-compile -o "
                          "replaces them as a whole.\n";

OutputFolderOptions folder_options(bool force = false) {
  OutputFolderOptions options;
  options.force = force;
  options.artifact_names = {"plan.json", "env"};
  return options;
}

// Writes a small artifact set tagged `tag`.
std::function<void(const std::string&)> artifacts(const std::string& tag) {
  return [tag](const std::string& dir) {
    spit(dir + "/plan.json", "plan " + tag);
    fs::create_directory(dir + "/env");
    spit(dir + "/env/w-0.sh", "env " + tag);
  };
}

// Every entry under `dir` by relative path: a file's content, "<dir>" or "<link>".
std::map<std::string, std::string> tree(const std::string& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    const std::string rel = fs::relative(e.path(), dir).string();
    if (e.is_symlink()) {
      out[rel] = "<link>";
    } else if (e.is_directory()) {
      out[rel] = "<dir>";
    } else {
      out[rel] = slurp(e.path());
    }
  }
  return out;
}

std::vector<std::string> names_in(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// The message of what replace_output_folder() throws; fails the test when it succeeds.
template <typename Error>
std::string refusal(const std::string& dir, const OutputFolderOptions& options,
                    const std::function<void(const std::string&)>& fill) {
  try {
    replace_output_folder(dir, options, fill);
  } catch (const Error& e) {
    return e.what();
  }
  FAIL("replace_output_folder(" << dir << ") succeeded where it should have failed");
  return {};
}

unsigned mode_of(const std::string& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

}  // namespace

TEST_CASE("replace_output_folder creates the folder and its parents - marked") {
  TempDir dir;
  const std::string out = dir / "a/b/out";
  CHECK(replace_output_folder(out, folder_options(), artifacts("1")) == out);
  CHECK(tree(out) == std::map<std::string, std::string>{{".pai-compile", kMark},
                                                        {"env", "<dir>"},
                                                        {"env/w-0.sh", "env 1"},
                                                        {"plan.json", "plan 1"}});
  CHECK(names_in(dir / "a/b") == std::vector<std::string>{"out"});
}

TEST_CASE("replace_output_folder refuses a non-empty folder without the mark - changing nothing") {
  TempDir dir;
  const std::string out = dir / "mine";
  fs::create_directories(out + "/env");
  spit(out + "/env/precious.sh", "mine");
  spit(out + "/hostfile", "mine");
  const auto before = tree(out);
  bool filled = false;
  CHECK(refusal<OutputFolderRefused>(out, folder_options(),
                                     [&](const std::string&) { filled = true; }) ==
        "refusing to write into '" + out +
            "': it is not empty and has no .pai-compile mark, so pai-compile did not write it; "
            "use a new or empty folder, or pass --force to replace its plan.json and env (other "
            "files are kept)");
  CHECK_FALSE(filled);
  CHECK(tree(out) == before);
  CHECK(names_in(dir.path()) == std::vector<std::string>{"mine"});
  // A mark that is not pai-compile's file does not count.
  fs::create_symlink(out + "/hostfile", out + "/.pai-compile");
  CHECK_THROWS_AS(replace_output_folder(out, folder_options(), artifacts("1")),
                  OutputFolderRefused);
  fs::remove(out + "/.pai-compile");
  spit(out + "/.pai-compile", "something else\n");
  CHECK_THROWS_AS(replace_output_folder(out, folder_options(), artifacts("1")),
                  OutputFolderRefused);
}

TEST_CASE("replace_output_folder with force replaces the artifacts of an unmarked folder") {
  TempDir dir;
  const std::string out = dir / "mine";
  fs::create_directories(out + "/env");
  spit(out + "/env/precious.sh", "mine");
  spit(out + "/notes.txt", "mine");
  replace_output_folder(out, folder_options(true), artifacts("1"));
  CHECK(tree(out) == std::map<std::string, std::string>{{".pai-compile", kMark},
                                                        {"env", "<dir>"},
                                                        {"env/w-0.sh", "env 1"},
                                                        {"notes.txt", "mine"},
                                                        {"plan.json", "plan 1"}});
  CHECK(names_in(dir.path()) == std::vector<std::string>{"mine"});
}

TEST_CASE("replace_output_folder takes an empty folder without the mark - keeping its mode") {
  TempDir dir;
  const std::string out = dir / "empty";
  fs::create_directory(out);
  REQUIRE(::chmod(out.c_str(), 0710) == 0);
  replace_output_folder(out, folder_options(), artifacts("1"));
  CHECK(slurp(out + "/plan.json") == "plan 1");
  CHECK(mode_of(out) == 0710);
}

TEST_CASE("replace_output_folder replaces its own output whole - keeping what is not an artifact") {
  TempDir dir;
  const std::string out = dir / "out";
  replace_output_folder(out, folder_options(), [](const std::string& d) {
    artifacts("1")(d);
    spit(d + "/env/w-9.sh", "env of a bigger plan");
  });
  fs::create_directories(out + "/logs/worker-0");
  spit(out + "/logs/worker-0/events.jsonl", "a run");
  spit(out + "/notes.txt", "mine");
  // A folder the new set makes empty (Slurm's logs/) gives way to the old one.
  replace_output_folder(out, folder_options(), [](const std::string& d) {
    artifacts("2")(d);
    fs::create_directory(d + "/logs");
  });
  CHECK(tree(out) == std::map<std::string, std::string>{{".pai-compile", kMark},
                                                        {"env", "<dir>"},
                                                        {"env/w-0.sh", "env 2"},
                                                        {"logs", "<dir>"},
                                                        {"logs/worker-0", "<dir>"},
                                                        {"logs/worker-0/events.jsonl", "a run"},
                                                        {"notes.txt", "mine"},
                                                        {"plan.json", "plan 2"}});
  CHECK(names_in(dir.path()) == std::vector<std::string>{"out"});
  // An artifact the new set lacks goes with the old folder.
  replace_output_folder(out, folder_options(),
                        [](const std::string& d) { spit(d + "/plan.json", "plan 3"); });
  CHECK_FALSE(fs::exists(out + "/env"));
  CHECK(slurp(out + "/logs/worker-0/events.jsonl") == "a run");
}

TEST_CASE("replace_output_folder refuses a symbolic link - with or without force") {
  TempDir dir;
  fs::create_directory(dir / "etc");
  spit(dir / "etc/passwd", "root");
  fs::create_directory_symlink(dir / "etc", dir / "out");
  const std::string message = "refusing to write into '" + dir / "out" +
                              "': it is a symbolic link (to '" + dir / "etc" +
                              "') and pai-compile does not write through links; name the folder "
                              "itself with -o, or remove the link";
  CHECK(refusal<OutputFolderRefused>(dir / "out", folder_options(), artifacts("1")) == message);
  CHECK(refusal<OutputFolderRefused>(dir / "out/", folder_options(true), artifacts("1")) ==
        message);
  CHECK(tree(dir / "etc") == std::map<std::string, std::string>{{"passwd", "root"}});
  CHECK(fs::is_symlink(dir / "out"));
}

TEST_CASE("replace_output_folder refuses a file and the root") {
  TempDir dir;
  spit(dir / "out", "a file");
  CHECK(refusal<std::runtime_error>(dir / "out", folder_options(true), artifacts("1")) ==
        "cannot create directory '" + dir / "out" + "': Not a directory");
  CHECK(slurp(dir / "out") == "a file");
  CHECK(refusal<OutputFolderRefused>("/", folder_options(true), artifacts("1")) ==
        "cannot use '/' as the output folder: pai-compile replaces its output folder whole; "
        "name a folder inside it");
}

TEST_CASE("a failure halfway leaves the previous output intact and no staging folder") {
  TempDir dir;
  const std::string out = dir / "out";
  replace_output_folder(out, folder_options(), artifacts("1"));
  spit(out + "/notes.txt", "mine");
  const auto before = tree(out);
  // As a full disk would: the new plan.json is written, the env scripts are not.
  CHECK(refusal<std::runtime_error>(out, folder_options(), [](const std::string& d) {
          spit(d + "/plan.json", "plan 2");
          throw std::runtime_error("cannot write '" + d + "/env/w-0.sh': No space left on device");
        }).find(": No space left on device") != std::string::npos);
  CHECK(tree(out) == before);
  CHECK(names_in(dir.path()) == std::vector<std::string>{"out"});
}

TEST_CASE("replace_output_folder removes a staging folder left by a crashed run of its pid") {
  TempDir dir;
  const std::string staging = dir / (".out.pai-new-" + std::to_string(::getpid()));
  fs::create_directory(staging);
  spit(staging + "/plan.json", "half");
  replace_output_folder(dir / "out", folder_options(), artifacts("1"));
  CHECK(names_in(dir.path()) == std::vector<std::string>{"out"});
  CHECK(slurp(dir / "out/plan.json") == "plan 1");
}

TEST_CASE("replace_output_folder replaces the working folder when told '.'") {
  TempDir dir;
  const std::string out = dir / "out";
  replace_output_folder(out, folder_options(), artifacts("1"));
  const fs::path previous = fs::current_path();
  fs::current_path(out);
  std::string written;
  try {
    written = replace_output_folder(".", folder_options(), artifacts("2"));
  } catch (...) {
    fs::current_path(previous);
    throw;
  }
  fs::current_path(previous);
  CHECK(written == out);
  CHECK(slurp(out + "/plan.json") == "plan 2");
  CHECK(names_in(dir.path()) == std::vector<std::string>{"out"});
}

// A real full disk: a 256 KiB tmpfs in a user and mount namespace of its own (unshare -rm,
// no root needed where unprivileged user namespaces are allowed).
TEST_CASE("pai-compile that runs out of space keeps the previous output") {
  if (std::system("unshare -rm true >/dev/null 2>&1") != 0) {
    WARN("skipped: unshare -rm (an unprivileged user and mount namespace) is not available");
    return;
  }
  TempDir dir;
  const auto spec = [&](int instances) {
    std::string hosts;
    for (int i = 0; i < instances; ++i) hosts += (i ? ", h" : "h") + std::to_string(i);
    const std::string path = dir / ("job-" + std::to_string(instances) + ".yaml");
    spit(path, "apiVersion: pai/v1\nkind: Job\nname: demo\nhosts: [" + hosts +
                   "]\nroles:\n  worker:\n    instances: " + std::to_string(instances) +
                   "\n    command: python train.py\n");
    return path;
  };
  fs::create_directory(dir / "disk");
  fs::create_directory(dir / "result");
  const std::string script =
      "set -e; mount -t tmpfs -o size=256k tmpfs \"$1\"; "
      "\"$2\" \"$3\" -o \"$1/out\" >/dev/null; cp -a \"$1/out\" \"$5/before\"; "
      "set +e; \"$2\" \"$4\" -o \"$1/out\" >/dev/null 2>\"$5/err\"; echo $? >\"$5/code\"; "
      "cp -a \"$1/out\" \"$5/after\"; ls -A \"$1\" >\"$5/listing\"";
  const std::string command = pai::shell_join(
      {"unshare", "-rm", "sh", "-c", script, "sh", dir / "disk",
       std::string(PAI_BINARY_DIR) + "/compiler/pai-compile", spec(2), spec(400), dir / "result"});
  REQUIRE(std::system(command.c_str()) == 0);
  INFO(slurp(dir / "result/err"));
  CHECK(slurp(dir / "result/code") == "2\n");
  CHECK(slurp(dir / "result/err").find("No space left on device") != std::string::npos);
  const auto before = tree(dir / "result/before");
  REQUIRE(before.count("env/worker-1.sh") == 1);
  CHECK(tree(dir / "result/after") == before);
  CHECK(slurp(dir / "result/listing") == "out\n");
}

}  // namespace output_folder_test
