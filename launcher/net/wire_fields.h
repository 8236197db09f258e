// The wire's field options: what the message tables of node_messages.h,
// coordinator_messages.h and control_messages.h may say of a field beyond its name (its
// bound, its encoding), and the bounds and types they share. Options are plain values:
// protocol_parse.cpp checks them and words the errors ("<type>: <field>: <what>");
// protocol.cpp encodes by them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>

#include "libpai/enum_names.h"
#include "libpai/fields.h"

namespace pai::net {

/// Which output stream of a remote command bytes come from ("stdout" or "stderr").
enum class Stream { Stdout, Stderr };

/// "stdout" or "stderr".
const char* to_string(Stream stream);

}  // namespace pai::net

namespace pai {
/// Spelling of net::Stream on the wire.
template <>
struct EnumNames<net::Stream> {
  static constexpr std::array<EnumName<net::Stream>, 2> table{
      {{net::Stream::Stdout, "stdout"}, {net::Stream::Stderr, "stderr"}}};
};
}  // namespace pai

namespace pai::net {

/// INT_MAX, the top of most ranges.
inline constexpr int kIntMax = std::numeric_limits<int>::max();
/// The bound of instance and rank numbers where no plan bounds them (start, stop, kill, and
/// what a control client prints).
inline constexpr int kAnyInstance = 1 << 30;
/// The largest attempt number a message may carry.
inline constexpr int kMaxAttempt = 1 << 20;
/// The largest exit code a control client accepts from `exec-exit`.
inline constexpr int kMaxClientCode = 1 << 20;

/// An int in [min, max]: "expected an integer in [min, max], got N". An int member without
/// a range (or InstanceNumber, RankNumber) is in [INT_MIN, INT_MAX].
struct Range {
  int min;
  int max;
};
/// An instance number of the receiver's plan: [0, instances - 1] (kAnyInstance where the
/// receiver has no plan: a control client).
struct InstanceNumber {};
/// A global rank: [0, INT_MAX] (kAnyInstance for a control client).
struct RankNumber {};
/// An int64 >= 0: "expected a non-negative integer".
struct NonNegative {};
/// An int64 >= -1, -1 meaning none: "expected -1 or a non-negative integer".
struct NoneOrMore {};
/// An int64 in [0, max]: NonNegative, then "expected at most MAX".
struct UpTo {
  std::int64_t max;
};
/// A string of `min` to `max` bytes: "expected MIN to MAX bytes".
struct ByteLength {
  std::size_t min;
  std::size_t max;
};
/// A numeric IPv4 or IPv6 address, or "" where `empty_ok`.
struct NumericAddress {
  bool empty_ok = false;
};
/// A list of at most kMaxTcpSlowPeers numeric IPv4 or IPv6 addresses.
struct PeerAddresses {};
/// A plan seal ("hmac-sha256:" or "sha256:" and 64 lowercase hex digits, libpai/plan_seal.h):
/// it is quoted in the coordinator's refusal and journal, so only that form gets there.
struct SealForm {};
/// Raw bytes, base64 on the wire (canonical encodings only).
struct Base64 {};
inline constexpr Base64 base64{};
/// Exactly `size` bytes (of a Base64 member): "expected SIZE bytes, got N".
struct ExactBytes {
  std::size_t size;
};
/// JSON array text (compact once parsed), an array on the wire.
struct JsonArrayText {};
/// [first, last]: an array of exactly two integers ("expected [first, last]").
struct FirstLast {};
/// A list of at most `max` objects, checked before its items: "more than MAX <what>".
struct MaxItems {
  std::size_t max;
  const char* what;
};
/// The status reply's items: named "<type>: <key>[k]" (not "<type>.<key>[k]"), and one that
/// is not an object is "<type>: <key>[k]: expected an object".
struct NamedItems {};
/// `assign`'s hosts, read by parse_host_changes (one error for any malformed entry).
struct HostChanges {};
/// The NCCL engine's fields of fabric-listen and fabric-connect (FabricNccl), flat beside the
/// others: ncclRanks, ncclFirstRank and, for the connector (`with_id`), ncclId.
struct NcclFields {
  bool with_id;
};

/// "" when `value` is one of `words`, else the protocol's error text:
/// expected "a", "b" or "c", got "value".
std::string not_one_of(const std::string& value, std::initializer_list<const char*> words);
/// "" when `value` has at most `max` bytes, else "longer than MAX bytes".
std::string longer_than(const std::string& value, std::size_t max);

}  // namespace pai::net
