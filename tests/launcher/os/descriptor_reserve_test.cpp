#include "launcher/os/descriptor_reserve.h"

#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <vector>

#include "support/descriptor_limit.h"

namespace descriptor_reserve_test {

using namespace pai::launcher;
using pai::testing::DescriptorLimitScope;
using pai::testing::open_descriptors;

TEST_CASE("a descriptor reserve holds its descriptors until released") {
  const int before = open_descriptors();
  DescriptorReserve reserve(4);
  CHECK(reserve.held() == 4);
  CHECK(open_descriptors() == before + 4);
  reserve.release();
  CHECK(reserve.held() == 0);
  CHECK(open_descriptors() == before);
  reserve.release();  // a second release does nothing
  CHECK(open_descriptors() == before);
}

// While the limit is reached nothing below may use Catch's assertions: the sanitizers' check of
// their objects needs a pipe. Results are kept in plain variables and checked afterwards.
TEST_CASE("at the open files limit, releasing the reserve makes room for a pipe") {
  DescriptorReserve reserve(2);
  REQUIRE(reserve.held() == 2);
  std::vector<int> filler;
  int fill_error = 0;
  int pipe_before = 0;
  int pipe_after = 0;
  {
    DescriptorLimitScope scope(static_cast<rlim_t>(open_descriptors() + 8));
    for (int fd; (fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0;) filler.push_back(fd);
    fill_error = errno;
    int fds[2];
    pipe_before = ::pipe2(fds, O_CLOEXEC);
    reserve.release();
    pipe_after = ::pipe2(fds, O_CLOEXEC);
    if (pipe_after == 0) {
      ::close(fds[0]);
      ::close(fds[1]);
    }
  }
  for (int fd : filler) ::close(fd);
  CHECK(fill_error == EMFILE);
  CHECK(pipe_before == -1);
  CHECK(pipe_after == 0);
}

TEST_CASE("a reserve asked for more than the limit allows holds what it could get") {
  int held = 0;
  int open_error = 0;
  {
    DescriptorLimitScope scope(static_cast<rlim_t>(open_descriptors() + 3));
    DescriptorReserve reserve(100);
    held = reserve.held();
    const int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    open_error = fd < 0 ? errno : 0;
    if (fd >= 0) ::close(fd);
  }
  CHECK(held >= 3);
  CHECK(held < 100);
  CHECK(open_error == EMFILE);  // the reserve took everything the limit allowed
}

}  // namespace descriptor_reserve_test
