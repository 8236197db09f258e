#include "launcher/store/key_value_store.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace key_value_store_test {

using namespace pai::launcher::store;

namespace {

std::string value_reply(const std::string& v) {
  std::string out;
  append_value(out, v);
  return out;
}

std::string i64_reply(std::int64_t n) {
  std::string out;
  append_i64(out, n);
  return out;
}

std::string u8_reply(std::uint8_t n) { return std::string(1, static_cast<char>(n)); }

// Applies `r` for `client` and returns what went out.
std::vector<Outgoing> run(KeyValueStore& store, ClientId client, Request r) {
  std::vector<Outgoing> out;
  store.apply(client, r, out);
  return out;
}

std::string error_of(KeyValueStore& store, Request r) {
  try {
    run(store, 1, std::move(r));
  } catch (const StoreRequestError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("set, get, add, compare-set, delete and count answer as torch's daemon does") {
  KeyValueStore store(1 << 20);
  CHECK(run(store, 1, {.op = Op::Set, .keys = {"/k"}, .values = {"v1"}}).empty());
  auto got = run(store, 1, {.op = Op::Get, .keys = {"/k"}});
  REQUIRE(got.size() == 1);
  CHECK(got[0].client == 1);
  CHECK(got[0].bytes == value_reply("v1"));

  CHECK(run(store, 2, {.op = Op::Add, .keys = {"/n"}, .number = 5})[0].bytes == i64_reply(5));
  CHECK(run(store, 2, {.op = Op::Add, .keys = {"/n"}, .number = -7})[0].bytes == i64_reply(-2));
  CHECK(run(store, 2, {.op = Op::Get, .keys = {"/n"}})[0].bytes == value_reply("-2"));

  // compare-set: swaps on a match, answers the value the key has after.
  CHECK(run(store, 1, {.op = Op::CompareSet, .keys = {"/k"}, .values = {"v1", "v2"}})[0].bytes ==
        value_reply("v2"));
  CHECK(run(store, 1, {.op = Op::CompareSet, .keys = {"/k"}, .values = {"nope", "v3"}})[0].bytes ==
        value_reply("v2"));
  // A key not set: set when `expected` is empty, else the answer is `expected` and nothing set.
  CHECK(run(store, 1, {.op = Op::CompareSet, .keys = {"/x"}, .values = {"e", "d"}})[0].bytes ==
        value_reply("e"));
  CHECK(run(store, 1, {.op = Op::Check, .keys = {"/x"}})[0].bytes == u8_reply(1));
  CHECK(run(store, 1, {.op = Op::CompareSet, .keys = {"/x"}, .values = {"", "d"}})[0].bytes ==
        value_reply("d"));

  CHECK(run(store, 1, {.op = Op::NumKeys})[0].bytes == i64_reply(3));
  CHECK(run(store, 1, {.op = Op::DeleteKey, .keys = {"/x"}})[0].bytes == i64_reply(1));
  CHECK(run(store, 1, {.op = Op::DeleteKey, .keys = {"/x"}})[0].bytes == i64_reply(0));
  CHECK(run(store, 1, {.op = Op::Append, .keys = {"/k"}, .values = {"+"}}).empty());
  CHECK(run(store, 1, {.op = Op::MultiSet, .keys = {"/a", "/b"}, .values = {"1", "2"}}).empty());
  CHECK(run(store, 1, {.op = Op::MultiGet, .keys = {"/k", "/b"}})[0].bytes ==
        value_reply("v2+") + value_reply("2"));
  CHECK(run(store, 1, {.op = Op::Ping, .number = 0xfeedbeef})[0].bytes ==
        std::string("\xef\xbe\xed\xfe", 4));
  CHECK(store.keys() == 4);
  CHECK(store.bytes() == 2 + 3 + 2 + 2 + 2 + 1 + 2 + 1);
}

TEST_CASE("a WAIT ends when its last key is set - for every client that waits") {
  KeyValueStore store(1 << 20);
  CHECK(run(store, 1, {.op = Op::Wait, .keys = {"/a", "/b"}}).empty());
  CHECK(run(store, 2, {.op = Op::Wait, .keys = {"/b"}}).empty());
  // Nobody's wait is over with /a alone.
  CHECK(run(store, 3, {.op = Op::Set, .keys = {"/a"}, .values = {"1"}}).empty());
  auto woken = run(store, 3, {.op = Op::Add, .keys = {"/b"}, .number = 1});
  REQUIRE(woken.size() == 3);
  CHECK(woken[0].client == 1);
  CHECK(woken[0].bytes == u8_reply(0));
  CHECK(woken[1].client == 2);
  CHECK(woken[2].client == 3);  // the ADD's own answer
  CHECK(woken[2].bytes == i64_reply(1));
  // Keys already set: the answer comes at once.
  CHECK(run(store, 4, {.op = Op::Wait, .keys = {"/a", "/b"}})[0].bytes == u8_reply(0));
}

TEST_CASE("a cancelled or abandoned wait, or a client gone, is forgotten") {
  KeyValueStore store(1 << 20);
  CHECK(run(store, 1, {.op = Op::Wait, .keys = {"/a"}}).empty());
  CHECK(run(store, 1, {.op = Op::CancelWait})[0].bytes == u8_reply(1));
  CHECK(run(store, 2, {.op = Op::Wait, .keys = {"/a"}}).empty());
  store.forget(2);
  // torch 1.x gives up on a timeout silently, then waits for something else.
  CHECK(run(store, 3, {.op = Op::Wait, .keys = {"/a"}}).empty());
  CHECK(run(store, 3, {.op = Op::Wait, .keys = {"/c"}}).empty());
  CHECK(run(store, 4, {.op = Op::Set, .keys = {"/a"}, .values = {"1"}}).empty());
  auto woken = run(store, 4, {.op = Op::Set, .keys = {"/c"}, .values = {"1"}});
  REQUIRE(woken.size() == 1);
  CHECK(woken[0].client == 3);
}

TEST_CASE("what the store cannot carry out is an error for that client") {
  KeyValueStore store(64);
  CHECK(error_of(store, {.op = Op::Get, .keys = {"/nope"}}) == "GET of '/nope', which is not set");
  CHECK(error_of(store, {.op = Op::MultiGet, .keys = {"/nope"}}) ==
        "MULTI_GET of '/nope', which is not set");
  run(store, 1, {.op = Op::Set, .keys = {"/s"}, .values = {"text"}});
  CHECK(error_of(store, {.op = Op::Add, .keys = {"/s"}, .number = 1}) ==
        "ADD to '/s', whose value is no integer");
  run(store, 1,
      {.op = Op::Add, .keys = {"/n"}, .number = std::numeric_limits<std::int64_t>::max()});
  CHECK(error_of(store, {.op = Op::Add, .keys = {"/n"}, .number = 1}) ==
        "ADD of 1 to '/n' (9223372036854775807) overflows 64 bits");
  // Full: a write past the bound is refused, the store keeps what it had.
  const std::size_t before = store.bytes();
  CHECK(error_of(store, {.op = Op::Set, .keys = {"/big"}, .values = {std::string(60, 'x')}}) ==
        "a write of 64 bytes to a store holding " + std::to_string(before) + " (at most 64)");
  CHECK(store.bytes() == before);
  // Overwriting with a smaller value always fits.
  CHECK(run(store, 1, {.op = Op::Set, .keys = {"/s"}, .values = {"t"}}).empty());
  CHECK(store.bytes() == before - 3);
}

TEST_CASE("a newer attempt's first write drops the older attempts' keys") {
  KeyValueStore store(1 << 20);
  // What torch 1.13's PrefixStore + TCPStore make of key "k" in attempt N.
  run(store, 1, {.op = Op::Add, .keys = {"init/"}, .number = 1});
  run(store, 1, {.op = Op::Set, .keys = {"//worker/attempt_0/k"}, .values = {"a0"}});
  run(store, 1, {.op = Op::Set, .keys = {"//worker/attempt_0/j"}, .values = {"a0"}});
  run(store, 1, {.op = Op::Set, .keys = {"//worker/attempt_1/k"}, .values = {"a1"}});
  CHECK(store.keys() == 2);  // init/ and attempt 1's
  CHECK(run(store, 1, {.op = Op::Check, .keys = {"//worker/attempt_0/k"}})[0].bytes == u8_reply(1));
  // A late write of an older attempt is kept (its ranks are being stopped) and dropped next time.
  run(store, 1, {.op = Op::Set, .keys = {"//worker/attempt_0/late"}, .values = {"x"}});
  run(store, 1, {.op = Op::Set, .keys = {"//worker/attempt_2/k"}, .values = {"a2"}});
  CHECK(store.keys() == 2);
  // Keys that only look like it are left alone.
  run(store, 1, {.op = Op::Set, .keys = {"/worker/attempt_x/k"}, .values = {"1"}});
  run(store, 1, {.op = Op::Set, .keys = {"/worker/attempt_9"}, .values = {"1"}});
  CHECK(store.keys() == 4);
}

}  // namespace key_value_store_test
