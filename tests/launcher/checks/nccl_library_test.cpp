#include "launcher/checks/nccl_library.h"

#include <catch2/catch.hpp>

#include "test_plan.h"

namespace nccl_library_test {

using namespace pai::checks;

TEST_CASE("without libnccl NCCL is reported missing") {
  std::string reason;
  CHECK_FALSE(NcclLibrary::open(test::kMissingLibrary, &reason));
  CHECK(reason == "no NCCL (" + test::kMissingLibrary +
                      ": cannot open shared object file: No such file or directory)");
}

TEST_CASE("a library that does not report an NCCL version is refused") {
  std::string reason;
  CHECK_FALSE(NcclLibrary::open(test::kFakeCuda, &reason));
  CHECK(reason == test::kFakeCuda + " does not report its version");
}

TEST_CASE("the unique id is the 128 bytes NCCL defines") { CHECK(sizeof(nccl::UniqueId) == 128); }

}  // namespace nccl_library_test
