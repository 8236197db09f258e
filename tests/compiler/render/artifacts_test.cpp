#include "compiler/render/artifacts.h"

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "compiler/render/launch_script.h"
#include "libpai/env_script.h"
#include "libpai/hostfile.h"
#include "libpai/placement.h"
#include "libpai/plan_json.h"
#include "support/plan_fixture.h"
#include "support/temp_dir.h"

namespace artifacts_test {

namespace fs = std::filesystem;
using pai::testing::slurp;
using pai::testing::spit;
using pai::testing::TempDir;

namespace {

// Every regular file under `dir` by relative path, with its content.
std::map<std::string, std::string> tree(const std::string& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) files[fs::relative(e.path(), dir).string()] = slurp(e.path());
  }
  return files;
}

std::vector<std::string> names(const std::map<std::string, std::string>& files) {
  std::vector<std::string> out;
  for (const auto& [name, content] : files) out.push_back(name);
  return out;
}

unsigned mode_of(const std::string& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

std::string write_error(const pai::Plan& plan, const pai::ArtifactOptions& options) {
  try {
    pai::write_artifacts(plan, options);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "no exception";
}

// The fixture with its "ps" role renamed "launcher": an MPI job.
pai::Plan make_mpi_plan() {
  pai::Plan plan = pai::testing::make_test_plan();
  plan.framework = pai::Framework::Mpi;
  plan.roles[1].name = "launcher";
  pai::place(plan, plan.hosts);
  return plan;
}

}  // namespace

TEST_CASE("write_artifacts writes every artifact of design §4 - rendered by libpai") {
  TempDir dir;
  const ::mode_t old_mask = ::umask(022);
  const pai::Plan plan = pai::testing::make_test_plan();
  const std::string out = dir / "out";
  pai::write_artifacts(plan, {out, "", pai::HostfileStyle::OpenMpi});
  ::umask(old_mask);

  const auto files = tree(out);
  CHECK(names(files) == std::vector<std::string>{".pai-compile", "env/ps-0.sh", "env/worker-0.sh",
                                                 "env/worker-1.sh", "hostfile", "job.token",
                                                 "launch.sh", "plan.json", "roles/ps.json",
                                                 "roles/worker.json"});
  const std::string& token = files.at("job.token");
  CHECK(files.at("plan.json") == pai::plan_to_json(plan, token));
  const std::string seal = pai::plan_seal(plan, token);
  CHECK(files.at("roles/worker.json") == pai::role_to_json(plan, plan.roles[0], seal));
  CHECK(files.at("roles/ps.json") == pai::role_to_json(plan, plan.roles[1], seal));
  // What a launcher with the token accepts.
  CHECK(pai::plan_from_json(files.at("plan.json"), "plan.json", pai::JobToken{token, "job.token"})
            .seal == seal);
  CHECK(files.at("hostfile") == pai::render_hostfile(plan, pai::HostfileStyle::OpenMpi));
  CHECK(files.at("env/worker-1.sh") ==
        pai::render_env_script(plan, plan.placements[1], pai::ProcessContext{}));
  CHECK(files.at("env/ps-0.sh") ==
        pai::render_env_script(plan, plan.placements[2], pai::ProcessContext{}));
  CHECK(files.at("launch.sh") == pai::render_launch_script(plan));
  CHECK(mode_of(out + "/launch.sh") == 0755);
  // Env values are secrets (API keys, OpenPAI secrets): only the owner reads what holds them.
  CHECK(mode_of(out + "/plan.json") == 0600);
  CHECK(mode_of(out + "/env/worker-0.sh") == 0600);
  CHECK(mode_of(out + "/roles/worker.json") == 0600);
  CHECK(mode_of(out + "/env") == 0700);
  CHECK(mode_of(out + "/roles") == 0700);
  CHECK(mode_of(out + "/hostfile") == 0644);
}

TEST_CASE("write_artifacts keeps env-bearing files private whatever the umask") {
  TempDir dir;
  const pai::Plan plan = pai::testing::make_test_plan(2, 1);
  const mode_t old = ::umask(0);
  const std::string out = dir / "out";
  pai::write_artifacts(plan, {out, "", pai::HostfileStyle::OpenMpi});
  ::umask(old);
  CHECK(mode_of(out + "/plan.json") == 0600);
  CHECK(mode_of(out + "/env/worker-1.sh") == 0600);
  CHECK(mode_of(out + "/env") == 0700);
  CHECK(mode_of(out + "/job.token") == 0600);
  CHECK(mode_of(out + "/hostfile") == 0644);
}

TEST_CASE("write_artifacts is deterministic for a token - a new token changes only the seal") {
  TempDir dir;
  const pai::Plan plan = pai::testing::make_test_plan(3, 8);
  spit(dir / "given.token", std::string(64, 'c'));
  pai::write_artifacts(plan, {dir / "a", dir / "given.token", pai::HostfileStyle::OpenMpi});
  pai::write_artifacts(plan, {dir / "b", dir / "given.token", pai::HostfileStyle::OpenMpi});
  auto a = tree(dir / "a");
  CHECK(a == tree(dir / "b"));
  // Rendering again into the same folder changes nothing.
  pai::write_artifacts(plan, {dir / "a", dir / "given.token", pai::HostfileStyle::OpenMpi});
  CHECK(tree(dir / "a") == a);

  // A fresh token: job.token, the plan's seal and the roles' planHash differ, nothing else.
  pai::write_artifacts(plan, {dir / "c", "", pai::HostfileStyle::OpenMpi});
  auto c = tree(dir / "c");
  CHECK(c.at("job.token") != a.at("job.token"));
  CHECK(c.at("plan.json") != a.at("plan.json"));
  for (auto* files : {&a, &c}) {
    const std::string seal = nlohmann::json::parse(files->at("plan.json"))["hash"];
    for (auto& [name, content] : *files) {
      for (std::size_t at = content.find(seal); at != std::string::npos; at = content.find(seal)) {
        content.replace(at, seal.size(), "SEAL");
      }
    }
    files->erase("job.token");
  }
  CHECK(a == c);
}

TEST_CASE("job.token is private - random hex - and in no other artifact") {
  TempDir dir;
  const ::mode_t old_mask = ::umask(0);
  pai::write_artifacts(pai::testing::make_test_plan(),
                       {dir.path(), "", pai::HostfileStyle::OpenMpi});
  ::umask(old_mask);
  CHECK(mode_of(dir / "job.token") == 0600);
  const auto files = tree(dir.path());
  const std::string token = files.at("job.token");
  REQUIRE(token.size() == 64);
  CHECK(token.find_first_not_of("0123456789abcdef") == std::string::npos);
  for (const auto& [name, content] : files) {
    if (name == "job.token") continue;
    INFO(name);
    CHECK(content.find(token) == std::string::npos);
  }
}

TEST_CASE("write_artifacts reuses the token of --token-file") {
  TempDir dir;
  const std::string token(64, 'a');
  spit(dir / "given.token", token + "\n");
  pai::write_artifacts(pai::testing::make_test_plan(),
                       {dir / "out", dir / "given.token", pai::HostfileStyle::OpenMpi});
  CHECK(slurp(dir / "out/job.token") == token);
  CHECK(mode_of(dir / "out/job.token") == 0600);
  // Reusing the output's own token keeps it.
  pai::write_artifacts(pai::testing::make_test_plan(),
                       {dir / "out", dir / "out/job.token", pai::HostfileStyle::OpenMpi});
  CHECK(slurp(dir / "out/job.token") == token);
}

TEST_CASE("a bad --token-file fails before anything is written") {
  TempDir dir;
  spit(dir / "bad.token", "not hex");
  CHECK(write_error(pai::testing::make_test_plan(),
                    {dir / "out", dir / "bad.token", pai::HostfileStyle::OpenMpi}) ==
        "invalid token file '" + (dir / "bad.token") + "': expected hexadecimal digits only");
  CHECK_FALSE(fs::exists(dir / "out"));
}

TEST_CASE("stale artifacts of an earlier compile are removed - nothing else") {
  TempDir dir;
  const std::string out = dir / "out";
  pai::write_artifacts(pai::testing::make_test_plan(10, 1), {out, "", pai::HostfileStyle::OpenMpi});
  REQUIRE(fs::exists(out + "/env/worker-9.sh"));
  spit(out + "/roles/old.json", "{}");
  fs::create_directory(out + "/env/sub");
  spit(out + "/env/sub/x.sh", "x");
  spit(out + "/notes.txt", "mine");
  fs::create_directories(out + "/k8s");  // of an earlier --target k8s compile
  spit(out + "/k8s/job.yaml", "stale");
  spit(dir / "outside.sh", "keep");
  fs::create_symlink(dir / "outside.sh", out + "/env/link.sh");

  pai::Plan small = pai::testing::make_test_plan(1, 1);
  pai::write_artifacts(small, {out, "", pai::HostfileStyle::OpenMpi});
  const auto files = tree(out);
  CHECK(names(files) == std::vector<std::string>{".pai-compile", "env/ps-0.sh", "env/worker-0.sh",
                                                 "hostfile", "job.token", "launch.sh", "notes.txt",
                                                 "plan.json", "roles/ps.json",
                                                 "roles/worker.json"});
  CHECK(files.at("notes.txt") == "mine");
  CHECK_FALSE(fs::exists(fs::symlink_status(out + "/env/link.sh")));
  CHECK(slurp(dir / "outside.sh") == "keep");
}

TEST_CASE("an output folder that is a file is an error naming the path") {
  TempDir dir;
  spit(dir / "out", "x");
  CHECK(
      write_error(pai::testing::make_test_plan(), {dir / "out", "", pai::HostfileStyle::OpenMpi}) ==
      "cannot create directory '" + (dir / "out") + "': Not a directory");
  CHECK(slurp(dir / "out") == "x");
}

TEST_CASE("a folder pai-compile did not write is refused - unless forced") {
  TempDir dir;
  fs::create_directory(dir / "out");
  spit(dir / "out/env", "mine");
  spit(dir / "out/hostfile", "mine");
  CHECK(
      write_error(pai::testing::make_test_plan(), {dir / "out", "", pai::HostfileStyle::OpenMpi}) ==
      "refusing to write into '" + (dir / "out") +
          "': it is not empty and has no .pai-compile mark, so pai-compile did not write it; use "
          "a new or empty folder, or pass --force to replace its plan.json, roles, hostfile, "
          "env, job.token, launch.sh, k8s and job.sbatch (other files are kept)");
  CHECK(slurp(dir / "out/env") == "mine");
  CHECK(slurp(dir / "out/hostfile") == "mine");
  CHECK(tree(dir / "out").size() == 2);

  pai::ArtifactOptions forced{dir / "out", "", pai::HostfileStyle::OpenMpi};
  forced.force = true;
  pai::write_artifacts(pai::testing::make_test_plan(), forced);
  CHECK(fs::is_directory(dir / "out/env"));
  CHECK(fs::exists(dir / "out/.pai-compile"));
  // Marked now: no --force needed any more.
  pai::write_artifacts(pai::testing::make_test_plan(),
                       {dir / "out", "", pai::HostfileStyle::OpenMpi});
}

TEST_CASE("an env folder that is a symbolic link goes with the old output - never followed") {
  TempDir dir;
  fs::create_directory(dir / "elsewhere");
  spit(dir / "elsewhere/precious", "x");
  pai::write_artifacts(pai::testing::make_test_plan(),
                       {dir / "out", "", pai::HostfileStyle::OpenMpi});
  fs::remove_all(dir / "out/env");
  fs::create_directory_symlink(dir / "elsewhere", dir / "out/env");
  pai::write_artifacts(pai::testing::make_test_plan(),
                       {dir / "out", "", pai::HostfileStyle::OpenMpi});
  CHECK(fs::is_directory(fs::symlink_status(dir / "out/env")));
  CHECK(tree(dir / "elsewhere") == std::map<std::string, std::string>{{"precious", "x"}});
}

TEST_CASE("an output folder that is a symbolic link is refused") {
  TempDir dir;
  fs::create_directory(dir / "etc");
  spit(dir / "etc/passwd", "x");
  fs::create_directory_symlink(dir / "etc", dir / "out");
  pai::ArtifactOptions forced{dir / "out", "", pai::HostfileStyle::OpenMpi};
  forced.force = true;
  CHECK(write_error(pai::testing::make_test_plan(), forced) ==
        "refusing to write into '" + (dir / "out") + "': it is a symbolic link (to '" +
            (dir / "etc") +
            "') and pai-compile does not write through links; name the folder itself with -o, "
            "or remove the link");
  CHECK(tree(dir / "etc") == std::map<std::string, std::string>{{"passwd", "x"}});
}

TEST_CASE("the target's files are part of the artifact set") {
  TempDir dir;
  pai::ArtifactOptions options{dir / "out", "", pai::HostfileStyle::OpenMpi};
  options.target_files = [](const std::string& out) { spit(out + "/job.sbatch", "sbatch"); };
  pai::write_artifacts(pai::testing::make_test_plan(), options);
  CHECK(slurp(dir / "out/job.sbatch") == "sbatch");
  // A failing target file fails the whole set: the previous output stays.
  options.target_files = [](const std::string&) { throw std::runtime_error("disk full"); };
  CHECK(write_error(pai::testing::make_test_plan(), options) == "disk full");
  CHECK(slurp(dir / "out/job.sbatch") == "sbatch");
}

TEST_CASE("MPI jobs: the hostfile leaves out the launcher role - env scripts name it") {
  TempDir dir;
  const pai::Plan plan = make_mpi_plan();
  pai::write_artifacts(plan, {dir.path(), "", pai::HostfileStyle::Mpich});
  const std::string hostfile = slurp(dir / "hostfile");
  CHECK(hostfile == pai::render_hostfile(plan, pai::HostfileStyle::Mpich, {"launcher"}));
  CHECK(hostfile.find("10.0.0.1:") != std::string::npos);
  CHECK(hostfile.find("10.0.0.3") == std::string::npos);
  pai::ProcessContext ctx;
  ctx.hostfile = "hostfile";
  CHECK(slurp(dir / "env/launcher-0.sh") == pai::render_env_script(plan, plan.placements[2], ctx));
  CHECK(slurp(dir / "env/worker-0.sh").find("OMPI_MCA_orte_default_hostfile") != std::string::npos);
}

TEST_CASE("a role name that is not a file name is refused") {
  TempDir dir;
  pai::Plan plan = pai::testing::make_test_plan();
  plan.roles[1].name = "../escape";
  CHECK(write_error(plan, {dir.path(), "", pai::HostfileStyle::OpenMpi}) ==
        "cannot write into '" + (dir / "roles") +
            "': role name '../escape' is not usable as a file name");
  CHECK_FALSE(fs::exists(dir / "escape.json"));
}

TEST_CASE("a failure while rendering leaves no staging folder and keeps the old output") {
  TempDir dir;
  const std::string out = dir / "out";
  pai::write_artifacts(pai::testing::make_test_plan(), {out, "", pai::HostfileStyle::OpenMpi});
  const auto before = tree(out);
  pai::Plan plan = pai::testing::make_test_plan();
  plan.placements[1].role = "ghost";
  CHECK_THROWS(pai::write_artifacts(plan, {out, "", pai::HostfileStyle::OpenMpi}));
  CHECK(tree(out) == before);
  std::vector<std::string> entries;
  for (const auto& e : fs::directory_iterator(dir.path())) entries.push_back(e.path().filename());
  CHECK(entries == std::vector<std::string>{"out"});
}

}  // namespace artifacts_test
