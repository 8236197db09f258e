#include "launcher/checks/infiniband.h"

#include <catch2/catch.hpp>

#include "test_plan.h"

namespace infiniband_test {

using namespace pai::checks;
using pai::checks::test::kInfinibandFixture;

TEST_CASE("HCAs are listed from the sysfs root") {
  CHECK(list_rdma_devices(kInfinibandFixture) ==
        std::vector<std::string>{"mlx5_0", "mlx5_1", "mlx5_2"});
  CHECK(list_rdma_devices("/nonexistent/infiniband").empty());
}

TEST_CASE("a port's state is read from \"4: ACTIVE\"") {
  auto active = read_rdma_device(kInfinibandFixture, "mlx5_0");
  REQUIRE(active);
  REQUIRE(active->ports.size() == 1);
  CHECK(active->ports[0].number == 1);
  CHECK(active->ports[0].state == "ACTIVE");
  CHECK(active->ports[0].active());
  auto down = read_rdma_device(kInfinibandFixture, "mlx5_1");
  REQUIRE(down);
  CHECK(down->ports[0].state == "DOWN");
  CHECK_FALSE(down->ports[0].active());
  CHECK_FALSE(read_rdma_device(kInfinibandFixture, "mlx5_9"));
}

TEST_CASE("a GID index is configured when its file exists and is not all zeros") {
  CHECK(rdma_gid_configured(kInfinibandFixture, "mlx5_0", 1, 3));
  CHECK(rdma_gid_configured(kInfinibandFixture, "mlx5_0", 1, 0));
  CHECK_FALSE(rdma_gid_configured(kInfinibandFixture, "mlx5_2", 1, 3));
  CHECK_FALSE(rdma_gid_configured(kInfinibandFixture, "mlx5_0", 1, 7));
}

}  // namespace infiniband_test
