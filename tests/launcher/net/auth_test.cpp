#include "launcher/net/auth.h"

#include <catch2/catch.hpp>
#include <string>

#include "libpai/hmac.h"

namespace auth_test {

using namespace pai::net;
using pai::hmac_sha256;
using pai::to_hex;
using nlohmann::json;

namespace {

const std::string kToken = "job-token-0123456789";
const std::string kJob = "llama-sft";

Frame decode_one(const std::string& bytes) {
  FrameDecoder decoder;
  decoder.feed(bytes.data(), bytes.size());
  Frame frame;
  REQUIRE(decoder.next(frame));
  REQUIRE(decoder.buffered() == 0);
  return frame;
}

Frame handshake_frame(FrameKind kind, const json& body, std::uint64_t seq = 0) {
  return decode_one(encode_frame(kind, seq, body.dump()));
}

std::string hex_of(char byte) { return std::string(64, byte); }

// Both sides after a complete in-memory handshake.
struct Session {
  ServerHandshake server{kToken, kJob};
  ClientHandshake client{kToken, kJob, PeerClaim{"launcher", "gpu-001"}};
  Session() {
    std::string to_client = server.on_frame(decode_one(client.hello()));
    std::string to_server = client.on_frame(decode_one(to_client));
    std::string welcome = server.on_frame(decode_one(to_server));
    REQUIRE(client.on_frame(decode_one(welcome)).empty());
    REQUIRE(server.done());
    REQUIRE(client.done());
  }
};

// What the server throws for `hello`, which must fail.
std::string hello_error(const json& hello) {
  ServerHandshake server(kToken, kJob);
  try {
    server.on_frame(handshake_frame(FrameKind::Hello, hello));
  } catch (const ProtocolError& e) {
    CHECK_FALSE(server.done());
    return e.what();
  }
  FAIL("the server accepted a bad hello");
  return {};
}

json good_hello() {
  return {{"job", kJob}, {"peer", "launcher"}, {"node", "gpu-001"}, {"nonce", hex_of('a')}};
}

std::string open_error(SecureChannel& channel, const Frame& frame) {
  try {
    channel.open(frame);
  } catch (const ProtocolError& e) {
    return e.what();
  }
  FAIL("a bad sealed frame was opened");
  return {};
}

}  // namespace

TEST_CASE("random nonces are 64 hex characters and differ") {
  std::string a = random_nonce();
  std::string b = random_nonce();
  CHECK(a.size() == 64);
  CHECK(a.find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(a != b);
}

TEST_CASE("a handshake authenticates both sides and opens a channel each way") {
  Session s;
  CHECK(s.server.claim().peer == "launcher");
  CHECK(s.server.claim().node == "gpu-001");
  json up = s.server.channel().open(decode_one(s.client.channel().seal({{"type", "join"}})));
  CHECK(up == json{{"type", "join"}});
  json down = s.client.channel().open(decode_one(s.server.channel().seal({{"type", "standby"}})));
  CHECK(down == json{{"type", "standby"}});
}

TEST_CASE("proofs and session keys are derived exactly as docs/protocol.md says") {
  ClientHandshake client(kToken, kJob, PeerClaim{"control", "laptop"});
  ServerHandshake server(kToken, kJob);
  Frame hello = decode_one(client.hello());
  std::string client_nonce = json::parse(hello.body)["nonce"];
  Frame challenge = decode_one(server.on_frame(hello));
  json body = json::parse(challenge.body);
  std::string server_nonce = body["nonce"];
  CHECK(body["proof"] == to_hex(hmac_sha256(kToken, "pai-server\n" + client_nonce + "\n" +
                                                        server_nonce + "\n" + kJob)));
  Frame auth = decode_one(client.on_frame(challenge));
  CHECK(json::parse(auth.body)["proof"] ==
        to_hex(hmac_sha256(kToken, "pai-client\n" + server_nonce + "\n" + client_nonce + "\n" +
                                       kJob + "\ncontrol\nlaptop")));
  server.on_frame(auth);
  SecureChannel c2s(hmac_sha256(kToken, "pai-c2s\n" + client_nonce + "\n" + server_nonce),
                    hmac_sha256(kToken, "pai-s2c\n" + client_nonce + "\n" + server_nonce));
  CHECK(server.channel().open(decode_one(c2s.seal({{"type", "status"}})))["type"] == "status");
  CHECK(c2s.open(decode_one(server.channel().seal({{"type", "ok"}})))["type"] == "ok");
}

TEST_CASE("the client refuses a coordinator that does not know the token") {
  ServerHandshake server("another token", kJob);
  ClientHandshake client(kToken, kJob, PeerClaim{"launcher", "gpu-001"});
  Frame challenge = decode_one(server.on_frame(decode_one(client.hello())));
  CHECK_THROWS_WITH(client.on_frame(challenge), "the coordinator does not know the job token");
  CHECK_FALSE(client.done());
}

TEST_CASE("the server refuses a client that does not know the token") {
  ServerHandshake server(kToken, kJob);
  ClientHandshake client(kToken, kJob, PeerClaim{"launcher", "gpu-001"});
  Frame hello = decode_one(client.hello());
  Frame challenge = decode_one(server.on_frame(hello));
  std::string server_nonce = json::parse(challenge.body)["nonce"];
  std::string client_nonce = json::parse(hello.body)["nonce"];
  // The right derivation over the right nonces, under the wrong token.
  std::string forged =
      to_hex(hmac_sha256("wrong token", "pai-client\n" + server_nonce + "\n" + client_nonce + "\n" +
                                            kJob + "\nlauncher\ngpu-001"));
  CHECK_THROWS_WITH(server.on_frame(handshake_frame(FrameKind::Auth, {{"proof", forged}})),
                    "authentication failed: the client does not know the job token");
  CHECK_FALSE(server.done());
}

TEST_CASE("a client proof for another claimed node is refused") {
  ServerHandshake server(kToken, kJob);
  ClientHandshake honest(kToken, kJob, PeerClaim{"launcher", "gpu-002"});
  // The hello claims gpu-001, but the proof was made for gpu-002.
  Frame hello = decode_one(honest.hello());
  json claim = json::parse(hello.body);
  claim["node"] = "gpu-001";
  Frame challenge = decode_one(server.on_frame(handshake_frame(FrameKind::Hello, claim)));
  Frame auth = decode_one(honest.on_frame(challenge));
  CHECK_THROWS_WITH(server.on_frame(auth),
                    "authentication failed: the client does not know the job token");
}

TEST_CASE("a hello for another job is refused") {
  json hello = good_hello();
  hello["job"] = "other-job";
  CHECK(hello_error(hello) ==
        "hello: job \"other-job\" is not this coordinator's job \"llama-sft\"");
}

TEST_CASE("hello fields are validated") {
  json hello = good_hello();
  hello["peer"] = "admin";
  CHECK(hello_error(hello) == "hello: peer: expected \"launcher\" or \"control\", got \"admin\"");

  hello = good_hello();
  hello["node"] = "";
  CHECK(hello_error(hello) == "hello: node: expected 1 to 255 visible ASCII characters, got \"\"");
  hello["node"] = "gpu 001";
  CHECK(hello_error(hello) ==
        "hello: node: expected 1 to 255 visible ASCII characters, got \"gpu 001\"");
  hello["node"] = "gpu\n001";
  CHECK(hello_error(hello) ==
        "hello: node: expected 1 to 255 visible ASCII characters, got \"gpu\\n001\"");
  hello["node"] = std::string(256, 'n');
  CHECK(hello_error(hello) == "hello: node: expected 1 to 255 visible ASCII characters, got \"" +
                                  std::string(64, 'n') + "\"...");
  hello["node"] = std::string(255, 'n');
  ServerHandshake server(kToken, kJob);
  CHECK_FALSE(server.on_frame(handshake_frame(FrameKind::Hello, hello)).empty());
  CHECK(server.claim().node == std::string(255, 'n'));

  hello = good_hello();
  hello["nonce"] = std::string(63, 'a');
  CHECK(hello_error(hello) == "hello: nonce: expected 64 hexadecimal characters");
  hello["nonce"] = std::string(63, 'a') + "g";
  CHECK(hello_error(hello) == "hello: nonce: expected 64 hexadecimal characters");
  hello["nonce"] = 12;
  CHECK(hello_error(hello) == "hello: nonce: expected a string");

  hello = good_hello();
  hello.erase("job");
  CHECK(hello_error(hello) == "hello: job: missing");
  CHECK(hello_error(json::array()) == "hello: expected a JSON object");

  ServerHandshake bad_json(kToken, kJob);
  CHECK_THROWS_WITH(bad_json.on_frame(decode_one(encode_frame(FrameKind::Hello, 0, "{\"job\""))),
                    Catch::Matchers::StartsWith("hello: invalid JSON: "));
}

TEST_CASE("a hello says when its process started, optionally") {
  ClientHandshake client(kToken, kJob, PeerClaim{"launcher", "node-1"});
  const Frame frame = decode_one(client.hello());
  const Hello hello = parse_hello(frame, kJob);
  CHECK(hello.started_unix_ms == process_started_unix_ms());
  CHECK(hello.started_unix_ms > 1'700'000'000'000);
  // Launchers before it do not send it.
  CHECK(parse_hello(handshake_frame(FrameKind::Hello, good_hello()), kJob).started_unix_ms == 0);
  json bad = good_hello();
  bad["started"] = -5;
  CHECK(hello_error(bad) == "hello: started: expected ms since 1970, got \"-5\"");
  bad["started"] = "soon";
  CHECK_THAT(hello_error(bad),
             Catch::Matchers::StartsWith("hello: started: expected ms since 1970, got "));
}

TEST_CASE("the server rejects handshake frames out of order") {
  ServerHandshake first_auth(kToken, kJob);
  CHECK_THROWS_WITH(first_auth.on_frame(handshake_frame(FrameKind::Auth, {{"proof", hex_of('0')}})),
                    "unexpected auth frame to start the handshake (expected hello)");

  ServerHandshake sealed_first(kToken, kJob);
  CHECK_THROWS_WITH(sealed_first.on_frame(decode_one(
                        encode_frame(FrameKind::Sealed, 1, "{}", std::string(kMacSize, 'm')))),
                    "unexpected sealed frame to start the handshake (expected hello)");

  ServerHandshake twice(kToken, kJob);
  twice.on_frame(handshake_frame(FrameKind::Hello, good_hello()));
  CHECK_THROWS_WITH(twice.on_frame(handshake_frame(FrameKind::Hello, good_hello())),
                    "unexpected hello frame after the challenge (expected auth)");

  ServerHandshake numbered(kToken, kJob);
  CHECK_THROWS_WITH(numbered.on_frame(handshake_frame(FrameKind::Hello, good_hello(), 1)),
                    "hello: sequence number 1, expected 0");

  Session s;
  CHECK_THROWS_WITH(s.server.on_frame(handshake_frame(FrameKind::Hello, good_hello())),
                    "unexpected hello frame after the handshake");
}

TEST_CASE("the client rejects handshake frames out of order") {
  ClientHandshake before_hello(kToken, kJob, PeerClaim{"launcher", "gpu-001"});
  CHECK_THROWS_WITH(before_hello.on_frame(handshake_frame(FrameKind::Welcome, json::object())),
                    "unexpected welcome frame before hello was sent");

  ClientHandshake early_welcome(kToken, kJob, PeerClaim{"launcher", "gpu-001"});
  early_welcome.hello();
  CHECK_THROWS_WITH(early_welcome.on_frame(handshake_frame(FrameKind::Welcome, json::object())),
                    "unexpected welcome frame after hello (expected challenge)");
  CHECK_FALSE(early_welcome.done());

  ServerHandshake server(kToken, kJob);
  ClientHandshake client(kToken, kJob, PeerClaim{"launcher", "gpu-001"});
  Frame challenge = decode_one(server.on_frame(decode_one(client.hello())));
  client.on_frame(challenge);
  CHECK_THROWS_WITH(client.on_frame(challenge),
                    "unexpected challenge frame after auth (expected welcome)");
  CHECK_FALSE(client.done());

  Session s;
  CHECK_THROWS_WITH(s.client.on_frame(handshake_frame(FrameKind::Welcome, json::object())),
                    "unexpected welcome frame after the handshake");
  CHECK_THROWS(s.client.hello());
}

TEST_CASE("a reject frame ends the client's handshake with its reason") {
  ClientHandshake client(kToken, kJob, PeerClaim{"launcher", "gpu-001"});
  client.hello();
  CHECK_THROWS_WITH(client.on_frame(decode_one(ServerHandshake::reject("too many connections"))),
                    "rejected by the coordinator: too many connections");
  CHECK_FALSE(client.done());
}

TEST_CASE("a sealed frame opens once: replay and reordering and loss fail") {
  Session s;
  Frame first = decode_one(s.client.channel().seal({{"type", "a"}}));
  Frame second = decode_one(s.client.channel().seal({{"type", "b"}}));
  Frame third = decode_one(s.client.channel().seal({{"type", "c"}}));
  CHECK(first.seq == 1);
  CHECK(second.seq == 2);
  SecureChannel& server = s.server.channel();
  CHECK(open_error(server, second) ==
        "sealed frame with sequence number 2, expected 1 (replayed, reordered or lost frame)");
  CHECK(server.open(first)["type"] == "a");
  CHECK(open_error(server, first) ==
        "sealed frame with sequence number 1, expected 2 (replayed, reordered or lost frame)");
  CHECK(open_error(server, third) ==
        "sealed frame with sequence number 3, expected 2 (replayed, reordered or lost frame)");
  CHECK(server.open(second)["type"] == "b");
}

TEST_CASE("a sealed frame from another session or direction fails its MAC") {
  Session a;
  Session b;
  Frame from_b = decode_one(b.client.channel().seal({{"type", "join"}}));
  CHECK(open_error(a.server.channel(), from_b) ==
        "sealed frame 1: MAC does not verify (altered or from another connection)");
  // The server's own frame reflected back: the directions have different keys.
  Frame reflected = decode_one(a.server.channel().seal({{"type", "join"}}));
  CHECK(open_error(a.server.channel(), reflected) ==
        "sealed frame 1: MAC does not verify (altered or from another connection)");
}

TEST_CASE("a flipped bit in the MAC or the body fails the MAC") {
  Session s;
  std::string bytes = s.client.channel().seal({{"type", "heartbeat"}});
  for (std::size_t at : {kFrameHeaderSize + 3, bytes.size() - 1}) {
    std::string altered = bytes;
    altered[at] = static_cast<char>(altered[at] ^ 0x01);
    CHECK(open_error(s.server.channel(), decode_one(altered)) ==
          "sealed frame 1: MAC does not verify (altered or from another connection)");
  }
  CHECK(s.server.channel().open(decode_one(bytes))["type"] == "heartbeat");
}

TEST_CASE("a frame with a forged sequence number fails") {
  SecureChannel sender("key-a", "key-b");
  SecureChannel receiver("key-b", "key-a");
  std::string bytes = sender.seal({{"type", "heartbeat"}});
  std::string altered = bytes;
  altered[15] = 2;  // sequence number 1 -> 2: the MAC no longer matches the header
  CHECK(open_error(receiver, decode_one(altered)) ==
        "sealed frame with sequence number 2, expected 1 (replayed, reordered or lost frame)");
  CHECK(receiver.open(decode_one(bytes))["type"] == "heartbeat");
  CHECK(open_error(receiver, decode_one(altered)) ==
        "sealed frame 2: MAC does not verify (altered or from another connection)");
}

TEST_CASE("an authentic sealed frame must carry an object with a string type") {
  SecureChannel receiver("key-b", "key-a");
  // Frames MAC'd with the right key around bodies that seal() would never produce.
  std::uint64_t seq = 0;
  auto sealed = [&](const std::string& body) {
    std::string frame = header_and_body(FrameKind::Sealed, ++seq, body);
    return decode_one(frame + hmac_sha256("key-a", frame));
  };
  CHECK(open_error(receiver, sealed("[1]")) ==
        "message 1: expected a JSON object with a string \"type\"");
  CHECK(open_error(receiver, sealed("{\"type\":3}")) ==
        "message 2: expected a JSON object with a string \"type\"");
  CHECK_THROWS_WITH(receiver.open(sealed("{\"type\":")),
                    Catch::Matchers::StartsWith("message 3: invalid JSON: "));
  CHECK(receiver.open(sealed("{\"type\":\"ok\",\"n\":1}")) == json{{"type", "ok"}, {"n", 1}});
  Frame not_sealed = handshake_frame(FrameKind::Welcome, json::object());
  CHECK(open_error(receiver, not_sealed) == "unexpected welcome frame after the handshake");
}

}  // namespace auth_test
