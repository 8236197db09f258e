#include "libpai/hostfile.h"

#include <catch2/catch.hpp>

#include "support/plan_fixture.h"

namespace hostfile_test {

TEST_CASE("render_hostfile writes Open MPI slots lines in rank order") {
  pai::Plan plan = pai::testing::make_test_plan(2, 4);
  CHECK(pai::render_hostfile(plan, pai::HostfileStyle::OpenMpi) ==
        "10.0.0.1 slots=4\n"
        "10.0.0.2 slots=4\n"
        "10.0.0.3 slots=1\n");
}

TEST_CASE("render_hostfile writes MPICH host:N lines") {
  pai::Plan plan = pai::testing::make_test_plan(2, 8);
  CHECK(pai::render_hostfile(plan, pai::HostfileStyle::Mpich) ==
        "10.0.0.1:8\n"
        "10.0.0.2:8\n"
        "10.0.0.3:1\n");
}

TEST_CASE("render_hostfile skips excluded roles") {
  pai::Plan plan = pai::testing::make_test_plan(2, 2);
  CHECK(pai::render_hostfile(plan, pai::HostfileStyle::OpenMpi, {"ps"}) ==
        "10.0.0.1 slots=2\n"
        "10.0.0.2 slots=2\n");
  CHECK(pai::render_hostfile(plan, pai::HostfileStyle::Mpich, {"worker", "ps"}).empty());
}

}  // namespace hostfile_test
