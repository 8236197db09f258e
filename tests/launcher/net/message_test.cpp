#include "launcher/net/message.h"

#include <catch2/catch.hpp>
#include <string>

namespace message_test {

using namespace pai::net;
using nlohmann::json;

namespace {

// The message a reader throws for `read`, which must fail.
template <typename Read>
std::string read_error(const json& message, Read read) {
  MessageReader reader(message);
  try {
    read(reader);
  } catch (const ProtocolError& e) {
    return e.what();
  }
  FAIL("a bad field was read without an error");
  return {};
}

std::string decode_error(const std::string& text) {
  try {
    base64_decode(text);
  } catch (const ProtocolError& e) {
    return e.what();
  }
  FAIL("invalid base64 decoded without an error: " + text);
  return {};
}

const json kMessage = json::parse(R"({
  "type": "exited", "name": "gpu-001", "stopping": true, "instance": 3, "big": -9000000000,
  "argv": ["python", "-c", "1"], "data": "aGk=", "status": {"code": 1}, "checks": [],
  "ratio": 0.5, "huge": 9223372036854775808, "mixed": ["a", 1]
})");

}  // namespace

TEST_CASE("a message must be an object with a string type") {
  for (const char* text : {"[]", "3", "{}", R"({"type": 1})", R"({"kind": "join"})"}) {
    CHECK_THROWS_WITH(MessageReader(json::parse(text)),
                      "message: expected a JSON object with a string \"type\"");
  }
  CHECK(MessageReader(kMessage).type() == "exited");
}

TEST_CASE("fields of the right type are read") {
  MessageReader reader(kMessage);
  CHECK(reader.has("name"));
  CHECK_FALSE(reader.has("absent"));
  CHECK(reader.string("name") == "gpu-001");
  CHECK(reader.boolean("stopping"));
  CHECK(reader.int64("big") == -9000000000);
  CHECK(reader.integer("instance", 0, 3) == 3);
  CHECK(reader.strings("argv") == std::vector<std::string>{"python", "-c", "1"});
  CHECK(reader.bytes("data") == "hi");
  CHECK(reader.object("status")["code"] == 1);
  CHECK(reader.array("checks").empty());
}

TEST_CASE("a missing field names the message type and the field") {
  CHECK(read_error(kMessage, [](auto& r) { r.string("absent"); }) == "exited: absent: missing");
  CHECK(read_error(kMessage, [](auto& r) { r.int64("absent"); }) == "exited: absent: missing");
}

TEST_CASE("a mistyped field names the message type and the field and what was expected") {
  CHECK(read_error(kMessage, [](auto& r) { r.string("instance"); }) ==
        "exited: instance: expected a string");
  CHECK(read_error(kMessage, [](auto& r) { r.boolean("name"); }) ==
        "exited: name: expected a boolean");
  CHECK(read_error(kMessage, [](auto& r) { r.int64("name"); }) ==
        "exited: name: expected an integer");
  CHECK(read_error(kMessage, [](auto& r) { r.int64("ratio"); }) ==
        "exited: ratio: expected an integer");
  CHECK(read_error(kMessage, [](auto& r) { r.int64("stopping"); }) ==
        "exited: stopping: expected an integer");
  CHECK(read_error(kMessage, [](auto& r) { r.strings("mixed"); }) ==
        "exited: mixed: expected an array of strings");
  CHECK(read_error(kMessage, [](auto& r) { r.strings("name"); }) ==
        "exited: name: expected an array of strings");
  CHECK(read_error(kMessage, [](auto& r) { r.object("argv"); }) ==
        "exited: argv: expected an object");
  CHECK(read_error(kMessage, [](auto& r) { r.array("status"); }) ==
        "exited: status: expected an array");
  CHECK(read_error(kMessage, [](auto& r) { r.bytes("name"); }) ==
        "exited: name: invalid base64: length 7 is not a multiple of 4");
}

TEST_CASE("integers are range-checked") {
  CHECK(read_error(kMessage, [](auto& r) { r.int64("huge"); }) ==
        "exited: huge: integer out of range");
  CHECK(read_error(kMessage, [](auto& r) { r.integer("instance", 0, 2); }) ==
        "exited: instance: expected an integer in [0, 2], got 3");
  CHECK(read_error(kMessage, [](auto& r) { r.integer("big", -100, 100); }) ==
        "exited: big: expected an integer in [-100, 100], got -9000000000");
}

TEST_CASE("a reader's own failure uses the same form") {
  CHECK(read_error(kMessage, [](auto& r) { r.fail("instance", "no such instance"); }) ==
        "exited: instance: no such instance");
}

TEST_CASE("base64 matches the RFC 4648 test vectors") {
  const std::pair<const char*, const char*> vectors[] = {{"", ""},
                                                         {"f", "Zg=="},
                                                         {"fo", "Zm8="},
                                                         {"foo", "Zm9v"},
                                                         {"foob", "Zm9vYg=="},
                                                         {"fooba", "Zm9vYmE="},
                                                         {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, encoded] : vectors) {
    CHECK(base64_encode(plain) == encoded);
    CHECK(base64_decode(encoded) == plain);
  }
}

TEST_CASE("base64 round-trips every byte value") {
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  for (std::size_t size = 0; size <= all.size(); size += 37) {
    std::string bytes = all.substr(0, size) + all.substr(256 - size % 3);
    CHECK(base64_decode(base64_encode(bytes)) == bytes);
  }
}

TEST_CASE("invalid base64 is rejected") {
  CHECK(decode_error("Zg=") == "invalid base64: length 3 is not a multiple of 4");
  CHECK(decode_error("Zm9v\n") == "invalid base64: length 5 is not a multiple of 4");
  CHECK(decode_error("Zm9-") == "invalid base64: unexpected character at offset 3");
  CHECK(decode_error("Zm8=Zm8=") == "invalid base64: unexpected character at offset 3");
  CHECK(decode_error("Z===") == "invalid base64: unexpected character at offset 1");
  CHECK(decode_error("====") == "invalid base64: unexpected character at offset 0");
  CHECK(decode_error("Zh==") == "invalid base64: non-zero padding bits");
  CHECK(decode_error("Zm9=") == "invalid base64: non-zero padding bits");
}

}  // namespace message_test
