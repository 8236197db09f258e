// The pai-compile binary's command line (main.cpp): flags reach run_compile, usage errors
// exit 2.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>

#include "libpai/shell_quote.h"
#include "support/temp_dir.h"

namespace main_test {

using pai::testing::slurp;
using pai::testing::spit;
using pai::testing::TempDir;

namespace {

struct Run {
  int code = -1;
  std::string out, err;
};

Run pai_compile(const TempDir& dir, const std::string& args) {
  const std::string command = "cd " + pai::shell_quote(dir.path()) + " && " +
                              pai::shell_quote(std::string(PAI_BINARY_DIR) +
                                               "/compiler/pai-compile") +
                              " " + args + " >stdout 2>stderr";
  const int status = std::system(command.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(dir / "stdout"),
          slurp(dir / "stderr")};
}

const std::string kSpec =
    "apiVersion: pai/v1\nkind: Job\nname: demo\nhosts: [{name: a, slots: 2}, b]\n"
    "roles:\n  worker: {instances: 2, nprocPerNode: 2, command: x}\n";

}  // namespace

TEST_CASE("pai-compile --version prints the version") {
  TempDir dir;
  const Run r = pai_compile(dir, "--version");
  CHECK(r.code == 0);
  CHECK(r.out == std::string("pai-compile ") + PAI_VERSION + "\n");
}

TEST_CASE("usage errors exit 2") {
  TempDir dir;
  CHECK(pai_compile(dir, "").code == 2);
  CHECK(pai_compile(dir, "--bogus job.yaml").code == 2);
  CHECK(pai_compile(dir, "--format xml --check job.yaml").code == 2);
  CHECK(pai_compile(dir, "--hostfile-style lam -o out job.yaml").code == 2);
  const Run r = pai_compile(dir, "--check job.yaml");
  CHECK(r.code == 2);
  CHECK(r.err == "pai-compile: error: cannot read job.yaml: No such file or directory\n");
}

TEST_CASE("pai-compile --ext-str takes NAME=VALUE or a NAME from the environment") {
  TempDir dir;
  spit(dir / "job.jsonnet",
       "{ apiVersion: 'pai/v1', kind: 'Job', name: std.extVar('n'), hosts: ['a'],"
       " roles: { w: { command: std.extVar('c') } } }\n");
  Run r = pai_compile(dir, "--check --ext-str n=from-flag --ext-str c=true job.jsonnet");
  CHECK(r.err.empty());
  CHECK(r.code == 0);
  CHECK(r.out ==
        "job.jsonnet: ok (from-flag: 1 role, 1 instance on 1 host, world size 1)\n"
        "checkpoint plan: every 13h 45m (expected ETTR 99.8%, job MTBF 237d 00h over 1 node)\n");
  r = pai_compile(dir, "--check --ext-str n --ext-str c=true job.jsonnet");
  CHECK(r.code == 2);
  CHECK(r.err.find("expected NAME=VALUE, got \"n\" (and no environment variable n is set)") !=
        std::string::npos);
  r = pai_compile(dir, "--check --ext-str c=true job.jsonnet");
  CHECK(r.code == 1);
}

TEST_CASE("pai-compile --hostfile-style mpich and --format json reach the compiler") {
  TempDir dir;
  spit(dir / "job.yaml", kSpec);
  Run r = pai_compile(dir, "job.yaml -o out --hostfile-style mpich");
  REQUIRE(r.code == 0);
  CHECK(slurp(dir / "out/hostfile") == "a:2\nb:2\n");
  spit(dir / "bad.yaml", kSpec.substr(0, kSpec.size() - 3) + ", nprocPerNod: 1}\n");
  r = pai_compile(dir, "--check --format json bad.yaml");
  CHECK(r.code == 1);
  CHECK(r.out.rfind("[\n", 0) == 0);
  CHECK(r.out.find("\"message\": \"unknown key") != std::string::npos);
  CHECK(r.err.empty());
  r = pai_compile(dir, "--check --format json job.yaml");
  CHECK(r.code == 0);
  CHECK(r.out == "[]\n");
}

TEST_CASE("pai-compile --jsonnet-timeout and --jsonnet-max-memory cap the evaluation") {
  TempDir dir;
  spit(dir / "loop.jsonnet", "local f(n) = f(n + 1) tailstrict;\n{ name: f(0) }\n");
  Run r = pai_compile(dir, "--check --jsonnet-timeout 1s loop.jsonnet");
  CHECK(r.code == 1);
  CHECK(r.err ==
        "loop.jsonnet: error: Jsonnet evaluation did not finish within its cap of 1s; if "
        "the spec really needs longer, raise the cap with --jsonnet-timeout\n"
        "1 error\n");
#ifdef PAI_SANITIZE
  WARN("skipped the memory cap: AddressSanitizer builds apply only the time cap");
#else
  spit(dir / "big.jsonnet", "std.length(std.range(1, 1e9))\n");
  r = pai_compile(dir, "--check --jsonnet-max-memory 256Mi big.jsonnet");
  CHECK(r.code == 1);
  CHECK(r.err ==
        "big.jsonnet: error: Jsonnet evaluation needs more memory than its cap of 256Mi; "
        "if the spec really needs more, raise the cap with --jsonnet-max-memory\n"
        "1 error\n");
#endif
}

// The cap is an address-space limit: an allocator that maps ahead of need (jemalloc's
// default) would refuse specs that fit. Three quarters of what fits in 512Mi on glibc.
TEST_CASE("pai-compile evaluates a spec that needs most of its memory cap") {
#ifdef PAI_SANITIZE
  WARN("skipped: AddressSanitizer builds apply only the time cap");
#else
  TempDir dir;
  spit(dir / "large.jsonnet", "{ name: 'n' + std.length(std.range(1, 2.5e6)) }\n");
  const Run r = pai_compile(dir, "--check --jsonnet-max-memory 512Mi large.jsonnet");
  CHECK(r.code == 1);
  // Evaluated: what fails is the spec, which is no job.
  CHECK(r.err.find("large.jsonnet: error: missing required field \"apiVersion\"") == 0);
#endif
}

TEST_CASE("pai-compile refuses caps that are not a quantity or a duration") {
  TempDir dir;
  spit(dir / "job.yaml", kSpec);
  Run r = pai_compile(dir, "--check --jsonnet-max-memory lots job.yaml");
  CHECK(r.code == 2);
  CHECK(r.err.find("--jsonnet-max-memory: \"lots\": ") != std::string::npos);
  r = pai_compile(dir, "--check --jsonnet-max-memory 0 job.yaml");
  CHECK(r.code == 2);
  CHECK(r.err.find("--jsonnet-max-memory: \"0\": must be more than 0") != std::string::npos);
  r = pai_compile(dir, "--check --jsonnet-timeout 0s job.yaml");
  CHECK(r.code == 2);
  CHECK(r.err.find("--jsonnet-timeout: \"0s\": must be more than 0") != std::string::npos);
  r = pai_compile(dir, "--check --jsonnet-timeout forever job.yaml");
  CHECK(r.code == 2);
  CHECK(r.err.find("--jsonnet-timeout: \"forever\": ") != std::string::npos);
}

TEST_CASE("pai-compile --force writes into a folder it did not write - keeping other files") {
  TempDir dir;
  spit(dir / "job.yaml", kSpec);
  // The working folder holds the spec (and the test's stdout and stderr): not pai-compile's.
  Run r = pai_compile(dir, "job.yaml -o .");
  CHECK(r.code == 2);
  CHECK(r.err.find("has no .pai-compile mark, so pai-compile did not write it; use a new or "
                   "empty folder, or pass --force") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "plan.json"));
  r = pai_compile(dir, "job.yaml -o . --force");
  CHECK(r.err.empty());
  CHECK(r.code == 0);
  CHECK(std::filesystem::exists(dir / "plan.json"));
  CHECK(slurp(dir / "job.yaml") == kSpec);
  r = pai_compile(dir, "job.yaml -o .");
  CHECK(r.err.empty());
  CHECK(r.code == 0);
}

}  // namespace main_test
