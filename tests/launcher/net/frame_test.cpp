#include "launcher/net/frame.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace frame_test {

using namespace pai::net;

namespace {

// A raw 16-byte header with every field under the test's control.
std::string raw_header(std::uint32_t length, std::uint8_t version, std::uint8_t kind,
                       std::uint16_t reserved = 0, std::uint64_t seq = 0) {
  std::string out;
  for (int i = 3; i >= 0; --i) out.push_back(static_cast<char>(length >> (8 * i)));
  out.push_back(static_cast<char>(version));
  out.push_back(static_cast<char>(kind));
  out.push_back(static_cast<char>(reserved >> 8));
  out.push_back(static_cast<char>(reserved));
  for (int i = 7; i >= 0; --i) out.push_back(static_cast<char>(seq >> (8 * i)));
  return out;
}

std::string decode_error(const std::string& bytes) {
  FrameDecoder decoder;
  decoder.feed(bytes.data(), bytes.size());
  Frame frame;
  try {
    decoder.next(frame);
  } catch (const ProtocolError& e) {
    return e.what();
  }
  FAIL("no ProtocolError for a bad frame");
  return {};
}

}  // namespace

TEST_CASE(
    "a frame header is big-endian length then version then kind then reserved then sequence") {
  std::string bytes = encode_frame(FrameKind::Challenge, 0x0102030405060708ULL, "{}");
  REQUIRE(bytes.size() == kFrameHeaderSize + 2);
  CHECK(bytes.substr(0, 16) == raw_header(2, 1, 2, 0, 0x0102030405060708ULL));
  CHECK(bytes.substr(16) == "{}");
}

TEST_CASE("every frame kind survives an encode/decode round trip") {
  for (FrameKind kind : {FrameKind::Hello, FrameKind::Challenge, FrameKind::Auth,
                         FrameKind::Welcome, FrameKind::Reject}) {
    std::string bytes = encode_frame(kind, 7, "{\"a\":1}");
    FrameDecoder decoder;
    decoder.feed(bytes.data(), bytes.size());
    Frame frame;
    REQUIRE(decoder.next(frame));
    CHECK(frame.kind == kind);
    CHECK(frame.seq == 7);
    CHECK(frame.body == "{\"a\":1}");
    CHECK(frame.mac.empty());
    CHECK(frame.signed_bytes == bytes);
    CHECK(decoder.buffered() == 0);
    CHECK_FALSE(decoder.next(frame));
  }
}

TEST_CASE("a sealed frame carries its MAC after the body outside the signed bytes") {
  std::string mac(kMacSize, '\x5a');
  std::string bytes = encode_frame(FrameKind::Sealed, 3, "{}", mac);
  CHECK(bytes == header_and_body(FrameKind::Sealed, 3, "{}") + mac);
  FrameDecoder decoder;
  decoder.feed(bytes.data(), bytes.size());
  Frame frame;
  REQUIRE(decoder.next(frame));
  CHECK(frame.kind == FrameKind::Sealed);
  CHECK(frame.mac == mac);
  CHECK(frame.signed_bytes == header_and_body(FrameKind::Sealed, 3, "{}"));
}

TEST_CASE("an empty body and a body of exactly the cap are accepted") {
  std::string big(kMaxFrameBody, 'x');
  std::string bytes =
      encode_frame(FrameKind::Hello, 0, "") + encode_frame(FrameKind::Hello, 0, big);
  FrameDecoder decoder;
  decoder.feed(bytes.data(), bytes.size());
  Frame frame;
  REQUIRE(decoder.next(frame));
  CHECK(frame.body.empty());
  REQUIRE(decoder.next(frame));
  CHECK(frame.body.size() == kMaxFrameBody);
}

TEST_CASE("frames fed one byte at a time come out whole and in order") {
  std::string stream = encode_frame(FrameKind::Hello, 0, "first") +
                       encode_frame(FrameKind::Sealed, 1, "second", std::string(kMacSize, 'm'));
  FrameDecoder decoder;
  Frame frame;
  std::vector<std::string> bodies;
  for (std::size_t i = 0; i < stream.size(); ++i) {
    decoder.feed(stream.data() + i, 1);
    while (decoder.next(frame)) bodies.push_back(frame.body);
  }
  CHECK(bodies == std::vector<std::string>{"first", "second"});
  CHECK(decoder.buffered() == 0);
}

TEST_CASE("a long stream in odd-sized chunks decodes every frame") {
  std::string stream;
  for (int i = 0; i < 5000; ++i) stream += encode_frame(FrameKind::Hello, i, std::to_string(i));
  FrameDecoder decoder;
  Frame frame;
  std::uint64_t expected = 0;
  for (std::size_t at = 0; at < stream.size(); at += 997) {
    std::size_t size = std::min<std::size_t>(997, stream.size() - at);
    decoder.feed(stream.data() + at, size);
    while (decoder.next(frame)) {
      REQUIRE(frame.seq == expected);
      REQUIRE(frame.body == std::to_string(expected));
      ++expected;
    }
  }
  CHECK(expected == 5000);
  CHECK(decoder.buffered() == 0);
}

TEST_CASE("a truncated frame stays buffered") {
  std::string bytes = encode_frame(FrameKind::Welcome, 0, "{}");
  FrameDecoder decoder;
  decoder.feed(bytes.data(), bytes.size() - 1);
  Frame frame;
  CHECK_FALSE(decoder.next(frame));
  CHECK(decoder.buffered() == bytes.size() - 1);

  std::string sealed = encode_frame(FrameKind::Sealed, 1, "{}", std::string(kMacSize, 'm'));
  FrameDecoder without_mac;
  without_mac.feed(sealed.data(), sealed.size() - kMacSize);
  CHECK_FALSE(without_mac.next(frame));
  CHECK(without_mac.buffered() == sealed.size() - kMacSize);
}

TEST_CASE("an oversized length is rejected from the header alone") {
  CHECK(decode_error(raw_header(kMaxFrameBody + 1, 1, 1)) ==
        "frame body of 1048577 bytes is over the limit of 1048576");
  CHECK(decode_error(raw_header(0xffffffff, 1, 16)) ==
        "frame body of 4294967295 bytes is over the limit of 1048576");
}

TEST_CASE("a header announcing the cap waits for the body instead of failing") {
  std::string header = raw_header(kMaxFrameBody, 1, 1);
  FrameDecoder decoder;
  decoder.feed(header.data(), header.size());
  Frame frame;
  CHECK_FALSE(decoder.next(frame));
  CHECK(decoder.buffered() == kFrameHeaderSize);
}

TEST_CASE("a wrong protocol version is rejected") {
  CHECK(decode_error(raw_header(2, 2, 1) + "{}") == "unsupported protocol version 2 (expected 1)");
  CHECK(decode_error(raw_header(2, 0, 1) + "{}") == "unsupported protocol version 0 (expected 1)");
}

TEST_CASE("an unknown frame kind is rejected") {
  for (int kind : {0, 6, 15, 17, 255}) {
    CHECK(decode_error(raw_header(2, 1, static_cast<std::uint8_t>(kind)) + "{}") ==
          "unknown frame kind " + std::to_string(kind));
  }
}

TEST_CASE("a non-zero reserved field is rejected") {
  CHECK(decode_error(raw_header(2, 1, 1, 1) + "{}") == "reserved frame field is not 0");
  CHECK(decode_error(raw_header(2, 1, 1, 0x8000) + "{}") == "reserved frame field is not 0");
}

TEST_CASE("a bad header is rejected before its body arrives") {
  // Only the 16 header bytes: the error must not wait for the announced body.
  CHECK(decode_error(raw_header(100, 9, 1)) == "unsupported protocol version 9 (expected 1)");
}

TEST_CASE("encoding refuses a wrong MAC size and an oversized body") {
  CHECK_THROWS_WITH(encode_frame(FrameKind::Sealed, 1, "{}"), "frame MAC of 0 bytes, expected 32");
  CHECK_THROWS_WITH(encode_frame(FrameKind::Hello, 0, "{}", "mac"),
                    "frame MAC of 3 bytes, expected 0");
  CHECK_THROWS_WITH(header_and_body(FrameKind::Sealed, 1, std::string(kMaxFrameBody + 1, 'x')),
                    "frame body of 1048577 bytes is over the limit of 1048576");
}

}  // namespace frame_test
