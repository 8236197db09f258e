// End to end, the real thing: Open MPI's mpirun, started by the `launcher` role of an MPI job,
// reaches the `worker` nodes through `pai-launch rsh` (OMPI_MCA_plm_rsh_agent) and the
// job's coordinator instead of ssh. Three pai-launch processes on 127.121.0.1-3 form the
// cluster; the job ends when mpirun does. Skipped when Open MPI (openmpi-bin,
// libopenmpi-dev) is not installed.
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <memory>
#include <sstream>
#include <vector>

#include "launcher/multi_node/cluster_harness.h"
#include "libpai/plan_json.h"

namespace mpi_rsh_test {

using pai::testing::TempDir;

namespace {

// `name`'s path on PATH, or "".
std::string find_program(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

// Lines of `text` that hold every one of `needles`.
int lines_with_all(const std::string& text, const std::vector<std::string>& needles) {
  int n = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    bool all = true;
    for (const auto& needle : needles) all = all && line.find(needle) != std::string::npos;
    n += all;
  }
  return n;
}

const char* const kJob = "mpi-rsh-e2e";

// The job: mpirun on node-1 runs 4 ranks on the workers' 2 x 2 slots (the rendered hostfile
// lists the worker nodes only). Open MPI on loopback "hosts" needs: one daemon per node
// started from mpirun itself (no tree spawn: the daemons do not have the job's env to find
// the coordinator), daemons that stay attached to their rsh session (a daemonizing orted
// races pai-launch, which kills what a remote command leaves in its process group), TCP
// between ranks over lo (the tcp BTL skips loopback unless told), and the out-of-band
// channel over lo. `sleep infinity` workers only hold the slots, as in
// examples/mpi-allreduce-1024.yaml; the launcher role's minSucceeded ends the job with mpirun.
std::string job_spec(const std::string& program) {
  return std::string("apiVersion: pai/v1\nkind: Job\nname: ") + kJob +
         "\nframework: mpi\nmasterRole: launcher\n"
         "hosts:\n"
         "  - {name: node-1, address: 127.121.0.1}\n"
         "  - {name: node-2, address: 127.121.0.2}\n"
         "  - {name: node-3, address: 127.121.0.3}\n"
         "roles:\n"
         "  launcher:\n"
         "    instances: 1\n"
         "    nprocPerNode: 1\n"
         "    completion: {minSucceeded: 1}\n"
         "    command: >-\n"
         "      mpirun --allow-run-as-root -np 4\n"
         "      --mca plm_rsh_no_tree_spawn 1 --mca btl tcp,self\n"
         "      --mca btl_tcp_if_include lo --mca oob_tcp_if_include lo\n"
         "      --mca orte_leave_session_attached 1\n"
         "      " +
         program +
         "\n"
         "  worker:\n"
         "    instances: 2\n"
         "    nprocPerNode: 2\n"
         "    command: sleep infinity\n"
         "faultTolerance:\n"
         "  restart: {enabled: false}\n"
         "  policy: never\n"
         "  gracePeriod: 2s\n"
         "sanityCheck:\n"
         "  enabled: false\n";
}

}  // namespace

TEST_CASE("mpirun in an MPI job reaches the worker nodes through pai-launch rsh") {
  const std::string mpirun = find_program("mpirun");
  const std::string mpicc = find_program("mpicc");
  if (mpirun.empty() || mpicc.empty()) {
    WARN(
        "skipped: Open MPI's mpirun and mpicc are not on PATH (apt-get install openmpi-bin "
        "libopenmpi-dev; scripts/deps.sh installs them)");
    return;
  }
  TempDir dir;
  const std::string program = dir / "allreduce";
  const std::string compile =
      mpicc + " -O2 -o " + program + " " PAI_SOURCE_DIR "/tests/launcher/multi_node/allreduce.c";
  REQUIRE(std::system(compile.c_str()) == 0);

  // Addresses of its own (127.121.0.0/24, cluster_harness.h), so tests running side by side
  // share no address or port.
  pai::testing::spit(dir / "job.yaml", job_spec(program));
  const std::string out = dir / "out";
  REQUIRE(std::system((PAI_BINARY_DIR "/compiler/pai-compile " + dir / "job.yaml" + " -o " + out +
                       " > " + dir / "compile.log 2>&1")
                          .c_str()) == 0);
  pai::testing::Cluster cluster(pai::load_plan_file(
      out + "/plan.json", pai::JobToken{pai::testing::slurp(out + "/job.token"), "job.token"}));

  // mpirun's daemons and ranks inherit the launchers' environment, not the job's: naming the
  // job there lets leftover_processes() find them too. Each "node" gets a /tmp of its own
  // (TMPDIR), as real nodes have: Open MPI's daemons on one machine race for their session
  // directories otherwise.
  std::vector<std::unique_ptr<TempDir>> tmp;
  for (const char* node : {"node-1", "node-2", "node-3"}) {
    tmp.push_back(std::make_unique<TempDir>());
    cluster.start(node, {}, {{"PAI_JOB_NAME", kJob}, {"TMPDIR", tmp.back()->path()}});
  }
  // The job is over when mpirun is: the workers' `sleep infinity` is stopped then.
  const auto codes = cluster.wait_all(60);
  INFO(cluster.transcript());
  for (const auto& [node, code] : codes) {
    INFO(node);
    CHECK(code == 0);
  }
  // 4 ranks: 1 + 2 + 3 + 4. The launcher role's process (mpirun) is not a rank: it is numbered
  // after them, 4.
  CHECK(pai::testing::count_lines_with(cluster.launcher("node-1").out(),
                                       "[launcher-0/4] sum=10 size=4") == 1);
  // mpirun started one daemon on each worker node through rsh.
  const std::string journal = pai::testing::slurp(cluster.dir() / "logs/coordinator/events.jsonl");
  INFO("coordinator journal:\n" << journal);
  CHECK(lines_with_all(journal, {"\"event\":\"rsh\"", "\"node\":\"node-2\""}) == 1);
  CHECK(lines_with_all(journal, {"\"event\":\"rsh\"", "\"node\":\"node-3\""}) == 1);
  const std::vector<int> leftovers = pai::testing::leftover_processes(kJob);
  CHECK(leftovers.empty());
  for (int pid : leftovers) ::kill(pid, SIGKILL);  // a failed run must not leave them behind
}

}  // namespace mpi_rsh_test
