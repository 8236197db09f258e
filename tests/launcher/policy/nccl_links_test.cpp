#include "launcher/policy/nccl_links.h"

#include <catch2/catch.hpp>

namespace nccl_links_test {

using namespace pai::launcher;

namespace {

// A ring of 4 nodes, one rank each, 1 GB/s a link; links touching `slow` at a fifth of it.
std::vector<NcclSend> ring(int slow, double factor = 5) {
  std::vector<NcclSend> sends;
  for (int n = 0; n < 4; ++n) {
    const int next = (n + 1) % 4;
    const double seconds = (n == slow || next == slow) ? factor : 1;
    sends.push_back({n, next, 1e9, seconds * 1e6});
  }
  return sends;
}

}  // namespace

TEST_CASE("the node common to the slow links is named - not its neighbours") {
  const auto slow = nccl_slow_nodes(ring(2), 3);
  REQUIRE(slow.size() == 1);
  CHECK(slow[0].node == 2);
  CHECK(slow[0].rate == 2e8);
  CHECK(slow[0].others == 1e9);
  CHECK(slow[0].links == 2);
  CHECK(nccl_evidence(slow[0], "node-3") ==
        "NCCL transfers to and from node-3 run at 200 MB/s, 5.0x below the other links' median "
        "of 1.0 GB/s (2 links)");
}

TEST_CASE("a healthy ring - or a slowdown under the factor - names nobody") {
  CHECK(nccl_slow_nodes(ring(-1), 3).empty());
  CHECK(nccl_slow_nodes(ring(2, 2), 3).empty());
}

TEST_CASE("links within a node, idle links and too few links are not judged") {
  std::vector<NcclSend> sends = ring(2);
  sends.push_back({1, 1, 1e9, 1e9});  // within node 1: nothing on the fabric
  sends.push_back({0, 3, 0, 0});      // idle
  CHECK(nccl_slow_nodes(sends, 3).size() == 1);
  const std::vector<NcclSend> two = {{0, 1, 1e9, 1e6}, {1, 0, 1e8, 1e6}};
  CHECK(nccl_slow_nodes(two, 3).empty());
}

}  // namespace nccl_links_test
