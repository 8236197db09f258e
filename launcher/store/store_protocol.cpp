#include "launcher/store/store_protocol.h"

#include <array>
#include <cstring>

namespace pai::launcher::store {

namespace {

struct Wire {
  Op op;
  std::uint8_t legacy;  // kNone when the legacy dialect has no such query
  std::uint8_t validated;
};

constexpr std::uint8_t kNone = 0xff;

constexpr std::array<Wire, 14> kWire = {{
    {Op::Validate, kNone, 0},
    {Op::Set, 0, 1},
    {Op::CompareSet, 1, 2},
    {Op::Get, 2, 3},
    {Op::Add, 3, 4},
    {Op::Check, 4, 5},
    {Op::Wait, 5, 6},
    {Op::NumKeys, 6, 7},
    {Op::DeleteKey, 8, 8},
    {Op::Append, kNone, 9},
    {Op::MultiGet, kNone, 10},
    {Op::MultiSet, kNone, 11},
    {Op::CancelWait, kNone, 12},
    {Op::Ping, kNone, 13},
}};

// The legacy client's WATCH_KEY, which only its callback connection sends (nothing in process
// group set-up does).
constexpr std::uint8_t kLegacyWatchKey = 7;

const char* dialect_name(Dialect dialect) {
  return dialect == Dialect::Legacy ? "torch 1.x" : "validated (torch 2.x)";
}

// Reads fixed-size integers and length-prefixed strings from the front of a request; `need`
// says the request is not all there yet.
class Reader {
 public:
  Reader(std::string_view bytes, const StoreLimits& limits) : bytes_(bytes), limits_(limits) {}

  template <class T>
  bool number(T* out) {
    if (bytes_.size() - at_ < sizeof(T)) return false;
    std::memcpy(out, bytes_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return true;
  }

  // A string of at most `max` bytes; `what` names it in the error.
  bool string(std::string* out, std::size_t max, const char* what) {
    std::uint64_t size = 0;
    if (!number(&size)) return false;
    if (size > max) {
      throw StoreProtocolError(std::string("a ") + what + " of " + std::to_string(size) +
                               " bytes (at most " + std::to_string(max) + ")");
    }
    if (bytes_.size() - at_ < size) return false;
    out->assign(bytes_.data() + at_, size);
    at_ += size;
    return true;
  }

  bool key(std::string* out) { return string(out, limits_.max_key_bytes, "key"); }
  bool value(std::string* out) { return string(out, limits_.max_value_bytes, "value"); }

  bool count(std::uint64_t* out) {
    if (!number(out)) return false;
    if (*out > limits_.max_keys) {
      throw StoreProtocolError("a list of " + std::to_string(*out) + " keys (at most " +
                               std::to_string(limits_.max_keys) + ")");
    }
    return true;
  }

  bool keys(std::vector<std::string>* out) {
    std::uint64_t n = 0;
    if (!count(&n)) return false;
    for (std::uint64_t i = 0; i < n; ++i) {
      if (!key(&out->emplace_back())) return false;
    }
    return true;
  }

  std::size_t used() const { return at_; }

 private:
  std::string_view bytes_;
  const StoreLimits& limits_;
  std::size_t at_ = 0;
};

// The arguments of `op`, read after its type byte; false when they are not all there.
bool read_arguments(Reader& in, Request& r) {
  switch (r.op) {
    case Op::Validate: {
      std::uint32_t magic = 0;
      if (!in.number(&magic)) return false;
      if (magic != kValidationMagic) {
        throw StoreProtocolError("VALIDATE with the number " + std::to_string(magic) +
                                 ", not torch's " + std::to_string(kValidationMagic));
      }
      return true;
    }
    case Op::Set:
    case Op::Append:
      return in.key(&r.keys.emplace_back()) && in.value(&r.values.emplace_back());
    case Op::CompareSet:
      return in.key(&r.keys.emplace_back()) && in.value(&r.values.emplace_back()) &&
             in.value(&r.values.emplace_back());
    case Op::Get:
    case Op::DeleteKey:
      return in.key(&r.keys.emplace_back());
    case Op::Add:
      return in.key(&r.keys.emplace_back()) && in.number(&r.number);
    case Op::Check:
    case Op::Wait:
    case Op::MultiGet:
      return in.keys(&r.keys);
    case Op::MultiSet: {
      std::uint64_t n = 0;
      if (!in.count(&n)) return false;
      for (std::uint64_t i = 0; i < n; ++i) {
        if (!in.key(&r.keys.emplace_back()) || !in.value(&r.values.emplace_back())) return false;
      }
      return true;
    }
    case Op::Ping: {
      std::uint32_t nonce = 0;
      if (!in.number(&nonce)) return false;
      r.number = nonce;
      return true;
    }
    case Op::NumKeys:
    case Op::CancelWait:
      return true;
  }
  return true;
}

Op op_of(std::uint8_t type, Dialect dialect) {
  for (const Wire& w : kWire) {
    const std::uint8_t code = dialect == Dialect::Legacy ? w.legacy : w.validated;
    if (code != kNone && code == type) return w.op;
  }
  if (dialect == Dialect::Legacy && type == kLegacyWatchKey) {
    throw StoreProtocolError(
        "WATCH_KEY (torch 1.x's key callbacks), which the launcher's store does not serve");
  }
  throw StoreProtocolError("query type " + std::to_string(type) + ", unknown to the " +
                           dialect_name(dialect) + " store protocol");
}

// The dialect of a connection's first request, or Unknown while too few bytes are there.
Dialect first_dialect(std::string_view bytes) {
  std::array<unsigned char, 4> magic{};
  std::memcpy(magic.data(), &kValidationMagic, magic.size());
  const auto is_magic = [&](std::size_t at) {
    return std::memcmp(bytes.data() + at, magic.data(), magic.size()) == 0;
  };
  if (bytes.size() >= 4 && is_magic(0)) {
    throw StoreProtocolError(
        "a query prefixed with torch's magic number (the protocol of torch 2.1-2.2's store "
        "client), which the launcher's store does not speak");
  }
  if (static_cast<unsigned char>(bytes[0]) != 0) return Dialect::Legacy;
  if (bytes.size() < 5) return Dialect::Unknown;
  return is_magic(1) ? Dialect::Validated : Dialect::Legacy;
}

std::uint8_t wire_type(Op op, Dialect dialect) {
  for (const Wire& w : kWire) {
    if (w.op == op) return dialect == Dialect::Legacy ? w.legacy : w.validated;
  }
  return kNone;
}

}  // namespace

const char* op_name(Op op) {
  switch (op) {
    case Op::Validate:
      return "VALIDATE";
    case Op::Set:
      return "SET";
    case Op::CompareSet:
      return "COMPARE_SET";
    case Op::Get:
      return "GET";
    case Op::Add:
      return "ADD";
    case Op::Check:
      return "CHECK";
    case Op::Wait:
      return "WAIT";
    case Op::NumKeys:
      return "GETNUMKEYS";
    case Op::DeleteKey:
      return "DELETE_KEY";
    case Op::Append:
      return "APPEND";
    case Op::MultiGet:
      return "MULTI_GET";
    case Op::MultiSet:
      return "MULTI_SET";
    case Op::CancelWait:
      return "CANCEL_WAIT";
    case Op::Ping:
      return "PING";
  }
  return "?";
}

std::optional<std::pair<Request, std::size_t>> parse_request(std::string_view bytes,
                                                             Dialect& dialect,
                                                             const StoreLimits& limits) {
  if (bytes.empty()) return std::nullopt;
  Dialect use = dialect;
  if (use == Dialect::Unknown) {
    use = first_dialect(bytes);
    if (use == Dialect::Unknown) return std::nullopt;
  }
  Reader in(bytes, limits);
  std::uint8_t type = 0;
  in.number(&type);
  Request request;
  request.op = op_of(type, use);
  if (!read_arguments(in, request)) return std::nullopt;
  dialect = use;
  return std::make_pair(std::move(request), in.used());
}

void append_value(std::string& out, std::string_view value) {
  append_i64(out, static_cast<std::int64_t>(value.size()));
  out.append(value);
}

void append_i64(std::string& out, std::int64_t number) {
  out.append(reinterpret_cast<const char*>(&number), sizeof(number));
}

void append_u8(std::string& out, std::uint8_t number) { out.push_back(static_cast<char>(number)); }

void append_u32(std::string& out, std::uint32_t number) {
  out.append(reinterpret_cast<const char*>(&number), sizeof(number));
}

std::string encode_request(const Request& r, Dialect dialect) {
  const std::uint8_t type = wire_type(r.op, dialect);
  if (type == kNone) {
    throw std::invalid_argument(std::string(op_name(r.op)) + " has no query type in " +
                                dialect_name(dialect));
  }
  std::string out;
  append_u8(out, type);
  switch (r.op) {
    case Op::Validate:
      append_u32(out, kValidationMagic);
      break;
    case Op::Ping:
      append_u32(out, static_cast<std::uint32_t>(r.number));
      break;
    case Op::Add:
      append_value(out, r.keys.at(0));
      append_i64(out, r.number);
      break;
    case Op::Check:
    case Op::Wait:
    case Op::MultiGet:
      append_i64(out, static_cast<std::int64_t>(r.keys.size()));
      for (const std::string& k : r.keys) append_value(out, k);
      break;
    case Op::MultiSet:
      append_i64(out, static_cast<std::int64_t>(r.keys.size()));
      for (std::size_t i = 0; i < r.keys.size(); ++i) {
        append_value(out, r.keys[i]);
        append_value(out, r.values.at(i));
      }
      break;
    default:
      for (const std::string& k : r.keys) append_value(out, k);
      for (const std::string& v : r.values) append_value(out, v);
  }
  return out;
}

}  // namespace pai::launcher::store
