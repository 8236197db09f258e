#include "compiler/targets/slurm/slurm_script.h"

#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/spec/slurm_parser.h"
#include "libpai/shell_quote.h"
#include "support/plan_fixture.h"
#include "support/temp_dir.h"

namespace slurm_script_test {

using pai::Diagnostics;
using pai::Host;
using pai::JobSpec;
using pai::Location;
using pai::Plan;
using pai::testing::make_test_plan;
using pai::testing::slurp;
using pai::testing::spit;
using pai::testing::TempDir;

namespace fs = std::filesystem;

namespace {

// The test plan's job as a parsed spec, its inventory written at known places in job.yaml.
JobSpec make_spec(int workers) {
  JobSpec spec;
  spec.job = make_test_plan(workers, 1);
  spec.job.placements.clear();
  spec.locations["hosts"] = Location{"job.yaml", 5, 1};
  spec.locations["spares"] = Location{"job.yaml", 9, 1};
  spec.locations["coordinator.host"] = Location{"job.yaml", 11, 21};
  return spec;
}

std::vector<std::string> names(const std::vector<Host>& hosts) {
  std::vector<std::string> out;
  for (const Host& h : hosts) out.push_back(h.name);
  return out;
}

bool has_line(const std::string& text, const std::string& line) {
  return ("\n" + text).find("\n" + line + "\n") != std::string::npos;
}

// Runs `script` with bash in `dir` with a fake srun on PATH that prints its arguments one
// per line (to dir/srun.args), sends SIGTERM to the script when $FAKE_TERM is set (what
// scancel does), and exits with $FAKE_SRUN_EXIT. `env` is prefixed to the
// command ("NAME=value ..."). Returns the exit status; stderr goes to dir/stderr.
int run_script(const TempDir& dir, const std::string& script, const std::string& env) {
  fs::create_directories(dir / "bin");
  spit(dir / "bin/srun",
       "#!/bin/sh\nprintf '%s\\n' \"$@\" >\"$FAKE_SRUN_ARGS\"\n"
       "[ -z \"${FAKE_TERM:-}\" ] || kill -TERM \"$PPID\"\nexit \"$FAKE_SRUN_EXIT\"\n");
  fs::permissions(dir / "bin/srun", fs::perms::owner_all);
  spit(dir / "job.sbatch", script);
  const std::string command =
      "cd " + pai::shell_quote(dir.path()) + " && env -u PAI_JOB_DIR -u PAI_LAUNCH -u " +
      "SLURM_SUBMIT_DIR PATH=" + pai::shell_quote(dir / "bin") +
      ":/usr/bin:/bin FAKE_SRUN_ARGS=" + pai::shell_quote(dir / "srun.args") + " " + env +
      " /bin/bash job.sbatch 2>" + pai::shell_quote(dir / "stderr");
  const int status = std::system(command.c_str());
  REQUIRE(WIFEXITED(status));
  return WEXITSTATUS(status);
}

// What the fake srun prints for the script's srun command; `cpus` is the --cpus-per-task
// option's line, if any.
std::string srun_args(const std::string& launch, const std::string& job_dir,
                      const std::string& cpus = "") {
  return "--ntasks-per-node=1\n--kill-on-bad-exit=0\n" + cpus + launch + "\nrun\n--plan\n" +
         job_dir + "/plan.json\n--token-file\n" + job_dir + "/job.token\n--slurm\n";
}

}  // namespace

TEST_CASE("a Slurm job's inventory is placeholders, one per instance and per spare") {
  JobSpec spec = make_spec(3);
  spec.job.coordinator_host = "node-1";
  Diagnostics diags;
  pai::use_slurm_inventory(spec, diags);
  CHECK(spec.job.inventory == pai::Inventory::Slurm);
  CHECK(names(spec.job.hosts) ==
        std::vector<std::string>{"slurm-0", "slurm-1", "slurm-2", "slurm-3"});
  CHECK(spec.job.hosts[3].address == "slurm-3");
  CHECK(spec.job.hosts[3].slots == 0);
  CHECK(names(spec.job.spares) == std::vector<std::string>{"slurm-spare-0"});
  CHECK(spec.job.spares[0].address == "slurm-spare-0");
  CHECK(spec.job.coordinator_host.empty());

  // Every ignored part of the spec's inventory is a located warning, nothing an error.
  CHECK_FALSE(diags.has_errors());
  REQUIRE(diags.all().size() == 3);
  CHECK(diags.all()[0].severity == pai::Severity::Warning);
  CHECK(diags.all()[0].loc.line == 5);
  CHECK(diags.all()[0].path == "hosts");
  CHECK(diags.all()[0].message ==
        "--target slurm: the hosts are ignored: the job runs on the nodes Slurm allocates to it");
  CHECK(diags.all()[1].loc.line == 9);
  CHECK(diags.all()[1].path == "spares");
  CHECK(diags.all()[1].message ==
        "--target slurm: the spares' names are ignored: 1 more node is allocated as a spare");
  CHECK(diags.all()[2].loc.column == 21);
  CHECK(diags.all()[2].path == "coordinator.host");
  CHECK(diags.all()[2].message ==
        "--target slurm: ignored: the coordinator runs on the first node of the allocation");
}

TEST_CASE("a spec written for Slurm, without hosts, gets placeholders and no warning") {
  JobSpec spec = make_spec(2);
  spec.job.hosts.clear();
  spec.job.spares = {Host{"a", "a", 0}, Host{"b", "b", 0}};
  Diagnostics diags;
  pai::use_slurm_inventory(spec, diags);
  CHECK(names(spec.job.hosts) == std::vector<std::string>{"slurm-0", "slurm-1", "slurm-2"});
  CHECK(names(spec.job.spares) == std::vector<std::string>{"slurm-spare-0", "slurm-spare-1"});
  REQUIRE(diags.all().size() == 1);
  CHECK(diags.all()[0].message ==
        "--target slurm: the spares' names are ignored: 2 more nodes are allocated as spares");
}

namespace {

// The test plan with every role asking for what its workers ask for: one node shape.
Plan uniform_plan(int workers) {
  Plan plan = make_test_plan(workers, 1);
  for (pai::Role& role : plan.roles) role.resources = plan.roles[0].resources;
  return plan;
}

// The srun options pyxis declares (tests/fixtures/pyxis/spank_options.txt): name -> whether it
// takes an argument.
std::map<std::string, bool> pyxis_options() {
  std::ifstream in(std::string(PAI_SOURCE_DIR) + "/tests/fixtures/pyxis/spank_options.txt");
  std::map<std::string, bool> options;
  for (std::string line; std::getline(in, line);) {
    if (!line.starts_with("--")) continue;
    const std::size_t eq = line.find('=');
    options[line.substr(0, eq)] = eq != std::string::npos;
  }
  return options;
}

// The test plan with a pyxis container and the spec's mounts and output (make_test_plan's).
Plan container_plan() {
  Plan plan = uniform_plan(1);
  plan.spares.clear();
  plan.slurm.container.image = "nvcr.io#nvidia/pytorch:25.01-py3";
  plan.slurm.container.mounts = {"/lustre/ckpt:/ckpt", "tmpfs:/scratch"};
  plan.slurm.container.workdir = "/workspace";
  plan.slurm.container.writable = pai::Switch::On;
  plan.slurm.container.mount_home = pai::Switch::Off;
  plan.slurm.container.name = "llm";
  return plan;
}

// Fakes of the Slurm commands the requeue chain runs, in dir/bin: sbatch answers job 77 (or
// exits $FAKE_SBATCH_EXIT), scontrol job 42's state $FAKE_STATE, squeue nothing; each appends
// its arguments, one line, to dir/<name>.args.
void fake_chain_commands(const TempDir& dir) {
  fs::create_directories(dir / "bin");
  const std::map<std::string, std::string> answers = {
      {"sbatch", "[ -z \"${FAKE_SBATCH_EXIT:-}\" ] || exit \"$FAKE_SBATCH_EXIT\"\necho '77;c1'\n"},
      {"scancel", ""},
      {"scontrol", "echo \"JobId=42 JobName=train JobState=$FAKE_STATE Reason=None\"\n"},
      {"squeue", ""}};
  for (const auto& [name, answer] : answers) {
    spit(dir / ("bin/" + name),
         "#!/bin/sh\necho \"$*\" >>\"$(dirname \"$0\")/../" + name + ".args\"\n" + answer);
    fs::permissions(dir / ("bin/" + name), fs::perms::owner_all);
  }
}

// The argument lines fake `name` was called with since the last take, or "not called".
std::string take_calls(const TempDir& dir, const std::string& name) {
  const fs::path file = dir / (name + ".args");
  if (!fs::exists(file)) return "not called";
  const std::string calls = slurp(file);
  fs::remove(file);
  return calls;
}

}  // namespace

TEST_CASE("a job of one node shape asks for every node and that shape, exclusively") {
  // Workers and ps alike: 8 GPUs, 96.25 CPUs, 1600 GiB. Three instances and a spare.
  Plan plan = uniform_plan(2);
  for (pai::Role& role : plan.roles) role.resources.cpu = 96.25;
  const std::string script = pai::render_slurm_script(plan, "/shared/jobs/test-job");
  CHECK(script.starts_with("#!/bin/bash\n#SBATCH --job-name=test-job\n"));
  CHECK(has_line(script, "#SBATCH --nodes=4"));
  CHECK(has_line(script, "#SBATCH --ntasks-per-node=1"));
  CHECK(has_line(script, "#SBATCH --exclusive"));
  CHECK(has_line(script, "#SBATCH --gpus-per-node=8"));
  CHECK(has_line(script, "#SBATCH --cpus-per-task=97"));
  CHECK(has_line(script, "#SBATCH --mem=1638400"));
  CHECK(has_line(script, "#SBATCH --output=/shared/jobs/test-job/logs/slurm-%j.out"));
  CHECK(has_line(script, "#SBATCH --error=/shared/jobs/test-job/logs/slurm-%j.out"));
  CHECK(script.find("hetjob") == std::string::npos);
  CHECK(script.find("--het-group") == std::string::npos);
  CHECK(has_line(script, "srun --ntasks-per-node=1 --kill-on-bad-exit=0 --cpus-per-task=97 \\"));
  // sbatch reads options only up to the first command.
  const std::size_t last_option = script.rfind("#SBATCH");
  const std::size_t first_command = script.find("\nset -u\n");
  CHECK(last_option < first_command);
  CHECK(pai::render_slurm_script(plan, "/shared/jobs/test-job") == script);
}

TEST_CASE("roles of different shapes are components of a heterogeneous job, in placement order") {
  // Workers (2): 8 GPUs, 96 CPUs, 1600 GiB; then ps (1): 4 CPUs, 8 GiB, no GPU; then the spare,
  // which may replace either and so asks for the largest of each: the workers' shape.
  const std::string script = pai::render_slurm_script(make_test_plan(2, 1), "/jobs/j");
  const std::string components =
      "# component 0: worker\n"
      "#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=1\n#SBATCH --exclusive\n"
      "#SBATCH --gpus-per-node=8\n#SBATCH --cpus-per-task=96\n#SBATCH --mem=1638400\n"
      "#SBATCH hetjob\n"
      "# component 1: ps\n"
      "#SBATCH --nodes=1\n#SBATCH --ntasks-per-node=1\n#SBATCH --exclusive\n"
      "#SBATCH --cpus-per-task=4\n#SBATCH --mem=8192\n"
      "#SBATCH hetjob\n"
      "# component 2: spares\n"
      "#SBATCH --nodes=1\n#SBATCH --ntasks-per-node=1\n#SBATCH --exclusive\n"
      "#SBATCH --gpus-per-node=8\n#SBATCH --cpus-per-task=96\n#SBATCH --mem=1638400\n";
  CHECK(script.find(components) != std::string::npos);
  // Job-wide options come once, before the first component.
  CHECK(script.find("#SBATCH --no-requeue\n") < script.find("# component 0"));
  CHECK(script.find("--signal") < script.find("# component 0"));

  // srun starts one launcher on every node of every component; the launchers get the
  // nodes in placement order, each component's list in turn.
  TempDir dir;
  const std::string env =
      "FAKE_SRUN_EXIT=0 SLURM_JOB_NODELIST_HET_GROUP_0='gpu-[1-2]' "
      "SLURM_JOB_NODELIST_HET_GROUP_1=cpu-1 SLURM_JOB_NODELIST_HET_GROUP_2=gpu-9";
  CHECK(run_script(dir, script, env) == 0);
  CHECK(slurp(dir / "srun.args") ==
        "--het-group=0\n--ntasks-per-node=1\n--kill-on-bad-exit=0\n--cpus-per-task=96\n:\n"
        "--het-group=1\n--ntasks-per-node=1\n--kill-on-bad-exit=0\n--cpus-per-task=4\n:\n"
        "--het-group=2\n--ntasks-per-node=1\n--kill-on-bad-exit=0\n--cpus-per-task=96\n"
        "env\nSLURM_JOB_NODELIST=gpu-[1-2],cpu-1,gpu-9\n"
        "pai-launch\nrun\n--plan\n/jobs/j/plan.json\n--token-file\n/jobs/j/job.token\n--slurm\n");

  // Outside a heterogeneous allocation of that many components the script says so.
  CHECK(run_script(dir, script, "FAKE_SRUN_EXIT=0 SLURM_JOB_NODELIST_HET_GROUP_0=gpu-1") != 0);
  CHECK(slurp(dir / "stderr")
            .find("SLURM_JOB_NODELIST_HET_GROUP_1: not a heterogeneous job of "
                  "3 components") != std::string::npos);
}

TEST_CASE("a component stating no memory after one that does asks for no minimum") {
  // sbatch carries --mem over to later components: ps (no memory) must not inherit 1600 GiB.
  Plan plan = make_test_plan(2, 1);
  plan.roles[1].resources = pai::Resources{};
  plan.spares.clear();
  const std::string script = pai::render_slurm_script(plan, "out");
  CHECK(script.find("# component 1: ps\n#SBATCH --nodes=1\n#SBATCH --ntasks-per-node=1\n"
                    "#SBATCH --exclusive\n#SBATCH --mem=0\n#\n") != std::string::npos);
}

TEST_CASE("a CPU-only role next to GPU roles asks for no GPU") {
  // The MPI shape: a launcher role without resources, then GPU workers.
  Plan plan = make_test_plan(3, 8);
  std::swap(plan.roles[0], plan.roles[1]);
  plan.roles[0].resources = pai::Resources{};
  plan.spares.clear();
  const std::string script = pai::render_slurm_script(plan, "out");
  CHECK(script.find("# component 0: ps\n#SBATCH --nodes=1\n#SBATCH --ntasks-per-node=1\n"
                    "#SBATCH --exclusive\n#SBATCH hetjob\n# component 1: worker\n"
                    "#SBATCH --nodes=3\n") != std::string::npos);
  CHECK(script.find("srun --het-group=0 --ntasks-per-node=1 --kill-on-bad-exit=0 : \\\n"
                    "  --het-group=1 --ntasks-per-node=1 --kill-on-bad-exit=0 "
                    "--cpus-per-task=96 \\\n") != std::string::npos);
}

TEST_CASE("resources no role states are left to Slurm's defaults") {
  Plan plan = make_test_plan(1, 1);
  for (pai::Role& role : plan.roles) role.resources = pai::Resources{};
  plan.spares.clear();
  const std::string script = pai::render_slurm_script(plan, "out");
  CHECK(has_line(script, "#SBATCH --nodes=2"));
  CHECK(script.find("--gpus-per-node") == std::string::npos);
  CHECK(script.find("--cpus-per-task") == std::string::npos);
  CHECK(script.find("--mem") == std::string::npos);
  CHECK(has_line(script, "srun --ntasks-per-node=1 --kill-on-bad-exit=0 \\"));
}

TEST_CASE("the script runs srun on the plan in its absolute folder and exits with its status") {
  TempDir dir;
  const std::string job_dir = dir / "it's a $(job) `dir`";
  const std::string script = pai::render_slurm_script(uniform_plan(1), job_dir + "//");
  CHECK(has_line(script, "#SBATCH --output=" + pai::shell_quote(job_dir + "/logs/slurm-%j.out")));
  CHECK(run_script(dir, script, "FAKE_SRUN_EXIT=0") == 0);
  CHECK(slurp(dir / "srun.args") == srun_args("pai-launch", job_dir, "--cpus-per-task=96\n"));

  CHECK(run_script(dir, script, "FAKE_SRUN_EXIT=3 PAI_JOB_DIR=/elsewhere PAI_LAUNCH=/opt/pl") == 3);
  CHECK(slurp(dir / "srun.args") == srun_args("/opt/pl", "/elsewhere", "--cpus-per-task=96\n"));
}

TEST_CASE(
    "a job the launchers stopped is recorded by Slurm as TIMEOUT near its limit, else "
    "CANCELLED") {
  // Fakes of Slurm's commands: squeue answers the job's time left ($FAKE_LEFT, %L) and used
  // ($FAKE_USED, %M); scontrol, scancel and sleep write their arguments to dir/<name>.args.
  TempDir dir;
  fs::create_directories(dir / "bin");
  spit(dir / "bin/squeue",
       "#!/bin/sh\ncase \"$*\" in *%L*) echo \"$FAKE_LEFT\" ;; *%M*) echo \"$FAKE_USED\" ;; "
       "esac\n");
  for (const char* name : {"scontrol", "scancel", "sleep"}) {
    spit(dir / ("bin/" + std::string(name)),
         "#!/bin/sh\nprintf '%s\\n' \"$@\" >\"$(dirname \"$0\")/../" + std::string(name) +
             ".args\"\n");
  }
  for (const char* name : {"squeue", "scontrol", "scancel", "sleep"}) {
    fs::permissions(dir / ("bin/" + std::string(name)), fs::perms::owner_all);
  }
  Plan plan = uniform_plan(1);
  plan.fault_tolerance.grace_period_seconds = 30;
  plan.fault_tolerance.checkpoint_wait_seconds = 0;
  const std::string script = pai::render_slurm_script(plan, dir / "out");
  const auto called = [&](const char* name) {
    const bool was = fs::exists(dir / (std::string(name) + ".args"));
    return was ? slurp(dir / (std::string(name) + ".args")) : std::string("not called");
  };
  const auto clear = [&] {
    for (const char* name : {"scontrol", "scancel", "sleep"}) {
      fs::remove(dir / (std::string(name) + ".args"));
    }
  };

  // Stopped (143) 150 s before its limit, within the stop's lead (90 s) and two minutes of
  // slack: pai's time limit. The limit is cut to the minutes used, and the script waits.
  CHECK(run_script(dir, script,
                   "FAKE_SRUN_EXIT=143 SLURM_JOB_ID=42 FAKE_LEFT=2:30 FAKE_USED=1-01:02:03") ==
        143);
  CHECK(called("scontrol") == "update\nJobId=42\nTimeLimit=1502\n");
  CHECK(called("sleep") == "330\n");
  CHECK(called("scancel") == "not called");
  CHECK(slurp(dir / "stderr").find("Slurm ends it as TIMEOUT") != std::string::npos);
  clear();
  // Less than two minutes used: a limit of one minute.
  CHECK(run_script(dir, script,
                   "FAKE_SRUN_EXIT=143 SLURM_JOB_ID=42 FAKE_LEFT=0:40 FAKE_USED=1:10") == 143);
  CHECK(called("scontrol") == "update\nJobId=42\nTimeLimit=1\n");
  clear();

  // Stopped more than 210 s before its limit, or without one: a cancel.
  for (const char* left : {"3:31", "UNLIMITED"}) {
    INFO(left);
    CHECK(run_script(dir, script,
                     "FAKE_SRUN_EXIT=143 SLURM_JOB_ID=42 FAKE_USED=1:00 FAKE_LEFT=" +
                         std::string(left)) == 143);
    CHECK(called("scancel") == "42\n");
    CHECK(called("scontrol") == "not called");
    clear();
  }

  // A failure stays a failure (FAILED); outside Slurm nothing is asked.
  CHECK(run_script(dir, script, "FAKE_SRUN_EXIT=1 SLURM_JOB_ID=42 FAKE_LEFT=0:10") == 1);
  CHECK(run_script(dir, script, "FAKE_SRUN_EXIT=143 FAKE_LEFT=0:10") == 143);
  CHECK(called("scancel") == "not called");
  CHECK(called("scontrol") == "not called");
}

TEST_CASE("a relative plan folder is found under the folder sbatch was run from") {
  TempDir dir;
  Plan plan = make_test_plan(1, 1);
  for (pai::Role& role : plan.roles) role.resources = pai::Resources{};
  const std::string script = pai::render_slurm_script(plan, "runs/my job/");
  CHECK(has_line(script, "#SBATCH --output='runs/my job/logs/slurm-%j.out'"));
  CHECK(run_script(dir, script, "FAKE_SRUN_EXIT=0 SLURM_SUBMIT_DIR=/home/u") == 0);
  CHECK(slurp(dir / "srun.args") == srun_args("pai-launch", "/home/u/runs/my job"));

  // Outside sbatch there is no submit folder: the script says so instead of guessing.
  CHECK(run_script(dir, script, "FAKE_SRUN_EXIT=0") != 0);
  CHECK(slurp(dir / "stderr").find("SLURM_SUBMIT_DIR: submit this script with sbatch") !=
        std::string::npos);
}

TEST_CASE("a time limit becomes --time past pai's own stop - no job is requeued") {
  Plan plan = make_test_plan(2, 1);
  CHECK(pai::render_slurm_script(plan, "out").find("--time") == std::string::npos);
  plan.time_limit_seconds = 2 * 3600;
  plan.fault_tolerance.grace_period_seconds = 30;
  plan.fault_tolerance.checkpoint_wait_seconds = 0;
  const std::string script = pai::render_slurm_script(plan, "out");
  CHECK(script.find("#SBATCH --time=0-02:02:00\n") != std::string::npos);
  CHECK(script.find("#SBATCH --no-requeue\n") != std::string::npos);
}

TEST_CASE("SIGTERM comes to the launchers before the time limit, as long before as a stop takes") {
  Plan plan = make_test_plan(2, 1);
  plan.fault_tolerance.grace_period_seconds = 30;
  plan.fault_tolerance.checkpoint_wait_seconds = 120;
  CHECK(has_line(pai::render_slurm_script(plan, "out"), "#SBATCH --signal=TERM@210"));
  // Slurm's field holds at most 65535 seconds.
  plan.fault_tolerance.checkpoint_wait_seconds = 100000;
  CHECK(has_line(pai::render_slurm_script(plan, "out"), "#SBATCH --signal=TERM@65535"));
}

TEST_CASE("the spec's account, partition, QOS, reservation and segment are in every component") {
  Plan plan = make_test_plan(2, 1);  // three components: workers, ps, the spare
  plan.slurm.partition = "gpu,gpu-spot";
  plan.slurm.account = "ml-research";
  plan.slurm.qos = "high";
  plan.slurm.reservation = "llm-run";
  plan.slurm.segment = 1;
  const std::string script = pai::render_slurm_script(plan, "out");
  const std::string where =
      "#SBATCH --partition=gpu,gpu-spot\n#SBATCH --account=ml-research\n#SBATCH --qos=high\n"
      "#SBATCH --reservation=llm-run\n";
  for (const char* component :
       {"# component 0: worker\n", "# component 1: ps\n", "# component 2: spares\n"}) {
    CHECK(script.find(component + where + "#SBATCH --nodes=") != std::string::npos);
  }
  CHECK(script.find("#SBATCH --nodes=1\n#SBATCH --segment=1\n#SBATCH --ntasks-per-node=1\n") !=
        std::string::npos);
  // None of them without the spec's settings.
  const std::string plain = pai::render_slurm_script(make_test_plan(2, 1), "out");
  for (const char* option : {"--partition", "--account", "--qos", "--reservation", "--segment"}) {
    CHECK(plain.find(option) == std::string::npos);
  }
}

TEST_CASE("a segment must divide the nodes of the job, or of each component") {
  JobSpec spec;
  spec.locations["slurm.segment"] = Location{"job.yaml", 30, 12};
  Plan plan = uniform_plan(3);  // 4 workers and a spare of one shape: 5 nodes
  Diagnostics diags;
  plan.slurm.segment = 5;
  pai::check_for_slurm(plan, spec, diags);
  CHECK(diags.all().empty());
  plan.slurm.segment = 2;
  pai::check_for_slurm(plan, spec, diags);
  REQUIRE(diags.all().size() == 1);
  CHECK(diags.all()[0].loc.line == 30);
  CHECK(diags.all()[0].path == "slurm.segment");
  CHECK(diags.all()[0].message ==
        "--target slurm: segment 2 does not divide the 5 nodes of the job: Slurm allocates "
        "whole segments");
  Diagnostics het;
  Plan three = make_test_plan(2, 1);  // components of 2, 1 and 1 nodes
  three.slurm.segment = 2;
  pai::check_for_slurm(three, spec, het);
  REQUIRE(het.all().size() == 2);
  CHECK(het.all()[0].message ==
        "--target slurm: segment 2 does not divide the 1 nodes of component 1 of the "
        "heterogeneous job (ps): Slurm allocates whole segments");
  CHECK(het.all()[1].message.find("component 2 of the heterogeneous job (spares)") !=
        std::string::npos);
}

TEST_CASE("srun uses PMIx for an mpi job, or the spec's MPI plugin") {
  Plan plan = uniform_plan(1);
  plan.spares.clear();
  CHECK(pai::render_slurm_script(plan, "out").find("--mpi") == std::string::npos);
  plan.framework = pai::Framework::Mpi;
  TempDir dir;
  CHECK(run_script(dir, pai::render_slurm_script(plan, "/jobs/j"), "FAKE_SRUN_EXIT=0") == 0);
  CHECK(slurp(dir / "srun.args") ==
        srun_args("pai-launch", "/jobs/j", "--cpus-per-task=96\n--mpi=pmix\n"));
  plan.slurm.mpi = "pmi2";
  CHECK(has_line(pai::render_slurm_script(plan, "out"),
                 "srun --ntasks-per-node=1 --kill-on-bad-exit=0 --cpus-per-task=96 --mpi=pmi2 \\"));
  plan.framework = pai::Framework::PyTorch;
  plan.slurm.mpi = "none";
  CHECK(pai::render_slurm_script(plan, "out").find(" --mpi=none ") != std::string::npos);
}

TEST_CASE("with a container, srun runs pai-launch in pyxis with the plan folder mounted") {
  const Plan plan = container_plan();
  const std::string script = pai::render_slurm_script(plan, "/jobs/j");
  TempDir dir;
  CHECK(run_script(dir, script, "FAKE_SRUN_EXIT=0") == 0);
  CHECK(slurp(dir / "srun.args") ==
        "--ntasks-per-node=1\n--kill-on-bad-exit=0\n--cpus-per-task=96\n"
        "--container-image=nvcr.io#nvidia/pytorch:25.01-py3\n"
        "--container-mounts=/jobs/j:/jobs/j,/mnt/nas/data:/data:ro,/runs/test-job:/runs/test-job,"
        "/lustre/ckpt:/ckpt,tmpfs:/scratch\n"
        "--container-workdir=/workspace\n--container-writable\n--no-container-mount-home\n"
        "--container-name=llm\n"
        "pai-launch\nrun\n--plan\n/jobs/j/plan.json\n--token-file\n/jobs/j/job.token\n--slurm\n");
  // A plan folder pyxis cannot mount is refused before srun.
  CHECK(run_script(dir, script, "FAKE_SRUN_EXIT=0 PAI_JOB_DIR=/jobs/a,b") == 2);
  CHECK(slurp(dir / "stderr") == "job.sbatch: pyxis cannot mount /jobs/a,b (it has ',' or ':')\n");
  // The other settings of the container's switches.
  Plan other = plan;
  other.slurm.container.writable = pai::Switch::Off;
  other.slurm.container.mount_home = pai::Switch::On;
  other.slurm.container.name.clear();
  other.slurm.container.workdir.clear();
  const std::string second = pai::render_slurm_script(other, "/jobs/j");
  CHECK(has_line(second, "  --container-readonly --container-mount-home \\"));
  CHECK(second.find("--container-name") == std::string::npos);
  CHECK(second.find("--container-workdir") == std::string::npos);
  // Without one, nothing of pyxis.
  CHECK(pai::render_slurm_script(uniform_plan(1), "/jobs/j").find("container") ==
        std::string::npos);
}

TEST_CASE("every pyxis option the script passes is one pyxis declares, in its own form") {
  const std::map<std::string, bool> declared = pyxis_options();
  REQUIRE(declared.size() == 15);
  REQUIRE(declared.at("--container-image"));
  REQUIRE_FALSE(declared.at("--no-container-mount-home"));
  for (const Plan& plan : {container_plan(), [] {
                             Plan other = container_plan();
                             other.slurm.container.writable = pai::Switch::Off;
                             other.slurm.container.mount_home = pai::Switch::On;
                             return other;
                           }()}) {
    TempDir dir;
    REQUIRE(run_script(dir, pai::render_slurm_script(plan, "/jobs/j"), "FAKE_SRUN_EXIT=0") == 0);
    std::istringstream args(slurp(dir / "srun.args"));
    int checked = 0;
    for (std::string arg; std::getline(args, arg);) {
      if (!arg.starts_with("--container-") && !arg.starts_with("--no-container-")) continue;
      const std::size_t eq = arg.find('=');
      const std::string name = arg.substr(0, eq);
      INFO(arg);
      REQUIRE(declared.count(name) == 1);
      CHECK(declared.at(name) == (eq != std::string::npos));
      if (name == "--container-mounts") {
        // Each entry as pyxis parses one (SRC:DST[:FLAGS], ',' between entries).
        std::istringstream entries(arg.substr(eq + 1));
        for (std::string entry; std::getline(entries, entry, ',');) {
          std::string target;
          CHECK(pai::is_pyxis_mount(entry, &target));
        }
      }
      ++checked;
    }
    CHECK(checked == 6);
  }
}

TEST_CASE("a container makes the job's runtime host: its processes run beside pai-launch") {
  Plan plan = container_plan();
  plan.runtime = pai::Runtime::Docker;
  plan.roles[0].launch_argv = {"docker", "run", "img", "python", "train.py"};
  pai::use_container(plan);
  CHECK(plan.runtime == pai::Runtime::Host);
  CHECK(plan.roles[0].launch_argv == plan.roles[0].command);
  // Without a container the plan is left as it is.
  Plan docker = uniform_plan(1);
  docker.runtime = pai::Runtime::Docker;
  docker.roles[0].launch_argv = {"docker", "run"};
  pai::use_container(docker);
  CHECK(docker.runtime == pai::Runtime::Docker);
  CHECK(docker.roles[0].launch_argv == std::vector<std::string>{"docker", "run"});
}

TEST_CASE(
    "the requeue chain: a verdict cancels the successor - no verdict leaves it to run the job "
    "again") {
  TempDir dir;
  fake_chain_commands(dir);
  Plan plan = uniform_plan(1);
  // No chain unless the spec asks.
  CHECK(pai::render_slurm_script(plan, dir / "out").find("singleton") == std::string::npos);
  plan.slurm.requeue = 2;
  const std::string script = pai::render_slurm_script(plan, dir / "out");
  const fs::path verdict = dir / "out/logs/slurm-42.verdict";
  fs::create_directories(verdict.parent_path());
  const auto said = [&](const std::string& text) {
    return slurp(dir / "stderr").find("job.sbatch: " + text + "\n") != std::string::npos;
  };

  // A launcher lost its coordinator (3), whose launcher wrote no verdict: the successor, which
  // singleton holds until this job is over, runs the job again.
  CHECK(run_script(dir, script, "FAKE_SRUN_EXIT=3 SLURM_JOB_ID=42") == 3);
  CHECK(take_calls(dir, "sbatch") ==
        "--parsable --dependency=singleton --export=ALL,PAI_REQUEUE_LEFT=1 job.sbatch\n");
  CHECK(take_calls(dir, "scancel") == "not called");
  CHECK(
      said("requeue chain: submitted job 77, which runs the job again if this one ends "
           "without a verdict (1 more after it)"));
  CHECK(said("the job ended without a verdict (exit 3): job 77 runs it again"));
  CHECK(slurp(dir / "srun.args").find("--slurm\n--verdict-file\n" + verdict.string() + "\n") !=
        std::string::npos);
  // The coordinator's launcher killed: srun's status is a signal's, still no verdict.
  CHECK(run_script(dir, script, "FAKE_SRUN_EXIT=137 SLURM_JOB_ID=42") == 137);
  CHECK(take_calls(dir, "scancel") == "not called");

  // The coordinator's verdict wins over srun's status, where a launcher's 3 may hide it.
  for (const char* code : {"0", "1"}) {
    INFO(code);
    spit(verdict, std::string(code) + "\n");
    CHECK(run_script(dir, script, "FAKE_SRUN_EXIT=3 SLURM_JOB_ID=42") == std::stoi(code));
    CHECK(take_calls(dir, "scancel") == "77\n");
    CHECK(said("the job ended with a verdict (exit " + std::string(code) + "): cancelling job 77"));
  }
  // A cancel is a verdict too; the script then has Slurm record it (scancel of the job).
  spit(verdict, "143\n");
  CHECK(run_script(dir, script, "FAKE_SRUN_EXIT=143 SLURM_JOB_ID=42") == 143);
  CHECK(take_calls(dir, "scancel") == "77\n42\n");
  // A verdict cut short is none; srun's status decides: every launcher failed.
  spit(verdict, "");
  CHECK(run_script(dir, script, "FAKE_SRUN_EXIT=1 SLURM_JOB_ID=42") == 1);
  CHECK(take_calls(dir, "scancel") == "77\n");
  fs::remove(verdict);

  // The last of the chain submits no successor; one sbatch refuses runs without.
  take_calls(dir, "sbatch");
  CHECK(run_script(dir, script, "FAKE_SRUN_EXIT=3 SLURM_JOB_ID=42 PAI_REQUEUE_LEFT=0") == 3);
  CHECK(take_calls(dir, "sbatch") == "not called");
  CHECK(run_script(dir, script, "FAKE_SRUN_EXIT=0 SLURM_JOB_ID=42 FAKE_SBATCH_EXIT=1") == 0);
  CHECK(said("requeue chain: cannot submit the successor; this run has none"));
  CHECK(take_calls(dir, "scancel") == "not called");
}

TEST_CASE("the requeue chain: scancel ends it - a lost node does not") {
  TempDir dir;
  fake_chain_commands(dir);
  Plan plan = uniform_plan(1);
  plan.slurm.requeue = 1;
  const std::string script = pai::render_slurm_script(plan, dir / "out");
  // scancel sends SIGTERM to the script as well as to srun; the script asks Slurm why.
  CHECK(run_script(dir, script,
                   "FAKE_TERM=1 FAKE_SRUN_EXIT=143 FAKE_STATE=CANCELLED SLURM_JOB_ID=42") == 143);
  CHECK(take_calls(dir, "scontrol") == "show job 42\n");
  CHECK(take_calls(dir, "scancel") == "77\n");
  // Slurm ended the job for a lost node (or a preemption): the successor runs it again.
  for (const char* state : {"NODE_FAIL", "PREEMPTED"}) {
    INFO(state);
    CHECK(run_script(dir, script,
                     "FAKE_TERM=1 FAKE_SRUN_EXIT=137 SLURM_JOB_ID=42 FAKE_STATE=" +
                         std::string(state)) == 143);
    CHECK(take_calls(dir, "scancel") == "not called");
    CHECK(slurp(dir / "stderr")
              .find("job.sbatch: the job ended " + std::string(state) +
                    ": job 77 runs it again\n") != std::string::npos);
  }
}

}  // namespace slurm_script_test
