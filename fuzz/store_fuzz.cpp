// libFuzzer harness over the ranks' store (launcher/store/): bytes from any client that can
// reach MASTER_PORT go through parse_request, fed in pieces as a socket delivers them, and
// every request read through a bounded KeyValueStore on behalf of two clients. What breaks the
// protocol or a limit is a StoreProtocolError or a StoreRequestError, never a crash, a hang or
// a store past its bound; a request that parses must encode back to the bytes it came from.
//
// Input layout: byte 0 picks the read size (1..256 bytes per feed); byte 1 whether the
// connection starts as a newer (validated) client; the rest is the byte stream.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "launcher/store/key_value_store.h"
#include "launcher/store/store_protocol.h"

using namespace pai::launcher::store;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const std::size_t feed = static_cast<std::size_t>(data[0]) + 1;
  std::string stream(reinterpret_cast<const char*>(data + 2), size - 2);
  if ((data[1] & 1) != 0)
    stream = encode_request(Request{.op = Op::Validate}, Dialect::Validated) + stream;
  constexpr std::size_t kMaxBytes = 1 << 16;
  const StoreLimits limits{.max_key_bytes = 256, .max_value_bytes = 4096, .max_keys = 64};
  KeyValueStore store(kMaxBytes);
  Dialect dialect = Dialect::Unknown;
  std::string input;
  std::vector<Outgoing> out;
  for (std::size_t at = 0; at < stream.size(); at += feed) {
    input.append(stream, at, feed);
    try {
      for (;;) {
        auto request = parse_request(input, dialect, limits);
        if (!request) break;
        if (request->second == 0 || request->second > input.size()) __builtin_trap();
        const std::string back = encode_request(request->first, dialect);
        if (std::string_view(input).substr(0, request->second) != back) __builtin_trap();
        input.erase(0, request->second);
        try {
          store.apply(at % 2, request->first, out);
        } catch (const StoreRequestError&) {
        }
        if (store.bytes() > kMaxBytes) __builtin_trap();
        out.clear();
      }
    } catch (const StoreProtocolError&) {
      return 0;
    }
  }
  return 0;
}
