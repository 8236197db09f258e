#include "compiler/torchrun/torchrun_args.h"

#include <catch2/catch.hpp>

namespace torchrun_args_test {

using pai::parse_torchrun_args;
using pai::TorchrunArgs;

namespace {

TorchrunArgs parse(const std::vector<std::string>& argv,
                   const std::map<std::string, std::string>& env = {}) {
  return parse_torchrun_args(argv, env);
}

std::string error_of(const std::vector<std::string>& argv,
                     const std::map<std::string, std::string>& env = {}) {
  try {
    parse_torchrun_args(argv, env);
  } catch (const pai::TorchrunError& e) {
    return e.what();
  }
  FAIL("no error for that command line");
  return "";
}

}  // namespace

TEST_CASE("torchrun's defaults") {
  const TorchrunArgs a = parse({"train.py"});
  CHECK(a.min_nodes == 1);
  CHECK(a.max_nodes == 1);
  CHECK(a.nproc_per_node == "1");
  CHECK(a.rdzv_backend == "static");
  CHECK(a.rdzv_id == "none");
  CHECK(a.max_restarts == 0);
  CHECK(a.role == "default");
  CHECK(a.master_addr == "127.0.0.1");
  CHECK(a.master_port == 29500);
  CHECK_FALSE(a.node_rank.has_value());
  CHECK(a.training_script == "train.py");
  CHECK(a.given.empty());
}

TEST_CASE("both spellings, = or a separate value, prefixes, and the script's own arguments") {
  const TorchrunArgs a = parse({"--nnodes=2:4",
                                "--nproc_per_node",
                                "8",
                                "--rdzv-backend=c10d",
                                "--rdzv_endpoint",
                                "node1:29400",
                                "--rdzv-id",
                                "job42",
                                "--rdzv-conf",
                                "join_timeout=60,is_host=false",
                                "--max_restarts=3",
                                "--monitor-interval",
                                "1",
                                "--role",
                                "trainer",
                                "--log_dir",
                                "/logs",
                                "-r",
                                "1",
                                "-t3",
                                "--local_ranks_filter",
                                "0,1",
                                "--node_rank",
                                "1",
                                "--start_method",
                                "fork",
                                "train.py",
                                "--lr",
                                "0.1",
                                "--nnodes",
                                "7"});
  CHECK(a.min_nodes == 2);
  CHECK(a.max_nodes == 4);
  CHECK(a.nproc_per_node == "8");
  CHECK(a.rdzv_backend == "c10d");
  CHECK(a.rdzv_endpoint == "node1:29400");
  CHECK(a.rdzv_id == "job42");
  CHECK(a.rdzv_conf ==
        std::map<std::string, std::string>{{"join_timeout", "60"}, {"is_host", "false"}});
  CHECK(a.max_restarts == 3);
  CHECK(a.monitor_interval == 1.0);
  CHECK(a.role == "trainer");
  CHECK(a.log_dir == "/logs");
  CHECK(a.redirects == "1");
  CHECK(a.tee == "3");
  CHECK(a.local_ranks_filter == std::vector<int>{0, 1});
  CHECK(a.node_rank == 1);
  CHECK(a.training_script == "train.py");
  // After the script, everything is the script's.
  CHECK(a.training_script_args == std::vector<std::string>{"--lr", "0.1", "--nnodes", "7"});
  CHECK(a.given.count("--nproc-per-node") == 1);
  CHECK(parse({"--nproc-per", "4", "x.py"}).nproc_per_node == "4");
  CHECK(parse({"--standalone", "-m", "pkg.train"}).module);
  CHECK(parse({"--", "-weird-name.py", "a"}).training_script == "-weird-name.py");
}

TEST_CASE("PET_* variables give the defaults, the command line wins") {
  const std::map<std::string, std::string> env = {{"PET_NNODES", "3"},
                                                  {"PET_NPROC_PER_NODE", "gpu"},
                                                  {"PET_NODE_RANK", "2"},
                                                  {"PET_STANDALONE", "1"},
                                                  {"PET_MAX_RESTARTS", "9"}};
  const TorchrunArgs a = parse({"--max-restarts", "1", "t.py"}, env);
  CHECK(a.min_nodes == 3);
  CHECK(a.nproc_per_node == "gpu");
  CHECK(a.node_rank == 2);
  CHECK(a.standalone);
  CHECK(a.max_restarts == 1);
  CHECK(error_of({"t.py"}, {{"PET_MAX_RESTARTS", "x"}}) ==
        "--max-restarts (from PET_MAX_RESTARTS): expected an integer of at least 0, got \"x\"");
}

TEST_CASE("malformed values are errors naming the flag") {
  CHECK(error_of({"--nnodes", "4:2", "t.py"}) == "--nnodes: MIN:MAX with MAX 2 below MIN 4");
  CHECK(error_of({"--nnodes", "0", "t.py"}) ==
        "--nnodes: expected an integer of at least 1, got \"0\"");
  CHECK(error_of({"--nproc-per-node", "xpu", "t.py"}) ==
        "--nproc-per-node: expected an integer of at least 1, got \"xpu\"");
  CHECK(error_of({"--max-restarts", "-1", "t.py"}) ==
        "--max-restarts: expected an integer of at least 0, got \"-1\"");
  CHECK(error_of({"--redirects", "4", "t.py"}) ==
        "--redirects: expected 0 (none), 1 (stdout), 2 (stderr), 3 (both) or LOCAL_RANK:N,... "
        "as torchrun takes it, got \"4\"");
  CHECK(error_of({"--rdzv-conf", "join_timeout", "t.py"}) ==
        "--rdzv-conf: expected KEY=VALUE,..., got \"join_timeout\"");
  CHECK(error_of({"--start-method", "thread", "t.py"}) ==
        "--start-method: expected spawn, fork or forkserver, got \"thread\"");
  CHECK(error_of({"--max-restarts"}) == "--max-restarts: expected a value");
  CHECK(error_of({"--standalone=1", "t.py"}) == "--standalone: takes no value, got \"1\"");
  CHECK(error_of({"--nproc-per-node", "2"}) ==
        "the training script is missing: pai-launch torchrun [OPTIONS] SCRIPT [ARGS...]");
  CHECK(error_of({"--no-python", "-m", "t"}) == "--no-python: cannot be used with --module (-m)");
}

TEST_CASE("unknown, ambiguous and refused flags say so") {
  CHECK(error_of({"--bogus", "t.py"}) ==
        "--bogus: not a flag of torchrun (pai-launch torchrun --help lists them)");
  CHECK(error_of({"--r", "t.py"}).rfind("--r: ambiguous: it could be ", 0) == 0);
  CHECK(error_of({"--numa-binding", "node", "t.py"}).rfind("--numa-binding: not supported", 0) ==
        0);
  CHECK(error_of({"--logs_specs", "x", "t.py"}).rfind("--logs-specs: not supported", 0) == 0);
  CHECK(error_of({"--local-addr", "10.0.0.1", "t.py"}).rfind("--local-addr: not supported", 0) ==
        0);
  CHECK(error_of({"--event-log-handler", "console", "t.py"})
            .rfind("--event-log-handler: only null is supported", 0) == 0);
  CHECK(error_of({"--signals-to-handle", "SIGUSR1", "t.py"})
            .rfind("--signals-to-handle: only the default", 0) == 0);
  // At their defaults they are torchrun's, and fine.
  CHECK(parse({"--event-log-handler", "null", "--signals-to-handle",
               "SIGTERM,SIGINT,SIGHUP,SIGQUIT", "t.py"})
            .training_script == "t.py");
}

TEST_CASE("pai's own flags") {
  const TorchrunArgs a =
      parse({"--print-spec", "--pai-metrics-port", "9400", "--pai-checks", "gpu,disk", "t.py"});
  CHECK(a.print_spec);
  CHECK(a.metrics_port == 9400);
  CHECK(a.metrics_linger_seconds == -1);
  CHECK(parse({"--pai-metrics-linger", "0", "t.py"}).metrics_linger_seconds == 0);
  CHECK_THROWS_WITH(parse({"--pai-metrics-linger", "601", "t.py"}),
                    "--pai-metrics-linger: expected 0 to 600 seconds");
  CHECK(a.checks == std::vector<std::string>{"gpu", "disk"});
  CHECK(parse({"--pai-checks", "none", "t.py"}).checks == std::vector<std::string>{});
  CHECK(a.master_store.empty());
  CHECK(parse({"--pai-master-store", "launcher", "t.py"}).master_store == "launcher");
  CHECK_THROWS_WITH(parse({"--pai-master-store", "agent", "t.py"}),
                    "--pai-master-store: expected rank0 or launcher");
  CHECK_FALSE(a.warm_start);
  CHECK(parse({"--pai-warm-start", "torch,numpy", "t.py"}).warm_start ==
        std::vector<std::string>{"torch", "numpy"});
  CHECK(parse({"--pai-warm-start", "", "t.py"}).warm_start == std::vector<std::string>{});
  CHECK(parse({"--help"}).help);
}

TEST_CASE("the console streams of each local rank, as torchrun's redirects, tee and filter") {
  TorchrunArgs a = parse({"t.py"});
  CHECK(pai::console_streams(a, 3) == std::pair{true, true});
  a = parse({"--redirects", "3", "t.py"});
  CHECK(pai::console_streams(a, 0) == std::pair{false, false});
  a = parse({"--redirects", "3", "--tee", "1", "t.py"});
  CHECK(pai::console_streams(a, 0) == std::pair{true, false});
  a = parse({"--redirects", "0:3,1:2", "t.py"});
  CHECK(pai::console_streams(a, 0) == std::pair{false, false});
  CHECK(pai::console_streams(a, 1) == std::pair{true, false});
  CHECK(pai::console_streams(a, 2) == std::pair{true, true});
  a = parse({"--local-ranks-filter", "1", "t.py"});
  CHECK(pai::console_streams(a, 0) == std::pair{false, false});
  CHECK(pai::console_streams(a, 1) == std::pair{true, true});
}

}  // namespace torchrun_args_test
