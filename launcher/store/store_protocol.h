// The wire of torch.distributed's TCPStore, as its clients speak it (issue 39, "no store wait"):
// the launcher next to rank 0 serves the job's store, so ranks never wait for rank 0's own
// (docs/launch.md "The ranks' store"). Pure: bytes in, requests out; replies as bytes.
//
// A request is a query type (one byte) and its arguments, integers in the host's byte order
// (little-endian on every platform torch ships for): a string or a value is its length (u64)
// and its bytes, a list of keys is its count (u64) and the keys. Two dialects:
//
//   legacy     torch 1.x (Debian 12's 1.13, checked byte for byte against its client): SET 0,
//              COMPARE_SET 1, GET 2, ADD 3, CHECK 4, WAIT 5, GETNUMKEYS 6, (WATCH_KEY 7, not
//              served), DELETE_KEY 8.
//   validated  newer torch, whose client opens every connection with VALIDATE (0) and the
//              magic number 0x3C85F7CE: SET 1, COMPARE_SET 2, GET 3, ADD 4, CHECK 5, WAIT 6,
//              GETNUMKEYS 7, DELETE_KEY 8, APPEND 9, MULTI_GET 10, MULTI_SET 11, CANCEL_WAIT 12,
//              PING 13 (a u32 echoed back). Written from torch's TCPStoreBackend.hpp; no such
//              client is installable here, so it is tested against byte-level fakes only.
//
// A connection's first request decides its dialect. Anything else — an unknown query type, a
// length over the limits, torch 2.x's short-lived per-query magic prefix — is a
// StoreProtocolError naming what was read: the server closes that connection and says why.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace pai::launcher::store {

/// The number a validated client sends after VALIDATE.
inline constexpr std::uint32_t kValidationMagic = 0x3C85F7CE;

enum class Dialect { Unknown, Legacy, Validated };

enum class Op {
  Validate,
  Set,
  CompareSet,
  Get,
  Add,
  Check,
  Wait,
  NumKeys,
  DeleteKey,
  Append,
  MultiGet,
  MultiSet,
  CancelWait,
  Ping,
};

/// "SET", "COMPARE_SET", ... as torch names them.
const char* op_name(Op op);

/// One request. `keys` and `values` by op: SET, APPEND key + value; COMPARE_SET key + expected
/// and desired; GET, DELETE_KEY one key; ADD one key and `number`; CHECK, WAIT, MULTI_GET keys;
/// MULTI_SET keys and their values; PING `number` (the u32 to echo); VALIDATE, NUMKEYS,
/// CANCEL_WAIT nothing.
struct Request {
  Op op = Op::Set;
  std::vector<std::string> keys = {};
  std::vector<std::string> values = {};
  std::int64_t number = 0;
};

/// What one connection may send.
struct StoreLimits {
  std::size_t max_key_bytes = 64 * 1024;
  std::size_t max_value_bytes = 64 * 1024 * 1024;
  std::size_t max_keys = 1 << 20;  ///< per CHECK, WAIT, MULTI_GET, MULTI_SET
};

class StoreProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Parses one request from the front of `bytes`. Returns the request and how many bytes it
/// took, or nullopt when `bytes` holds only part of one (read more and call again). On the
/// first request of a connection `dialect` is Unknown and is set from it. Throws
/// StoreProtocolError for bytes no client of either dialect sends, or over `limits`.
std::optional<std::pair<Request, std::size_t>> parse_request(std::string_view bytes,
                                                             Dialect& dialect,
                                                             const StoreLimits& limits);

/// A reply's parts, as the client reads them: a value (u64 length + bytes), an i64, a u8 (CHECK's
/// READY 0 / NOT_READY 1, WAIT's STOP_WAITING 0 / WAIT_CANCELED 1), a u32 (PING).
void append_value(std::string& out, std::string_view value);
void append_i64(std::string& out, std::int64_t number);
void append_u8(std::string& out, std::uint8_t number);
void append_u32(std::string& out, std::uint32_t number);

/// A request's bytes in `dialect` (Validated: without the VALIDATE that opens the connection):
/// what a client sends, for tests and the benchmark's client.
std::string encode_request(const Request& request, Dialect dialect);

}  // namespace pai::launcher::store
