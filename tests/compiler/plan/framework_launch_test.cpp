#include "compiler/plan/framework_launch.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <string>
#include <vector>

#include "libpai/shell_quote.h"
#include "support/temp_dir.h"

namespace framework_launch_test {

namespace {

pai::Role role(const std::string& name, std::vector<std::string> command = {}) {
  pai::Role r;
  r.name = name;
  r.command = std::move(command);
  return r;
}

pai::Plan ray_plan() {
  pai::Plan plan;
  plan.name = "r";
  plan.framework = pai::Framework::Ray;
  pai::Role head = role("head", {"python3", "drive.py"});
  head.resources.gpu = 2;
  head.resources.cpu = 8.5;
  pai::Role worker = role("worker");
  worker.instances = 2;
  plan.roles = {head, worker};
  plan.master_role = "head";
  plan.hosts = {{"a", "10.0.0.1", 0}, {"b", "10.0.0.2", 0}, {"c", "10.0.0.3", 0}};
  return plan;
}

// A fake `ray` CLI: logs each call's arguments to $LOG; `start --head ... --block` marks the
// head up and blocks until `stop`; `health-check` succeeds once the head is up, or after
// $HEALTH_AFTER failed calls (a head on another node).
const char* kFakeRay = R"(#!/bin/sh
echo "$*" >> "$LOG"
case "$1" in
  start)
    case " $* " in
      *" --head "*) touch "$DIR/up"; while [ -e "$DIR/up" ]; do sleep 0.05; done ;;
    esac
    exit 0 ;;
  health-check)
    [ -e "$DIR/up" ] && exit 0
    n=$(cat "$DIR/tries" 2>/dev/null || echo 0); echo $((n + 1)) > "$DIR/tries"
    [ "$n" -ge "${HEALTH_AFTER:-1000}" ] && exit 0
    exit 1 ;;
  stop) rm -f "$DIR/up"; exit 0 ;;
esac
exit 0
)";

struct Run {
  int code = -1;
  std::string log;
};

// Runs `argv` with the fake ray first on PATH and the env a launcher gives a Ray job.
Run run_with_fake_ray(const std::vector<std::string>& argv, const std::string& extra_env = "") {
  pai::testing::TempDir dir;
  { std::ofstream(dir / "ray") << kFakeRay; }
  ::chmod((dir / "ray").c_str(), 0755);
  std::string command = "cd " + dir.path() + " && env PATH=" + dir.path() +
                        ":/usr/bin:/bin DIR=" + dir.path() + " LOG=" + (dir / "log") +
                        " RAY_ADDRESS=10.0.0.1:6379 PAI_CONTAINER_HOST_IP=10.0.0.1"
                        " PAI_CONTAINER_HOST_dashboard_PORT_LIST=8265 " +
                        extra_env + " " + pai::shell_join(argv);
  const int status = std::system(command.c_str());
  Run run;
  run.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.log = pai::testing::slurp(dir / "log");
  return run;
}

}  // namespace

TEST_CASE("ray: the head gets its ray port and ends the job when its entrypoint does") {
  pai::Plan plan = ray_plan();
  pai::add_framework_needs(plan, pai::RaySpec{});
  REQUIRE(plan.roles[0].ports.size() == 1);
  CHECK(plan.roles[0].ports[0].label == "ray");
  CHECK(plan.roles[0].completion.min_succeeded == 1);
  CHECK(plan.roles[1].ports.empty());
  pai::Plan submit = ray_plan();
  pai::add_framework_needs(submit, pai::RaySpec{true});
  REQUIRE(submit.roles[0].ports.size() == 2);
  CHECK(submit.roles[0].ports[0].label == "dashboard");
}

TEST_CASE("ray head: ray start --head --block, the entrypoint once the head answers, ray stop") {
  pai::Plan plan = ray_plan();
  pai::Role head = plan.roles[0];
  head.command = {"/bin/sh", "-c", "echo driver >> \"$LOG\"; exit 3"};
  const std::vector<std::string> argv = pai::framework_command(plan, head, pai::RaySpec{});
  REQUIRE(argv.size() == 7);
  CHECK(argv[0] == "/bin/sh");
  CHECK(argv[3] == "pai-ray-head");
  const Run run = run_with_fake_ray(argv);
  // The entrypoint's exit code is the instance's.
  CHECK(run.code == 3);
  CHECK(run.log.find("start --head --node-ip-address=10.0.0.1 --port=6379 --num-gpus=2 "
                     "--num-cpus=8 --disable-usage-stats --block\n") != std::string::npos);
  const auto health = run.log.find("health-check --address 10.0.0.1:6379\n");
  const auto driver = run.log.find("driver\n");
  const auto stop = run.log.find("stop\n");
  REQUIRE(health != std::string::npos);
  REQUIRE(driver != std::string::npos);
  REQUIRE(stop != std::string::npos);
  CHECK(health < driver);
  CHECK(driver < stop);
}

TEST_CASE("ray head with ray.entrypoint submit: ray job submit through the dashboard") {
  pai::Plan plan = ray_plan();
  const std::vector<std::string> argv =
      pai::framework_command(plan, plan.roles[0], pai::RaySpec{true});
  const Run run = run_with_fake_ray(argv);
  CHECK(run.code == 0);
  CHECK(run.log.find("--include-dashboard=true --dashboard-host=0.0.0.0 --dashboard-port=8265") !=
        std::string::npos);
  CHECK(run.log.find("job submit --address http://127.0.0.1:8265 -- python3 drive.py\n") !=
        std::string::npos);
}

TEST_CASE("ray worker: waits for the head, then ray start --address --block") {
  pai::Plan plan = ray_plan();
  const std::vector<std::string> argv = pai::framework_command(plan, plan.roles[1], pai::RaySpec{});
  CHECK(argv[3] == "pai-ray-worker");
  const Run run = run_with_fake_ray(argv, "HEALTH_AFTER=2");
  CHECK(run.code == 0);
  CHECK(run.log ==
        "health-check --address 10.0.0.1:6379\n"
        "health-check --address 10.0.0.1:6379\n"
        "health-check --address 10.0.0.1:6379\n"
        "start --address=10.0.0.1:6379 --node-ip-address=10.0.0.1 --num-gpus=0 "
        "--disable-usage-stats --block\n");
}

TEST_CASE("xgboost: the master role's first process starts the Rabit tracker, every one execs") {
  pai::Plan plan;
  plan.framework = pai::Framework::XGBoost;
  plan.roles = {role("worker", {"python3", "train.py"})};
  plan.master_role = "worker";
  pai::add_framework_needs(plan, pai::RaySpec{});
  REQUIRE(plan.roles[0].ports.size() == 1);
  CHECK(plan.roles[0].ports[0].label == "tracker");
  const std::vector<std::string> argv = pai::framework_command(plan, plan.roles[0], pai::RaySpec{});
  REQUIRE(argv.size() == 6);
  CHECK(argv[3] == "pai-xgboost");
  CHECK(std::vector<std::string>(argv.begin() + 4, argv.end()) ==
        std::vector<std::string>{"python3", "train.py"});
  CHECK(argv[2].find("if [ \"$DMLC_TASK_ID\" = 0 ]; then") == 0);
  CHECK(argv[2].find("RabitTracker(host_ip=host, n_workers=workers, port=port, sortby=\"task\")") !=
        std::string::npos);
  // The script execs the command with its arguments (a fake python3 that prints them).
  pai::testing::TempDir dir;
  std::ofstream(dir / "python3") << "#!/bin/sh\necho \"$@\"\n";
  ::chmod((dir / "python3").c_str(), 0755);
  const std::string command = "cd " + dir.path() + " && DMLC_TASK_ID=1 PATH=" + dir.path() +
                              ":/usr/bin:/bin " + pai::shell_join(argv) + " > out";
  CHECK(std::system(command.c_str()) == 0);
  CHECK(pai::testing::slurp(dir / "out") == "train.py\n");
}

TEST_CASE("other frameworks run the role's command as it is") {
  pai::Plan plan;
  plan.framework = pai::Framework::Jax;
  plan.roles = {role("worker", {"python3", "train.py"})};
  plan.master_role = "worker";
  pai::add_framework_needs(plan, pai::RaySpec{});
  CHECK(plan.roles[0].ports.empty());
  CHECK(pai::framework_command(plan, plan.roles[0], pai::RaySpec{}) ==
        std::vector<std::string>{"python3", "train.py"});
}

}  // namespace framework_launch_test
