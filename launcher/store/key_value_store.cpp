#include "launcher/store/key_value_store.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <string_view>

namespace pai::launcher::store {

namespace {

constexpr std::uint8_t kReady = 0;
constexpr std::uint8_t kNotReady = 1;
constexpr std::uint8_t kStopWaiting = 0;
constexpr std::uint8_t kWaitCanceled = 1;

// N of a key under torchelastic's `/worker/attempt_<N>/` (the client adds a `/` of its own).
std::optional<std::int64_t> attempt_of(std::string_view key) {
  constexpr std::string_view kPrefix = "worker/attempt_";
  while (!key.empty() && key.front() == '/') key.remove_prefix(1);
  if (key.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  key.remove_prefix(kPrefix.size());
  const std::size_t slash = key.find('/');
  if (slash == std::string_view::npos || slash == 0) return std::nullopt;
  std::int64_t n = 0;
  const auto [end, ec] = std::from_chars(key.data(), key.data() + slash, n);
  if (ec != std::errc() || end != key.data() + slash) return std::nullopt;
  return n;
}

std::string shown(const std::string& key) {
  constexpr std::size_t kShown = 200;
  return key.size() <= kShown ? key : key.substr(0, kShown) + "...";
}

}  // namespace

void KeyValueStore::apply(ClientId client, const Request& r, std::vector<Outgoing>& out) {
  std::string reply;
  const auto get = [&](const std::string& key) -> const std::string& {
    const auto it = values_.find(key);
    if (it == values_.end()) {
      throw StoreRequestError(std::string(op_name(r.op)) + " of '" + shown(key) +
                              "', which is not set");
    }
    return it->second;
  };
  switch (r.op) {
    case Op::Validate:
      return;
    case Op::Set:
      set(r.keys[0], r.values[0], out);
      return;
    case Op::MultiSet:
      for (std::size_t i = 0; i < r.keys.size(); ++i) set(r.keys[i], r.values[i], out);
      return;
    case Op::Append: {
      const auto it = values_.find(r.keys[0]);
      set(r.keys[0], it == values_.end() ? r.values[0] : it->second + r.values[0], out);
      return;
    }
    case Op::CompareSet: {
      // torch's semantics: a key not set is set only when `expected` is empty; the answer is
      // the value the key has afterwards (`expected` itself when it was not set).
      const std::string& key = r.keys[0];
      const std::string& expected = r.values[0];
      const std::string& desired = r.values[1];
      const auto it = values_.find(key);
      if (it == values_.end() ? expected.empty() : it->second == expected) set(key, desired, out);
      const auto now = values_.find(key);
      append_value(reply, now == values_.end() ? expected : now->second);
      break;
    }
    case Op::Get:
      append_value(reply, get(r.keys[0]));
      break;
    case Op::MultiGet:
      for (const std::string& key : r.keys) append_value(reply, get(key));
      break;
    case Op::Add: {
      std::int64_t sum = r.number;
      if (const auto it = values_.find(r.keys[0]); it != values_.end()) {
        std::int64_t have = 0;
        const std::string& text = it->second;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), have);
        if (ec != std::errc() || end != text.data() + text.size()) {
          throw StoreRequestError("ADD to '" + shown(r.keys[0]) + "', whose value is no integer");
        }
        if (__builtin_add_overflow(have, r.number, &sum)) {
          throw StoreRequestError("ADD of " + std::to_string(r.number) + " to '" +
                                  shown(r.keys[0]) + "' (" + text + ") overflows 64 bits");
        }
      }
      set(r.keys[0], std::to_string(sum), out);
      append_i64(reply, sum);
      break;
    }
    case Op::Check: {
      bool all = true;
      for (const std::string& key : r.keys) all = all && values_.count(key) > 0;
      append_u8(reply, all ? kReady : kNotReady);
      break;
    }
    case Op::Wait: {
      // A client waits for one thing at a time; a new WAIT replaces an abandoned one (torch
      // 1.x's client gives up on a timeout without saying so).
      forget(client);
      std::size_t unset = 0;
      for (const std::string& key : r.keys) {
        if (values_.count(key) > 0) continue;
        auto& clients = waiting_[key];
        if (std::find(clients.begin(), clients.end(), client) == clients.end()) {
          clients.push_back(client);
          ++unset;
        }
      }
      if (unset == 0) {
        append_u8(reply, kStopWaiting);
        break;
      }
      awaited_[client] = unset;
      return;
    }
    case Op::CancelWait:
      forget(client);
      append_u8(reply, kWaitCanceled);
      break;
    case Op::NumKeys:
      append_i64(reply, static_cast<std::int64_t>(values_.size()));
      break;
    case Op::DeleteKey: {
      const auto it = values_.find(r.keys[0]);
      const bool found = it != values_.end();
      if (found) erase(it);
      append_i64(reply, found ? 1 : 0);
      break;
    }
    case Op::Ping:
      append_u32(reply, static_cast<std::uint32_t>(r.number));
      break;
  }
  out.push_back(Outgoing{client, std::move(reply)});
}

void KeyValueStore::forget(ClientId client) {
  if (awaited_.erase(client) == 0) return;
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    std::erase(it->second, client);
    it = it->second.empty() ? waiting_.erase(it) : std::next(it);
  }
}

void KeyValueStore::set(const std::string& key, std::string value, std::vector<Outgoing>& out) {
  drop_older_attempts(key);
  const auto it = values_.find(key);
  const std::size_t had = it == values_.end() ? 0 : key.size() + it->second.size();
  const std::size_t will = key.size() + value.size();
  if (will > had) reserve(will - had);
  bytes_ = bytes_ - had + will;
  if (it == values_.end()) {
    values_.emplace(key, std::move(value));
  } else {
    it->second = std::move(value);
  }
  wake(key, out);
}

void KeyValueStore::reserve(std::size_t grow) const {
  if (grow > max_bytes_ || bytes_ > max_bytes_ - grow) {
    throw StoreRequestError("a write of " + std::to_string(grow) + " bytes to a store holding " +
                            std::to_string(bytes_) + " (at most " + std::to_string(max_bytes_) +
                            ")");
  }
}

void KeyValueStore::drop_older_attempts(const std::string& key) {
  const std::optional<std::int64_t> attempt = attempt_of(key);
  if (!attempt || *attempt <= attempt_) return;
  attempt_ = *attempt;
  for (auto it = values_.begin(); it != values_.end();) {
    const std::optional<std::int64_t> of = attempt_of(it->first);
    const auto next = std::next(it);
    if (of && *of < attempt_) erase(it);
    it = next;
  }
}

void KeyValueStore::wake(const std::string& key, std::vector<Outgoing>& out) {
  const auto it = waiting_.find(key);
  if (it == waiting_.end()) return;
  const std::vector<ClientId> clients = std::move(it->second);
  waiting_.erase(it);
  for (const ClientId c : clients) {
    const auto left = awaited_.find(c);
    if (left == awaited_.end() || --left->second > 0) continue;
    awaited_.erase(left);
    std::string bytes;
    append_u8(bytes, kStopWaiting);
    out.push_back(Outgoing{c, std::move(bytes)});
  }
}

void KeyValueStore::erase(std::map<std::string, std::string>::iterator it) {
  bytes_ -= it->first.size() + it->second.size();
  values_.erase(it);
}

}  // namespace pai::launcher::store
