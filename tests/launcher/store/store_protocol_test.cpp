#include "launcher/store/store_protocol.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <string>

namespace store_protocol_test {

using namespace pai::launcher::store;

namespace {

std::string hex(const std::string& text) {
  std::string bytes;
  for (std::size_t i = 0; i + 1 < text.size(); i += 2) {
    bytes.push_back(static_cast<char>(std::stoi(text.substr(i, 2), nullptr, 16)));
  }
  return bytes;
}

Request parse_one(const std::string& bytes, Dialect& dialect) {
  auto parsed = parse_request(bytes, dialect, StoreLimits{});
  REQUIRE(parsed);
  CHECK(parsed->second == bytes.size());
  return parsed->first;
}

}  // namespace

// The bytes below are what Debian 12's torch 1.13 client sent to its own store (recorded
// through a proxy): its constructor's ADD of "init/", then SET, WAIT + GET, ADD, COMPARE_SET,
// GETNUMKEYS, DELETE_KEY.
TEST_CASE("torch 1.13's requests are read as it sends them") {
  Dialect dialect = Dialect::Unknown;
  Request add = parse_one(hex("030500000000000000696e69742f0100000000000000"), dialect);
  CHECK(dialect == Dialect::Legacy);
  CHECK(add.op == Op::Add);
  CHECK(add.keys == std::vector<std::string>{"init/"});
  CHECK(add.number == 1);

  dialect = Dialect::Unknown;
  Request set = parse_one(hex("0002000000000000002f6b02000000000000007631"), dialect);
  CHECK(dialect == Dialect::Legacy);
  CHECK(set.op == Op::Set);
  CHECK(set.keys == std::vector<std::string>{"/k"});
  CHECK(set.values == std::vector<std::string>{"v1"});

  Request wait = parse_one(hex("05010000000000000002000000000000002f6b"), dialect);
  CHECK(wait.op == Op::Wait);
  CHECK(wait.keys == std::vector<std::string>{"/k"});
  CHECK(parse_one(hex("0202000000000000002f6b"), dialect).op == Op::Get);
  Request cas =
      parse_one(hex("0102000000000000002f6b0200000000000000763102000000000000007632"), dialect);
  CHECK(cas.op == Op::CompareSet);
  CHECK(cas.values == std::vector<std::string>{"v1", "v2"});
  CHECK(parse_one(hex("06"), dialect).op == Op::NumKeys);
  CHECK(parse_one(hex("0802000000000000002f6b"), dialect).op == Op::DeleteKey);
}

TEST_CASE("a request is read only once all of it is there - byte by byte") {
  const std::string bytes = hex("0102000000000000002f6b0200000000000000763102000000000000007632");
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    Dialect dialect = Dialect::Legacy;
    CHECK_FALSE(parse_request(std::string_view(bytes).substr(0, n), dialect, StoreLimits{}));
  }
  // Two requests back to back: the first, and how much of the buffer it took.
  Dialect dialect = Dialect::Legacy;
  const std::string two = hex("06") + hex("0802000000000000002f6b");
  auto first = parse_request(two, dialect, StoreLimits{});
  REQUIRE(first);
  CHECK(first->first.op == Op::NumKeys);
  CHECK(first->second == 1);
}

TEST_CASE("a newer torch opens with VALIDATE and is read in its own numbering") {
  Dialect dialect = Dialect::Unknown;
  // One byte of VALIDATE is not enough to tell it from a torch 1.x SET.
  CHECK_FALSE(parse_request(std::string(1, '\0'), dialect, StoreLimits{}));
  CHECK(dialect == Dialect::Unknown);
  Request validate =
      parse_one(encode_request(Request{.op = Op::Validate}, Dialect::Validated), dialect);
  CHECK(validate.op == Op::Validate);
  CHECK(dialect == Dialect::Validated);
  const std::vector<Request> requests = {
      {.op = Op::Set, .keys = {"/a"}, .values = {"1"}},
      {.op = Op::CompareSet, .keys = {"/a"}, .values = {"1", "2"}},
      {.op = Op::Get, .keys = {"/a"}},
      {.op = Op::Add, .keys = {"/a"}, .number = -7},
      {.op = Op::Check, .keys = {"/a", "/b"}},
      {.op = Op::Wait, .keys = {"/a", "/b"}},
      {.op = Op::NumKeys},
      {.op = Op::DeleteKey, .keys = {"/a"}},
      {.op = Op::Append, .keys = {"/a"}, .values = {"more"}},
      {.op = Op::MultiGet, .keys = {"/a", "/b"}},
      {.op = Op::MultiSet, .keys = {"/a", "/b"}, .values = {"1", "2"}},
      {.op = Op::CancelWait},
      {.op = Op::Ping, .number = 0xfeedbeef},
  };
  for (const Request& r : requests) {
    const Request back = parse_one(encode_request(r, Dialect::Validated), dialect);
    INFO(op_name(r.op));
    CHECK(back.op == r.op);
    CHECK(back.keys == r.keys);
    CHECK(back.values == r.values);
    CHECK(back.number == r.number);
  }
  // The newer numbering: 1 is SET there, COMPARE_SET in torch 1.x.
  Request set = parse_one(hex("0102000000000000002f6b0100000000000000"
                              "78"),
                          dialect);
  CHECK(set.op == Op::Set);
}

TEST_CASE("bytes no torch client sends are errors that say what came") {
  const auto error_of = [](const std::string& bytes, Dialect dialect) {
    try {
      parse_request(bytes, dialect,
                    StoreLimits{.max_key_bytes = 16, .max_value_bytes = 32, .max_keys = 4});
    } catch (const StoreProtocolError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error_of(hex("63"), Dialect::Unknown) ==
        "query type 99, unknown to the torch 1.x store protocol");
  // 255 is no query type in either dialect (the fuzzer found it taken for VALIDATE in 1.x's).
  CHECK(error_of(hex("ff"), Dialect::Legacy) ==
        "query type 255, unknown to the torch 1.x store protocol");
  CHECK(error_of(hex("ff"), Dialect::Validated) ==
        "query type 255, unknown to the validated (torch 2.x) store protocol");
  CHECK(error_of(hex("0e"), Dialect::Validated) ==
        "query type 14, unknown to the validated (torch 2.x) store protocol");
  CHECK(error_of(hex("07"), Dialect::Legacy) ==
        "WATCH_KEY (torch 1.x's key callbacks), which the launcher's store does not serve");
  // A length past the limits is refused before anything that large is waited for.
  CHECK(error_of(hex("02ffffffffffffffff"), Dialect::Legacy) ==
        "a key of 18446744073709551615 bytes (at most 16)");
  CHECK(error_of(hex("000100000000000000"
                     "6b"
                     "2100000000000000"),
                 Dialect::Legacy) == "a value of 33 bytes (at most 32)");
  CHECK(error_of(hex("050500000000000000"), Dialect::Legacy) == "a list of 5 keys (at most 4)");
  CHECK(error_of(hex("00"
                     "01020304"),
                 Dialect::Validated) ==
        "VALIDATE with the number 67305985, not torch's 1015412686");
  CHECK(error_of(hex("cef7853c01"), Dialect::Unknown).find("magic number") != std::string::npos);
}

}  // namespace store_protocol_test
