#include "launcher/checks/nccl_check.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "fake_env.h"
#include "test_plan.h"

namespace nccl_check_test {

using namespace pai::checks;
using test::FakeCudaEnv;

TEST_CASE("without a CUDA driver the nccl check is skipped with the reason") {
  CheckOptions options;
  options.cuda_library = test::kMissingLibrary;
  CheckResult r = run_nccl_check(test::one_node_plan(8), options, 20);
  CHECK(r.name == "nccl");
  CHECK(r.status == CheckResult::Skipped);
  CHECK(r.summary == "no CUDA driver (" + test::kMissingLibrary +
                         ": cannot open shared object file: No such file or directory)");
}

TEST_CASE("with a driver but without NCCL the nccl check is skipped with the reason") {
  FakeCudaEnv env("NVIDIA H100 80GB HBM3;NVIDIA H100 80GB HBM3");
  CheckOptions options;
  options.cuda_library = test::kFakeCuda;
  options.nccl_library = test::kMissingLibrary;
  CheckResult r = run_nccl_check(test::one_node_plan(2), options, 20);
  CHECK(r.status == CheckResult::Skipped);
  CHECK(r.summary == "no NCCL (" + test::kMissingLibrary +
                         ": cannot open shared object file: No such file or directory)");
}

TEST_CASE("a driver whose cuInit fails fails the nccl check") {
  FakeCudaEnv env("", "100");
  CheckOptions options;
  options.cuda_library = test::kFakeCuda;
  CheckResult r = run_nccl_check(test::one_node_plan(2), options, 20);
  CHECK(r.status == CheckResult::Failed);
  CHECK(r.summary == "driver library loads but cuInit failed: error 100 (CUDA_ERROR_NO_DEVICE)");
}

namespace {

CheckOptions fake_nccl_options() {
  CheckOptions options;
  options.cuda_library = test::kFakeCuda;
  options.nccl_library = test::kFakeNccl;
  return options;
}

}  // namespace

TEST_CASE("a peer that never joins fails the check at its timeout - with the communicator aborted") {
  FakeCudaEnv env("NVIDIA H100 80GB HBM3;NVIDIA H100 80GB HBM3");
  setenv("PAI_FAKE_NCCL_HANG", "1", 1);
  CheckResult r = run_nccl_check(test::one_node_plan(2), fake_nccl_options(), 3);
  unsetenv("PAI_FAKE_NCCL_HANG");
  CHECK(r.status == CheckResult::Failed);
  CHECK(r.summary == "communicator setup (a peer did not join) timed out; communicators aborted");
  CHECK(r.seconds < 3);
}

TEST_CASE("a wrong all-reduce result fails verification") {
  FakeCudaEnv env("NVIDIA H100 80GB HBM3;NVIDIA H100 80GB HBM3");
  pai::Plan plan = test::one_node_plan(2);
  plan.sanity_check.nccl_bytes = 4096;
  CheckResult r = run_nccl_check(plan, fake_nccl_options(), 20);
  CHECK(r.status == CheckResult::Failed);
  CHECK(r.summary == "wrong all-reduce result on GPU 0: element 0 is 0, expected 3");
  CHECK(r.facts.at("nccl") == "2.19.3");
}

TEST_CASE("the node of rank 0 publishes the ncclUniqueId it made while the check runs") {
  FakeCudaEnv env("NVIDIA H100 80GB HBM3;NVIDIA H100 80GB HBM3");
  pai::Plan plan = test::one_node_plan(2);
  plan.sanity_check.nccl_bytes = 4096;
  CheckOptions options = fake_nccl_options();
  std::string published;
  options.nccl = NcclRendezvous{"", 4, 0, [&](const std::string& id) { published = id; }};
  CheckResult r = run_nccl_check(plan, options, 20);
  REQUIRE(published.size() == 128);
  for (int i = 0; i < 128; ++i)
    CHECK(published[static_cast<std::size_t>(i)] == static_cast<char>(i));
  CHECK(r.summary == "wrong all-reduce result on GPU 0: element 0 is 0, expected 10");
}

TEST_CASE("a node without rank 0 needs the id from the rendezvous") {
  FakeCudaEnv env("NVIDIA H100 80GB HBM3;NVIDIA H100 80GB HBM3");
  CheckOptions options = fake_nccl_options();
  options.nccl = NcclRendezvous{"", 4, 2, {}};
  CheckResult r = run_nccl_check(test::one_node_plan(2), options, 20);
  CHECK(r.status == CheckResult::Failed);
  CHECK(r.summary == "the rendezvous gave no ncclUniqueId to a node without rank 0");
  options.nccl->unique_id = "short";
  CHECK(run_nccl_check(test::one_node_plan(2), options, 20).summary ==
        "the rendezvous passed a malformed ncclUniqueId");
}

TEST_CASE("a single GPU has nothing to all-reduce with") {
  FakeCudaEnv env("NVIDIA H100 80GB HBM3");
  CheckResult r = run_nccl_check(test::one_node_plan(1), fake_nccl_options(), 20);
  CHECK(r.status == CheckResult::Skipped);
  CHECK(r.summary == "fewer than two GPUs in the all-reduce (1): nothing to measure");
}

TEST_CASE("the fabric engine's pair - the listener makes the id, the connector joins with it") {
  FakeCudaEnv env("NVIDIA H100 80GB HBM3;NVIDIA H100 80GB HBM3");
  test::FakeEnv kernels("PAI_FAKE_CUDA_KERNELS", "1");
  test::FakeEnv sum("PAI_FAKE_NCCL_SUM", "1");
  test::FakeEnv id_text("PAI_FAKE_NCCL_ID", "pair-7-id:");
  test::FakeEnv slow("PAI_FAKE_NCCL_MS", "10");
  const std::string log = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") +
                          "/pai-nccl-pair-" + std::to_string(::getpid()) + ".log";
  std::remove(log.c_str());
  test::FakeEnv log_env("PAI_FAKE_NCCL_LOG", log.c_str());
  pai::Plan plan = test::one_node_plan(2);
  plan.sanity_check.nccl_bytes = 1 << 20;
  // The single-node check's floor is not the pair's: it would fail every pair here.
  plan.sanity_check.nccl_min_bus_bandwidth_gbps = 1000;

  CheckOptions listener = fake_nccl_options();
  std::string published;
  listener.nccl = NcclRendezvous{"", 4, 0, [&](const std::string& id) { published = id; }};
  const double listener_busbw = run_nccl_pair(plan, listener, 20);
  REQUIRE(published.size() == 128);
  CHECK(published.substr(0, 20) == "pair-7-id:pair-7-id:");

  CheckOptions connector = fake_nccl_options();
  connector.nccl = NcclRendezvous{published, 4, 2, {}};
  const double connector_busbw = run_nccl_pair(plan, connector, 20);
  // 1 MiB per GPU in at least 2 x 10 ms (two local ranks), times 2(n-1)/n = 1.5.
  for (double busbw : {listener_busbw, connector_busbw}) {
    CHECK(busbw > 0.01);
    CHECK(busbw <= (1 << 20) / 0.020 * 1.5 / 1e9);
  }
  std::ifstream in(log);
  std::stringstream lines;
  lines << in.rdbuf();
  // Each GPU joined once, with the listener's id: ranks 0-1 there, 2-3 on its partner.
  CHECK(lines.str() ==
        "rank 0 of 4 id pair-7-id:pair-7\nrank 1 of 4 id pair-7-id:pair-7\n"
        "rank 2 of 4 id pair-7-id:pair-7\nrank 3 of 4 id pair-7-id:pair-7\n");
  std::remove(log.c_str());
}

TEST_CASE("the fabric engine fails with one line where NCCL cannot run or goes wrong") {
  FakeCudaEnv env("NVIDIA H100 80GB HBM3;NVIDIA H100 80GB HBM3");
  pai::Plan plan = test::one_node_plan(2);
  plan.sanity_check.nccl_bytes = 4096;
  CheckOptions options = fake_nccl_options();
  options.nccl = NcclRendezvous{"", 4, 0, {}};
  SECTION("no NCCL on the node") {
    options.nccl_library = test::kMissingLibrary;
    CHECK_THROWS_WITH(run_nccl_pair(plan, options, 20),
                      "NCCL engine: no NCCL (" + test::kMissingLibrary +
                          ": cannot open shared object file: No such file or directory)");
  }
  SECTION("a malformed id from the coordinator") {
    options.nccl = NcclRendezvous{"short", 4, 2, {}};
    CHECK_THROWS_WITH(run_nccl_pair(plan, options, 20),
                      "NCCL engine: the rendezvous passed a malformed ncclUniqueId");
  }
  SECTION("a partner that never joins") {
    test::FakeEnv hang("PAI_FAKE_NCCL_HANG", "1");
    CHECK_THROWS_WITH(run_nccl_pair(plan, options, 3),
                      "NCCL engine: communicator setup (a peer did not join) timed out; "
                      "communicators aborted");
  }
  SECTION("a wrong sum") {
    CHECK_THROWS_WITH(run_nccl_pair(plan, options, 20),
                      "NCCL engine: wrong all-reduce result on GPU 0: element 0 is 0, expected 10");
  }
}

}  // namespace nccl_check_test
