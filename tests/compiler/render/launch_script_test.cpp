#include "compiler/render/launch_script.h"

#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <utility>

#include "libpai/shell_quote.h"
#include "support/plan_fixture.h"
#include "support/temp_dir.h"

namespace launch_script_test {

namespace fs = std::filesystem;
using pai::shell_quote;
using pai::testing::slurp;
using pai::testing::spit;
using pai::testing::TempDir;

namespace {

// Exit status and stdout+stderr of `sh -c command`.
std::pair<int, std::string> run(const std::string& command) {
  FILE* p = ::popen((command + " 2>&1").c_str(), "r");
  REQUIRE(p != nullptr);
  std::string out;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  const int status = ::pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128, out};
}

void write_executable(const std::string& path, const std::string& text) {
  spit(path, text);
  REQUIRE(::chmod(path.c_str(), 0755) == 0);
}

// A plan folder holding launch.sh for `plan`, plus a fake launcher that records its
// arguments, one per line, in record/<node> (record/all-hosts when started without --node)
// and fails for the node named in $FAIL_NODE.
struct Fixture {
  TempDir dir;
  std::string plan_dir;
  std::string record;
  std::string fake_launch;
  std::string bin;

  explicit Fixture(const pai::Plan& plan) {
    plan_dir = fs::canonical(dir.path()).string() + "/plan dir";
    record = dir / "record";
    bin = dir / "bin";
    fs::create_directories(plan_dir);
    fs::create_directories(record);
    fs::create_directories(bin);
    write_executable(plan_dir + "/launch.sh", pai::render_launch_script(plan));
    fake_launch = dir / "it's a launcher";
    write_executable(fake_launch, R"(#!/bin/sh
node=all-hosts
prev=
for a in "$@"; do
  [ "$prev" = --node ] && node=$a
  prev=$a
done
printf '%s\n' "$@" >"$RECORD/$node"
[ "$node" != "${FAIL_NODE:-}" ]
)");
  }

  std::pair<int, std::string> launch(const std::string& args, const std::string& env = "") {
    return run("cd / && env RECORD=" + shell_quote(record) +
               " PAI_LAUNCH=" + shell_quote(fake_launch) + " PATH=" + shell_quote(bin) +
               ":\"$PATH\" " + env + " sh " + shell_quote(plan_dir + "/launch.sh") + " " + args);
  }

  std::string recorded(const std::string& node) const { return slurp(record + "/" + node); }

  int recordings() const {
    int n = 0;
    for (const auto& e : fs::directory_iterator(record)) n += e.is_regular_file() ? 1 : 0;
    return n;
  }
};

std::string launcher_args(const std::string& dir, const std::string& node) {
  std::string args = "run\n--plan\n" + dir + "/plan.json\n";
  if (!node.empty()) args += "--node\n" + node + "\n";
  return args + "--token-file\n" + dir + "/job.token\n";
}

}  // namespace

TEST_CASE("launch.sh is valid POSIX sh for sh - dash and bash") {
  pai::Plan plan = pai::testing::make_test_plan();
  plan.name = "job\nrm -rf /";
  plan.placements[0].host.address = "10.0.0.1'; touch pwned; '";
  TempDir dir;
  spit(dir / "launch.sh", pai::render_launch_script(plan));
  for (const char* shell : {"sh", "dash", "bash"}) {
    INFO(shell);
    const auto [status, out] = run(std::string(shell) + " -n " + shell_quote(dir / "launch.sh"));
    CHECK(status == 0);
    CHECK(out.empty());
  }
  CHECK(pai::render_launch_script(plan).find("job?rm -rf ?") != std::string::npos);
}

TEST_CASE("launch.sh local starts one launcher per host - spares included") {
  Fixture f(pai::testing::make_test_plan());
  const auto [status, out] = f.launch("local");
  CHECK(out.empty());
  CHECK(status == 0);
  CHECK(f.recordings() == 4);
  for (const char* node : {"node-0", "node-1", "node-2", "spare-0"}) {
    INFO(node);
    CHECK(f.recorded(node) == launcher_args(f.plan_dir, node));
  }
}

TEST_CASE("launch.sh deduplicates hosts") {
  pai::Plan plan = pai::testing::make_test_plan();
  plan.placements[1].host = plan.placements[0].host;
  plan.spares.push_back(plan.placements[2].host);
  Fixture f(plan);
  CHECK(f.launch("local").first == 0);
  CHECK(f.recordings() == 3);
  CHECK(f.recorded("node-0") == launcher_args(f.plan_dir, "node-0"));
}

TEST_CASE("launch.sh exits 1 when a launcher fails - after all have run") {
  Fixture f(pai::testing::make_test_plan());
  const auto [status, out] = f.launch("local", "FAIL_NODE=node-1");
  CHECK(status == 1);
  CHECK(f.recordings() == 4);
}

TEST_CASE("launch.sh rejects an unknown mode with usage and exit 2") {
  Fixture f(pai::testing::make_test_plan());
  const auto [status, out] = f.launch("rsh");
  CHECK(status == 2);
  CHECK(out == "usage: " + f.plan_dir + "/launch.sh [ssh|pdsh|local]\n");
  CHECK(f.recordings() == 0);
}

TEST_CASE("launch.sh ssh (the default) quotes the remote command for the remote shell") {
  pai::Plan plan = pai::testing::make_test_plan();
  plan.placements[0].host.address = "10.0.0.1; touch pwned";
  Fixture f(plan);
  // The fake ssh records its arguments and runs the command as a remote shell would.
  write_executable(f.bin + "/ssh", R"(#!/bin/sh
printf '%s\n' "$@" >"$RECORD/ssh-$4"
exec sh -c "$5"
)");
  const std::string remote = "/remote/it's \"$HOME\" `x`";
  const auto [status, out] = f.launch("", "PAI_REMOTE_DIR=" + shell_quote(remote));
  CHECK(out.empty());
  CHECK(status == 0);
  const std::string ssh = f.recorded("ssh-10.0.0.1; touch pwned");
  CHECK(ssh == "-o\nBatchMode=yes\n--\n10.0.0.1; touch pwned\n" + shell_quote(f.fake_launch) +
                   " run --plan '/remote/it'\"'\"'s \"$HOME\" `x`/plan.json' --node 'node-0'"
                   " --token-file '/remote/it'\"'\"'s \"$HOME\" `x`/job.token'\n");
  CHECK(f.recorded("node-0") == launcher_args(remote, "node-0"));
  CHECK(f.recorded("spare-0") == launcher_args(remote, "spare-0"));
  CHECK(f.recordings() == 4 + 4);
}

TEST_CASE("launch.sh pdsh runs one pdsh over every host address without --node") {
  Fixture f(pai::testing::make_test_plan());
  write_executable(f.bin + "/pdsh", R"(#!/bin/sh
printf '%s\n' "$@" >"$RECORD/pdsh-args"
cp "${3#^}" "$RECORD/pdsh-hosts"
exec sh -c "$4"
)");
  const auto [status, out] = f.launch("pdsh");
  CHECK(out.empty());
  CHECK(status == 0);
  const std::string args = f.recorded("pdsh-args");
  CHECK(args.rfind("-S\n-w\n^", 0) == 0);
  CHECK(f.recorded("pdsh-hosts") == "10.0.0.1\n10.0.0.2\n10.0.0.3\n10.0.1.1\n");
  CHECK(f.recorded("all-hosts") == launcher_args(f.plan_dir, ""));
}

}  // namespace launch_script_test
