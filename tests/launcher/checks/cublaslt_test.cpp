#include "launcher/checks/cublaslt.h"

#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "test_plan.h"

namespace cublaslt_test {

using namespace pai::checks;

TEST_CASE("without libcublasLt every library tried is named") {
  std::string reason;
  CHECK_FALSE(CublasLt::open({test::kMissingLibrary, "libpai-missing-too.so"}, &reason));
  CHECK(reason == "no cuBLASLt (" + test::kMissingLibrary +
                      ": cannot open shared object file: No such file or directory; "
                      "libpai-missing-too.so: cannot open shared object file: No such file or "
                      "directory)");
  CHECK_FALSE(CublasLt::open({}, &reason));
  CHECK(reason == "no cuBLASLt (no library to try)");
}

TEST_CASE("a library without cuBLASLt's entry points is passed over for the next") {
  std::string reason;
  auto lt = CublasLt::open({test::kFakeCuda, test::kFakeCublasLt}, &reason);
  REQUIRE(lt);
  CHECK(lt->library() == test::kFakeCublasLt);
  CHECK(lt->version() == 130100);
  CHECK_FALSE(CublasLt::open({test::kFakeCuda}, &reason));
  CHECK(reason == "no cuBLASLt (" + test::kFakeCuda + " lacks cublasLtGetVersion)");
}

TEST_CASE("a GEMM is planned - and a heuristic without an algorithm is named") {
  std::string reason, error;
  auto lt = CublasLt::open({test::kFakeCublasLt}, &reason);
  REQUIRE(lt);
  CHECK(LtGemm::plan(*lt, LtPrecision::Bf16, 8192, 0, 1 << 20, &error));
  setenv("PAI_FAKE_CUBLASLT_NO_ALGO", "fp8", 1);
  CHECK_FALSE(LtGemm::plan(*lt, LtPrecision::Fp8, 8192, 0, 1 << 20, &error));
  unsetenv("PAI_FAKE_CUBLASLT_NO_ALGO");
  CHECK(error == "cublasLtMatmulAlgoGetHeuristic found no algorithm for fp8 8192x8192");
}

TEST_CASE("a GEMM that cannot run returns cuBLAS's status") {
  std::string reason, error;
  auto lt = CublasLt::open({test::kFakeCublasLt}, &reason);
  REQUIRE(lt);
  auto gemm = LtGemm::plan(*lt, LtPrecision::Bf16, 64, 0, 0, &error);
  REQUIRE(gemm);
  // No fake GPU stands behind a null stream on this thread: the fake cuBLASLt cannot run it.
  CHECK(describe_cublas_status(gemm->run(0, 0, 0, nullptr)) ==
        "cuBLAS status 15 (CUBLAS_STATUS_NOT_SUPPORTED)");
}

TEST_CASE("the toolkit's real cuBLASLt, where installed, has every entry point the burn uses") {
  const std::string real = "/usr/local/cuda/lib64/libcublasLt.so.13";
  if (access(real.c_str(), R_OK) != 0) {
    std::string reason;
    CHECK_FALSE(CublasLt::open({real}, &reason));
    CHECK(reason.rfind("no cuBLASLt (" + real + ": cannot open", 0) == 0);
    return;
  }
  // In a child that ends with _exit: the real library's static initializers allocate memory
  // it never frees (libstdc++'s exception pool), which LeakSanitizer would report at exit.
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    std::string reason;
    auto lt = CublasLt::open({real}, &reason);
    if (!lt) _exit(2);
    _exit(lt->version() >= 130000 && lt->version() < 140000 ? 0 : 3);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);  // 2: did not open, 3: not a CUDA 13 cuBLASLt
}

TEST_CASE("precisions and statuses are named") {
  CHECK(std::string(to_string(LtPrecision::Fp8)) == "fp8");
  CHECK(input_bytes(LtPrecision::Bf16) == 2);
  CHECK(input_bytes(LtPrecision::Fp8) == 1);
  CHECK(describe_cublas_status(99) == "cuBLAS status 99");
}

}  // namespace cublaslt_test
