#include <arpa/inet.h>
#include <netinet/in.h>

#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <type_traits>
#include <utility>

#include "launcher/net/message.h"
#include "launcher/net/protocol.h"
#include "libpai/plan_seal.h"

// Parsing (protocol.h's parse_*): every message read strictly, field by field in the order its
// table (node_messages.h, coordinator_messages.h, control_messages.h) lists them, through
// MessageReader; the variant's alternative is the one whose kType is the message's type.
// Writing is in protocol.cpp.

namespace pai::net {
namespace {

using Json = nlohmann::json;

constexpr int kIntMin = std::numeric_limits<int>::min();

// Bounds that differ between the directions sharing a message (`log`) or that only the
// reader's plan knows.
struct Limits {
  int max_instance = kAnyInstance;
  int max_rank = kIntMax;
};

template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};

// The error for a word that is none of `words`: expected "a", "b" or "c", got "value".
template <class Words>
std::string expected_one_of(const Words& words, const std::string& value) {
  std::string list;
  std::size_t i = 0;
  for (const char* word : words) {
    if (i > 0) list += i + 1 == words.size() ? " or " : ", ";
    list += std::string("\"") + word + "\"";
    ++i;
  }
  return "expected " + list + ", got \"" + value + "\"";
}

bool numeric_address(const std::string& text) {
  unsigned char buffer[sizeof(in6_addr)];
  return ::inet_pton(AF_INET, text.c_str(), buffer) == 1 ||
         ::inet_pton(AF_INET6, text.c_str(), buffer) == 1;
}

// A visitor of the tables (libpai/fields.h) that reads the members of one object: the message
// or, named "<type>.<key>" or "<type>.<key>[k]", an object inside it.
class Reader {
 public:
  Reader(const MessageReader& m, const Limits& limits) : m_(m), limits_(limits) {}

  template <class T, class... Options>
  void operator()(const char* key, T& member, const Options&... options) {
    if constexpr (field::may_be_absent<Options...> || IsOptional<T>::value) {
      if (!m_.has(key)) return;
    }
    if constexpr (IsOptional<T>::value) {
      member.emplace();
      read(key, *member, options...);
    } else {
      read(key, member, options...);
    }
  }

  // The NCCL engine's fields of fabric-listen (`with_id` false) or fabric-connect: absent
  // together, or ranks 2.., a first rank among them, and for the connector the id.
  void operator()(const char*, std::optional<FabricNccl>& nccl, const NcclFields& options) {
    if (!m_.has("ncclRanks")) {
      if (m_.has("ncclFirstRank") || m_.has("ncclId")) m_.fail("ncclRanks", "missing");
      return;
    }
    FabricNccl& out = nccl.emplace();
    out.ranks = m_.integer("ncclRanks", 2, kMaxFabricNcclRanks);
    out.first_rank = m_.integer("ncclFirstRank", 0, out.ranks - 1);
    if (options.with_id) {
      read("ncclId", out.unique_id, base64, ExactBytes{kNcclUniqueIdBytes});
    } else if (m_.has("ncclId")) {
      m_.fail("ncclId", "the listening end makes the id");
    }
  }

  template <class Problem>
  void check(const char* key, const Problem& problem) {
    const std::string text = problem();
    if (!text.empty()) m_.fail(key, text);
  }

  template <class Fn>
  void read_if(bool condition, const Fn& fn) {
    if (condition) fn(*this);
  }

 private:
  template <class... Options>
  void read(const char* key, int& member, const Options&... options) {
    Range range{kIntMin, kIntMax};
    (narrow(range, options), ...);
    member = m_.integer(key, range.min, range.max);
  }

  template <class... Options>
  void read(const char* key, std::int64_t& member, const Options&... options) {
    member = m_.int64(key);
    (bound(key, member, options), ...);
  }

  template <class... Options>
  void read(const char* key, bool& member, const Options&...) {
    static_assert(field::OptionsAmong<>::all<Options...>);
    member = m_.boolean(key);
  }

  template <class... Options>
  void read(const char* key, std::string& member, const Options&... options) {
    if constexpr (field::has<Base64, Options...>) {
      member = m_.bytes(key);
    } else if constexpr (field::has<JsonArrayText, Options...>) {
      member = m_.array(key).dump();
    } else {
      member = m_.string(key);
    }
    (bound(key, member, options), ...);
  }

  template <class... Options>
  void read(const char* key, std::vector<std::string>& member, const Options&... options) {
    member = m_.strings(key);
    (bound(key, member, options), ...);
  }

  void read(const char* key, std::vector<std::int64_t>& member, const FirstLast&) {
    const Json& span = m_.array(key);
    if (span.size() != 2 || !span[0].is_number_integer() || !span[1].is_number_integer()) {
      m_.fail(key, "expected [first, last]");
    }
    member = {span[0].get<std::int64_t>(), span[1].get<std::int64_t>()};
  }

  void read(const char* key, std::vector<HostChange>& member, const HostChanges&) {
    member = parse_host_changes(m_.array(key));
  }

  template <NamedEnum Enum, class... Options>
  void read(const char* key, Enum& member, const Options&...) {
    static_assert(field::OptionsAmong<>::all<Options...>);
    const std::string text = m_.string(key);
    std::optional<Enum> value = enum_from_string<Enum>(text);
    if (!value) {
      std::vector<const char*> words;
      for (const auto& entry : EnumNames<Enum>::table) words.push_back(entry.name);
      m_.fail(key, expected_one_of(words, text));
    }
    member = *value;
  }

  template <HasFields T, class... Options>
  void read(const char* key, T& member, const Options&...) {
    static_assert(field::OptionsAmong<>::all<Options...>);
    const MessageReader nested(m_.object(key), m_.type() + "." + key);
    Reader reader(nested, limits_);
    fields(reader, member);
  }

  template <HasFields T, class... Options>
  void read(const char* key, std::vector<T>& member, const Options&... options) {
    static_assert(field::OptionsAmong<MaxItems, NamedItems>::all<Options...>);
    const Json& list = m_.array(key);
    if constexpr (field::has<MaxItems, Options...>) {
      const MaxItems& most = field::get<MaxItems>(options...);
      if (list.size() > most.max) {
        m_.fail(key, "more than " + std::to_string(most.max) + " " + most.what);
      }
    }
    for (std::size_t k = 0; k < list.size(); ++k) {
      std::string name;
      if constexpr (field::has<NamedItems, Options...>) {
        name = m_.type() + ": " + key + "[" + std::to_string(k) + "]";
        if (!list[k].is_object()) throw ProtocolError(name + ": expected an object");
      } else {
        if (!list[k].is_object()) m_.fail(key, "expected an array of objects");
        name = m_.type() + "." + key + "[" + std::to_string(k) + "]";
      }
      const MessageReader item(list[k], std::move(name));
      Reader reader(item, limits_);
      fields(reader, member.emplace_back());
    }
  }

  // The int range an option sets.
  void narrow(Range& range, const Range& option) const { range = option; }
  void narrow(Range& range, const InstanceNumber&) const { range = {0, limits_.max_instance}; }
  void narrow(Range& range, const RankNumber&) const { range = {0, limits_.max_rank}; }
  void narrow(Range&, const field::PresentIf&) const {}

  void bound(const char* key, std::int64_t value, const NonNegative&) const {
    if (value < 0) m_.fail(key, "expected a non-negative integer");
  }
  void bound(const char* key, std::int64_t value, const NoneOrMore&) const {
    if (value < -1) m_.fail(key, "expected -1 or a non-negative integer");
  }
  void bound(const char* key, std::int64_t value, const UpTo& most) const {
    bound(key, value, NonNegative{});
    if (value > most.max) m_.fail(key, "expected at most " + std::to_string(most.max));
  }
  void bound(const char* key, const std::string& value, const ByteLength& length) const {
    if (value.size() < length.min || value.size() > length.max) {
      m_.fail(key, "expected " + std::to_string(length.min) + " to " + std::to_string(length.max) +
                       " bytes");
    }
  }
  void bound(const char* key, const std::string& value, const ExactBytes& exact) const {
    if (value.size() != exact.size) {
      m_.fail(key, "expected " + std::to_string(exact.size) + " bytes, got " +
                       std::to_string(value.size()));
    }
  }
  void bound(const char* key, const std::string& value, const NumericAddress& address) const {
    if (value.empty() && address.empty_ok) return;
    if (!numeric_address(value)) m_.fail(key, "expected a numeric IPv4 or IPv6 address");
  }
  void bound(const char* key, const std::string& value, const SealForm&) const {
    if (!is_seal(value)) {
      m_.fail(key, "expected \"hmac-sha256:\" or \"sha256:\" and 64 lowercase hexadecimal digits");
    }
  }
  void bound(const char* key, const std::vector<std::string>& peers, const PeerAddresses&) const {
    if (peers.size() > kMaxTcpSlowPeers) {
      m_.fail(key, "expected at most " + std::to_string(kMaxTcpSlowPeers) + " addresses");
    }
    for (const std::string& peer : peers) {
      if (!numeric_address(peer)) m_.fail(key, "expected numeric IPv4 or IPv6 addresses");
    }
  }
  // Options that choose the encoding or presence, read above.
  template <class T>
  void bound(const char*, const T&, const field::PresentIf&) const {}
  template <class T>
  void bound(const char*, const T&, const Base64&) const {}
  template <class T>
  void bound(const char*, const T&, const JsonArrayText&) const {}

  const MessageReader& m_;
  const Limits& limits_;
};

template <class T>
struct Tag {};

// The alternative of `Variant` whose kType is the message's type, read by its table;
// `unknown` throws for a type the direction does not have.
template <class Variant, class Unknown, std::size_t... I>
Variant parse(const Json& body, const Limits& limits, Unknown unknown, std::index_sequence<I...>) {
  const MessageReader m(body);
  std::optional<Variant> out;
  auto read_if_named = [&]<class T>(Tag<T>) {
    if (out || m.type() != T::kType) return;
    T message;
    if constexpr (HasFields<T>) {
      Reader reader(m, limits);
      fields(reader, message);
    }
    out.emplace(std::move(message));
  };
  (read_if_named(Tag<std::variant_alternative_t<I, Variant>>{}), ...);
  if (!out) unknown(m);
  return std::move(*out);
}

template <class Variant, class Unknown>
Variant parse(const Json& body, const Limits& limits, Unknown unknown) {
  return parse<Variant>(body, limits, unknown,
                        std::make_index_sequence<std::variant_size_v<Variant>>{});
}

// A table's members read from an object whose members are all there with the right JSON
// type (false as soon as one is not), converted as nlohmann converts: parse_host_changes'
// lenient reading, with one error for any malformed entry.
class LenientReader {
 public:
  explicit LenientReader(const Json& object) : object_(object) {}

  template <class T>
  void operator()(const char* key, T& member) {
    auto it = object_.find(key);
    if (!well_formed_ || it == object_.end() || !conforms<T>(*it)) {
      well_formed_ = false;
      return;
    }
    member = it->template get<T>();
  }

  bool well_formed() const { return well_formed_; }

 private:
  template <class T>
  static bool conforms(const Json& value) {
    if constexpr (std::is_same_v<T, std::string>) {
      return value.is_string();
    } else if constexpr (std::is_unsigned_v<T>) {
      return value.is_number_unsigned();
    } else {
      static_assert(std::is_integral_v<T>);
      return value.is_number_integer();
    }
  }

  const Json& object_;
  bool well_formed_ = true;
};

}  // namespace

std::string not_one_of(const std::string& value, std::initializer_list<const char*> words) {
  for (const char* word : words) {
    if (value == word) return "";
  }
  return expected_one_of(words, value);
}

std::string longer_than(const std::string& value, std::size_t max) {
  if (value.size() <= max) return "";
  return "longer than " + std::to_string(max) + " bytes";
}

std::string repeated_gpu(const std::vector<GpuSample>& gpus) {
  std::vector<bool> seen(kMaxNodeGpus, false);
  for (const GpuSample& g : gpus) {
    if (seen[static_cast<std::size_t>(g.index)]) {
      return "GPU " + std::to_string(g.index) + " listed twice";
    }
    seen[static_cast<std::size_t>(g.index)] = true;
  }
  return "";
}

NodeToCoordinator parse_node_to_coordinator(const Json& body, int instances) {
  return parse<NodeToCoordinator>(body, Limits{instances - 1, kIntMax}, [](const MessageReader& m) {
    m.fail("type", "not a launcher message");
  });
}

CoordinatorToNode parse_coordinator_to_node(const Json& body, int instances) {
  return parse<CoordinatorToNode>(body, Limits{instances - 1, kIntMax}, [](const MessageReader& m) {
    m.fail("type", "unknown message type");
  });
}

ControlRequest parse_control_request(const Json& body) {
  return parse<ControlRequest>(
      body, Limits{}, [](const MessageReader& m) { m.fail("type", "not a control request"); });
}

ControlReply parse_control_reply(const Json& body) {
  return parse<ControlReply>(body, Limits{kAnyInstance, kAnyInstance}, [](const MessageReader& m) {
    throw ProtocolError("unexpected message \"" + m.type() + "\"");
  });
}

std::vector<HostChange> parse_host_changes(const Json& hosts) {
  if (!hosts.is_array()) throw ProtocolError("assign: hosts: expected an array");
  std::vector<HostChange> changes;
  for (const Json& c : hosts) {
    HostChange change;
    LenientReader reader(c);
    if (c.is_object()) fields(reader, change);
    if (!c.is_object() || !reader.well_formed()) {
      throw ProtocolError(
          "assign: hosts: each change needs an instance, a string name and address and an "
          "integer slots");
    }
    changes.push_back(std::move(change));
  }
  return changes;
}

}  // namespace pai::net
