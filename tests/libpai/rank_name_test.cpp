#include "libpai/rank_name.h"

#include <catch2/catch.hpp>

namespace rank_name_test {

using pai::RankName;

TEST_CASE("a rank is named by its global rank first, then where it runs") {
  CHECK(to_string(RankName{
            .rank = 3, .instance = "worker-1", .local_rank = 1, .node = "node-2", .gpu = 1}) ==
        "rank 3 (worker-1 local rank 1 on node-2, GPU 1)");
  CHECK(to_string(RankName{.rank = 3, .instance = "worker-1", .local_rank = 1, .node = "node-2"}) ==
        "rank 3 (worker-1 local rank 1 on node-2)");
  CHECK(to_string(RankName{.rank = 3, .instance = "worker-1", .local_rank = 1}) ==
        "rank 3 (worker-1 local rank 1)");
  CHECK(to_string(RankName{.rank = 3, .instance = "worker-1"}) == "rank 3 (worker-1)");
  CHECK(to_string(RankName{.rank = 3, .node = "node-2", .gpu = 0}) == "rank 3 (node-2, GPU 0)");
  CHECK(to_string(RankName{.rank = 3}) == "rank 3");
}

TEST_CASE("without its global rank a rank is named by where it runs") {
  CHECK(to_string(RankName{.instance = "worker-1", .local_rank = 1, .node = "node-2"}) ==
        "worker-1 local rank 1 on node-2");
  CHECK(to_string(RankName{.instance = "worker-1", .local_rank = 1}) == "worker-1 local rank 1");
  CHECK(to_string(RankName{.local_rank = 2, .gpu = 1}) ==
        "GPU 1");  // a local rank alone names nothing
  CHECK(to_string(RankName{}) == "an unknown rank");
}

}  // namespace rank_name_test
