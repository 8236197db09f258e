#include "launcher/checks/nccl_check.h"

#include <catch2/catch.hpp>
#include <cstdlib>

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

}  // namespace nccl_check_test
