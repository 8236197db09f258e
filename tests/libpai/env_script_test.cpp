#include "libpai/env_script.h"

#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include "support/plan_fixture.h"

namespace env_script_test {

namespace {

namespace fs = std::filesystem;

struct ShellResult {
  int status = -1;
  std::string out;
};

// Runs `shell -c command` in `dir`, capturing stdout (stderr folded in when asked).
ShellResult run_shell(const std::string& shell, const std::string& command, const fs::path& dir,
                      bool with_stderr = false) {
  int pipefd[2];
  REQUIRE(pipe(pipefd) == 0);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    dup2(pipefd[1], 1);
    if (with_stderr) dup2(pipefd[1], 2);
    close(pipefd[0]);
    close(pipefd[1]);
    if (chdir(dir.c_str()) != 0) _exit(126);
    execlp(shell.c_str(), shell.c_str(), "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(pipefd[1]);
  ShellResult result;
  char buffer[65536];
  ssize_t n;
  while ((n = read(pipefd[0], buffer, sizeof buffer)) > 0)
    result.out.append(buffer, static_cast<std::size_t>(n));
  close(pipefd[0]);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

struct TempDir {
  fs::path path;
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "pai-env-script-XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    path = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream out(path / name, std::ios::binary);
    out << text;
    REQUIRE(out.good());
  }
};

std::vector<std::string> hostile_values() {
  std::vector<std::string> values = {
      "",
      "plain",
      "it's",
      "'",
      "''",
      "'\"'\"'",
      "\"double\"",
      "$HOME",
      "${HOME}",
      "$(id)",
      "`id`",
      "a\nb",
      "\n",
      "trailing newline\n\n",
      "back\\slash\\",
      "\\n\\t\\0",
      "*",
      "/*",
      "?",
      "[a-z]",
      "~",
      "~root",
      "-n",
      "-e",
      "--help",
      "- leading dash and space",
      "a b\tc",
      "; rm -rf / #",
      "&& echo pwned",
      "| cat",
      "> /tmp/x",
      "!",
      "!!",
      "%s%n",
      "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x9a\x80",
      "\xff\xfe invalid utf-8 \x80",
      "\x01\x02\x1b[31m\x7f",
      "#not a comment",
      "a=b",
      "$'\\x41'",
      "'$(echo x)'",
      "\\'",
      "esac",
      ";;",
      "*) echo hi ;;",
  };
  std::mt19937 rng(20261121);
  std::uniform_int_distribution<int> length(0, 48);
  std::uniform_int_distribution<int> byte(1, 255);
  for (int i = 0; i < 1000; ++i) {
    std::string s(static_cast<std::size_t>(length(rng)), '\0');
    for (char& c : s) c = static_cast<char>(byte(rng));
    values.push_back(std::move(s));
  }
  return values;
}

}  // namespace

TEST_CASE("render_env_script exports the contract with a case over LOCAL_RANK") {
  pai::Plan plan = pai::testing::make_test_plan(2, 2);
  plan.roles[0].env = {{"GREETING", "it's $HOME"}, {"PYTHONUNBUFFERED", "1"}};
  pai::ProcessContext ctx;
  ctx.restart_count = 1;
  const pai::Placement& p = *pai::find_placement(plan, "worker", 1);
  CHECK(pai::render_env_script(plan, p, ctx) ==
        "#!/bin/sh\n"
        "# env/worker-1.sh: the env contract of job test-job, role worker, instance 1.\n"
        "# Source it with LOCAL_RANK set (default 0): LOCAL_RANK=1 . ./env/worker-1.sh\n"
        "export PAI_JOB_NAME=test-job\n"
        "export PAI_TASK_ROLE_COUNT=2\n"
        "export PAI_TASK_ROLE_LIST=worker,ps\n"
        "export PAI_TASK_ROLE_TASK_COUNT_worker=2\n"
        "export PAI_RESOURCE_worker=8,96,1638400,65536\n"
        "export PAI_MIN_FAILED_TASK_COUNT_worker=1\n"
        "export PAI_MIN_SUCCEEDED_TASK_COUNT_worker='-1'\n"
        "export PAI_TASK_ROLE_TASK_COUNT_ps=1\n"
        "export PAI_RESOURCE_ps=0,4,8192,0\n"
        "export PAI_MIN_FAILED_TASK_COUNT_ps='-1'\n"
        "export PAI_MIN_SUCCEEDED_TASK_COUNT_ps=1\n"
        "export PAI_JOB_TASK_COUNT=3\n"
        "export PAI_TASKS_NUM=3\n"
        "export PAI_JOB_TASK_ROLE_COUNT=2\n"
        "export PAI_TASK_ROLES_NUM=2\n"
        "export PAI_JOB_TASK_ROLE_LIST=worker,ps\n"
        "export PAI_TASK_ROLE_worker_HOST_LIST=10.0.0.1:20002,10.0.0.2:20000\n"
        "export PAI_TASK_ROLE_ps_HOST_LIST=10.0.0.3:20000\n"
        "export PAI_HOST_IP_worker_0=10.0.0.1\n"
        "export PAI_PORT_LIST_worker_0_sync=20002\n"
        "export PAI_worker_0_sync_PORT=20002\n"
        "export PAI_HOST_IP_worker_1=10.0.0.2\n"
        "export PAI_PORT_LIST_worker_1_sync=20000\n"
        "export PAI_worker_1_sync_PORT=20000\n"
        "export PAI_HOST_IP_ps_0=10.0.0.3\n"
        "export PAI_PORT_LIST_ps_0_grpc=20000,20001\n"
        "export PAI_ps_0_grpc_PORT=20000,20001\n"
        "export PAI_TASK_ROLE_INSTANCES=worker:0,worker:1,ps:0\n"
        "export MASTER_ADDR=10.0.0.1\n"
        "export MASTER_PORT=20001\n"
        "export PAI_MAX_RESTARTS=5\n"
        "export PAI_OUTPUT_DIR=/runs/test-job\n"
        "export NCCL_IB_TC=106\n"
        "export NCCL_IB_GID_INDEX=3\n"
        "export NCCL_CROSS_NIC=0\n"
        "export NCCL_SOCKET_IFNAME=eth0\n"
        "export GLOO_SOCKET_IFNAME=eth0\n"
        "export NCCL_IB_HCA=mlx5_0,mlx5_1\n"
        "export GREETING='it'\"'\"'s $HOME'\n"
        "export PYTHONUNBUFFERED=1\n"
        "export NODE_RANK=1\n"
        "export GROUP_RANK=1\n"
        "export NNODES=3\n"
        "export NPROC_PER_NODE=2\n"
        "export LOCAL_WORLD_SIZE=2\n"
        "export ROLE_NAME=worker\n"
        "export ROLE_WORLD_SIZE=4\n"
        "export PAI_CURRENT_TASK_ROLE_NAME=worker\n"
        "export PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX=1\n"
        "export PAI_CONTAINER_HOST_IP=10.0.0.2\n"
        "export PAI_CURRENT_CONTAINER_IP=10.0.0.2\n"
        "export PAI_CONTAINER_HOST_sync_PORT_LIST=20000\n"
        "export PAI_CONTAINER_HOST_PORT_LIST='sync:20000;'\n"
        "export PAI_RESTART_COUNT=1\n"
        "export TORCHELASTIC_RESTART_COUNT=1\n"
        "case \"${LOCAL_RANK:-0}\" in\n"
        "  0) export RANK=2 LOCAL_RANK=0 WORLD_SIZE=5 ROLE_RANK=2 ;;\n"
        "  1) export RANK=3 LOCAL_RANK=1 WORLD_SIZE=5 ROLE_RANK=3 ;;\n"
        "  *) echo 'env/worker-1.sh: LOCAL_RANK must be 0..1' >&2; return 1 2>/dev/null || exit 1 "
        ";;\n"
        "esac\n");
}

TEST_CASE("a user env value overriding a preset is exported once") {
  pai::Plan plan = pai::testing::make_test_plan(1, 1);
  plan.roles[0].env = {{"NCCL_IB_HCA", "mlx5_9"}};
  std::string script = pai::render_env_script(plan, plan.placements[0], {});
  CHECK(script.find("export NCCL_IB_HCA=mlx5_9\n") != std::string::npos);
  CHECK(script.find("NCCL_IB_HCA=mlx5_0") == std::string::npos);
}

TEST_CASE("an EnvScriptRenderer renders each script as render_env_script does") {
  pai::Plan plan = pai::testing::make_test_plan(3, 2);
  // The worker role overrides one job preset and adds a variable; the ps role does neither,
  // so an override must not leak from one script into the next.
  plan.roles[0].env = {{"NCCL_IB_HCA", "mlx5_9"}, {"GREETING", "it's $HOME"}};
  pai::ProcessContext ctx;
  ctx.restart_count = 2;
  const pai::EnvScriptRenderer renderer(plan, ctx);
  std::string buffer = "left over from before";
  for (const pai::Placement& p : plan.placements) {
    INFO(p.role << " " << p.index);
    const std::string expected = pai::render_env_script(plan, p, ctx);
    renderer.render(p, buffer);
    CHECK(buffer == expected);
    CHECK(renderer.render(p) == expected);
    const bool worker = p.role == "worker";
    CHECK((expected.find("export NCCL_IB_HCA=mlx5_9\n") != std::string::npos) == worker);
    CHECK((expected.find("export NCCL_IB_HCA=mlx5_0,mlx5_1\n") != std::string::npos) == !worker);
  }
}

TEST_CASE("sourced scripts select the local rank and reject a bad one") {
  pai::Plan plan = pai::testing::make_test_plan(2, 2);
  TempDir dir;
  dir.write("env.sh", pai::render_env_script(plan, *pai::find_placement(plan, "worker", 1), {}));
  dir.write("ps.sh", pai::render_env_script(plan, *pai::find_placement(plan, "ps", 0), {}));
  for (const std::string shell : {"sh", "dash", "bash"}) {
    INFO(shell);
    ShellResult r0 =
        run_shell(shell, ". ./env.sh && printf %s \"$RANK/$LOCAL_RANK/$WORLD_SIZE\"", dir.path);
    CHECK(r0.status == 0);
    CHECK(r0.out == "2/0/5");
    ShellResult r1 = run_shell(
        shell, "LOCAL_RANK=1; . ./env.sh && printf %s \"$RANK/$LOCAL_RANK/$ROLE_RANK\"", dir.path);
    CHECK(r1.out == "3/1/3");
    ShellResult ps =
        run_shell(shell, ". ./ps.sh && printf %s \"$RANK/$WORLD_SIZE/$NNODES\"", dir.path);
    CHECK(ps.out == "2/3/3");
    ShellResult bad =
        run_shell(shell, "LOCAL_RANK=2; . ./env.sh; echo \"status $?\"", dir.path, true);
    CHECK(bad.out == "env/worker-1.sh: LOCAL_RANK must be 0..1\nstatus 1\n");
  }
}

TEST_CASE("hostile env values round-trip byte-exactly through sh - dash and bash") {
  std::vector<std::string> values = hostile_values();
  pai::Plan plan = pai::testing::make_test_plan(1, 1);
  plan.roles[0].env.clear();
  std::string print = "printf '%s\\0'";
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::string name = "HOSTILE_" + std::to_string(i);
    plan.roles[0].env.emplace_back(name, values[i]);
    print += " \"$" + name + "\"";
  }
  std::string expected;
  for (const std::string& v : values) expected += v + '\0';

  TempDir dir;
  dir.write("env.sh", pai::render_env_script(plan, plan.placements[0], {}));
  for (const std::string shell : {"sh", "dash", "bash"}) {
    INFO(shell);
    ShellResult result = run_shell(shell, ". ./env.sh && " + print, dir.path);
    CHECK(result.status == 0);
    REQUIRE(result.out.size() == expected.size());
    std::size_t start = 0;
    for (std::size_t i = 0; i < values.size(); ++i) {
      std::size_t end = result.out.find('\0', start);
      REQUIRE(end != std::string::npos);
      INFO("value " << i);
      CHECK(result.out.substr(start, end - start) == values[i]);
      start = end + 1;
    }
    // The variables reached the environment of child processes too, not only the shell.
    ShellResult child =
        run_shell(shell, ". ./env.sh && sh -c 'printf %s \"$HOSTILE_2\"'", dir.path);
    CHECK(child.out == values[2]);
  }
}

TEST_CASE("env scripts render for 10000 instances x 8 ranks") {
  pai::Plan plan = pai::testing::make_test_plan(10000, 8);
  std::size_t bytes = 0;
  for (const pai::Placement& p : plan.placements)
    bytes += pai::render_env_script(plan, p, {}).size();
  CHECK(bytes > 10000 * 1000);
  // Speed is bench/compile's business (design §10), never a timed test.
}

}  // namespace env_script_test
