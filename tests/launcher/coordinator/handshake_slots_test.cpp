#include "launcher/coordinator/handshake_slots.h"

#include <catch2/catch.hpp>
#include <stdexcept>

namespace handshake_slots_test {

using pai::launcher::coordinator::HandshakeSlots;

TEST_CASE("an address at its cap makes room by evicting its own oldest connection") {
  HandshakeSlots slots(3, 100);
  for (int id = 1; id <= 3; ++id) CHECK_FALSE(slots.admit(id, "10.0.0.1"));
  CHECK_FALSE(slots.admit(4, "10.0.0.2"));

  auto evicted = slots.admit(5, "10.0.0.1");
  REQUIRE(evicted);
  CHECK(evicted->id == 1);
  CHECK(evicted->reason ==
        "evicted by a newer connection: at most 3 unauthenticated connections per address");
  CHECK(slots.size("10.0.0.1") == 3);
  CHECK(slots.size() == 4);

  // One that authenticated (or failed) frees its slot: no eviction for the next.
  slots.release(3);
  slots.release(3);
  CHECK_FALSE(slots.admit(6, "10.0.0.1"));
  evicted = slots.admit(7, "10.0.0.1");
  REQUIRE(evicted);
  CHECK(evicted->id == 2);
}

TEST_CASE("at the total cap the address holding the most gives up its oldest") {
  HandshakeSlots slots(10, 6);
  CHECK_FALSE(slots.admit(1, "10.0.0.1"));  // the oldest of all, from a quiet address
  for (int id = 2; id <= 4; ++id) CHECK_FALSE(slots.admit(id, "10.0.0.2"));
  CHECK_FALSE(slots.admit(5, "10.0.0.3"));
  CHECK_FALSE(slots.admit(6, "10.0.0.3"));

  auto evicted = slots.admit(7, "10.0.0.4");
  REQUIRE(evicted);
  CHECK(evicted->id == 2);
  CHECK(evicted->reason == "evicted by a newer connection: at most 6 unauthenticated connections");
  CHECK(slots.size() == 6);

  // 10.0.0.2 and 10.0.0.3 now hold two each: the one with the older connection gives.
  evicted = slots.admit(8, "10.0.0.4");
  REQUIRE(evicted);
  CHECK(evicted->id == 3);
  evicted = slots.admit(9, "10.0.0.1");
  REQUIRE(evicted);
  CHECK(evicted->id == 5);
  CHECK(slots.size("10.0.0.1") == 2);
  CHECK(slots.size("10.0.0.2") == 1);
  CHECK(slots.size("10.0.0.3") == 1);
  CHECK(slots.size("10.0.0.4") == 2);
}

TEST_CASE("a newcomer from the busiest address evicts that address's oldest") {
  HandshakeSlots slots(1, 1);
  CHECK_FALSE(slots.admit(1, "10.0.0.1"));
  auto evicted = slots.admit(2, "10.0.0.1");
  REQUIRE(evicted);
  CHECK(evicted->id == 1);
  evicted = slots.admit(3, "10.0.0.2");
  REQUIRE(evicted);
  CHECK(evicted->id == 2);
  CHECK(slots.size() == 1);
  CHECK(slots.size("10.0.0.1") == 0);
}

TEST_CASE("the caps must be at least 1") {
  CHECK_THROWS_WITH(HandshakeSlots(0, 10),
                    "the limits of unauthenticated connections must be at least 1 (per address "
                    "0, in all 10)");
  CHECK_THROWS_AS(HandshakeSlots(1, 0), std::invalid_argument);
}

}  // namespace handshake_slots_test
