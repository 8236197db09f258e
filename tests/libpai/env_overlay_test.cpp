#include "libpai/env_overlay.h"

#include <catch2/catch.hpp>

namespace env_overlay_test {

TEST_CASE("overlay_env replaces existing names in place and appends new ones") {
  pai::EnvList base = {{"A", "1"}, {"B", "2"}, {"C", "3"}};
  pai::overlay_env(base, {{"B", "two"}, {"D", "4"}, {"A", "one"}});
  CHECK(base == pai::EnvList{{"A", "one"}, {"B", "two"}, {"C", "3"}, {"D", "4"}});
}

TEST_CASE("overlay_env keeps names unique when the base's strings are long") {
  // Long names live on the heap, short ones inline: both must survive the base growing.
  std::string long_name(100, 'X');
  pai::EnvList base = {{long_name, "old"}, {"S", "old"}};
  pai::overlay_env(base, {{"N1", "a"}, {"N2", "b"}, {"S", "new"}, {long_name, "new"}});
  CHECK(base == pai::EnvList{{long_name, "new"}, {"S", "new"}, {"N1", "a"}, {"N2", "b"}});
  pai::overlay_env(base, {});
  CHECK(base.size() == 4);
}

}  // namespace env_overlay_test
