#include "launcher/ha/etcd_client.h"

#include <openssl/evp.h>

#include <algorithm>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <charconv>
#include <mutex>
#include <nlohmann/json.hpp>

#include "libpai/etcd_endpoint.h"

namespace pai::launcher::ha {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::ip::tcp;
using Clock = std::chrono::steady_clock;
using Json = nlohmann::json;

// An answer is a few KiB; a member sending more is not one to trust.
constexpr std::uint64_t kMaxAnswer = 1 << 20;
constexpr std::chrono::milliseconds kCancelCheck{100};

// One member did not answer as it should; the next is tried.
class MemberError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Endpoint {
  std::string url;
  std::string host;
  std::string port;
};

Endpoint parse_endpoint(const std::string& url) {
  std::string why;
  const auto parsed = parse_etcd_endpoint(url, &why);
  if (!parsed) throw EtcdError("etcd endpoint " + url + ": " + why);
  return Endpoint{url, parsed->host, std::to_string(parsed->port)};
}

std::string base64(const std::string& bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3), '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(bytes.data()),
                                static_cast<int>(bytes.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

std::string unbase64(const std::string& text) {
  if (text.size() % 4 != 0) throw EtcdError("etcd answered a value that is not base64");
  std::string out(3 * text.size() / 4, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(text.data()),
                                static_cast<int>(text.size()));
  if (n < 0) throw EtcdError("etcd answered a value that is not base64");
  std::size_t size = static_cast<std::size_t>(n);
  for (std::size_t i = text.size(); i > 0 && text[i - 1] == '='; --i) --size;
  out.resize(size);
  return out;
}

// The gateway writes 64-bit numbers as strings; absent is 0.
std::int64_t number(const Json& object, const char* field) {
  const auto it = object.find(field);
  if (it == object.end()) return 0;
  if (it->is_number_integer()) return it->get<std::int64_t>();
  if (!it->is_string()) throw EtcdError(std::string("etcd answered a non-number ") + field);
  const std::string& text = it->get_ref<const std::string&>();
  std::int64_t value = 0;
  if (std::from_chars(text.data(), text.data() + text.size(), value).ptr !=
      text.data() + text.size()) {
    throw EtcdError(std::string("etcd answered a non-number ") + field);
  }
  return value;
}

std::string text(const Json& object, const char* field) {
  const auto it = object.find(field);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

Json leader_json(const Leader& l) {
  return {{"name", base64(l.name)},
          {"key", base64(l.key)},
          {"rev", std::to_string(l.revision)},
          {"lease", std::to_string(l.lease)}};
}

// Runs `io` until `done`, the deadline or the cancel; closes `stream` (aborting what is in
// flight) on the last two. Throws MemberError (timed out) or EtcdCancelled.
void run_until(asio::io_context& io, const bool& done, beast::tcp_stream& stream,
               Clock::time_point deadline, const std::function<bool()>& cancel,
               const char* doing) {
  io.restart();
  while (!done) {
    const bool cancelled = cancel && cancel();
    const auto now = Clock::now();
    if (cancelled || now >= deadline) {
      beast::error_code ignored;
      stream.socket().close(ignored);
      io.restart();
      io.run();
      if (cancelled) throw EtcdCancelled();
      throw MemberError(std::string(doing) + ": timed out");
    }
    io.run_for(std::min<Clock::duration>(deadline - now, kCancelCheck));
    if (io.stopped()) io.restart();
  }
}

}  // namespace

struct EtcdClient::Impl {
  EtcdOptions options;
  std::vector<Endpoint> endpoints;
  std::mutex mutex;
  std::size_t preferred = 0;  // guarded: the member that answered last

  // One POST to one member: the answer's JSON (its first line: a streamed answer has one).
  // Throws MemberError when the member cannot be reached or answers garbage, EtcdError when it
  // answered with etcd's error (the next member would say the same).
  // Connecting and sending must be done by `sent`, the answer there by `deadline`.
  Json post_one(const Endpoint& e, const std::string& path, const Json& body,
                Clock::time_point sent, Clock::time_point deadline,
                const std::function<bool()>& cancel) {
    asio::io_context io;
    tcp::resolver resolver(io);
    beast::error_code ec;
    const auto addresses = resolver.resolve(e.host, e.port, ec);
    if (ec) throw MemberError("cannot resolve " + e.host + ": " + ec.message());
    beast::tcp_stream stream(io);
    bool done = false;
    stream.async_connect(addresses, [&](const beast::error_code& error, const tcp::endpoint&) {
      ec = error;
      done = true;
    });
    run_until(io, done, stream, sent, cancel, "connect");
    if (ec) throw MemberError("cannot connect: " + ec.message());

    http::request<http::string_body> request{http::verb::post, path, 11};
    request.set(http::field::host, e.host + ":" + e.port);
    request.set(http::field::content_type, "application/json");
    request.body() = body.dump();
    request.prepare_payload();
    done = false;
    http::async_write(stream, request, [&](const beast::error_code& error, std::size_t) {
      ec = error;
      done = true;
    });
    run_until(io, done, stream, sent, cancel, "send");
    if (ec) throw MemberError("cannot send: " + ec.message());

    beast::flat_buffer buffer;
    http::response_parser<http::string_body> parser;
    parser.body_limit(kMaxAnswer);
    done = false;
    http::async_read(stream, buffer, parser, [&](const beast::error_code& error, std::size_t) {
      ec = error;
      done = true;
    });
    run_until(io, done, stream, deadline, cancel, "answer");
    if (ec) throw MemberError("no answer: " + ec.message());
    stream.socket().shutdown(tcp::socket::shutdown_both, ec);

    const auto& answer = parser.get();
    const std::string& raw = answer.body();
    const Json parsed = Json::parse(raw.substr(0, raw.find('\n')), nullptr, false);
    if (!parsed.is_object()) {
      throw MemberError("answered HTTP " + std::to_string(answer.result_int()) +
                        " without a JSON object");
    }
    if (answer.result() != http::status::ok || parsed.contains("error")) {
      const std::string message = text(parsed, "message");
      const std::string why = message.empty() ? text(parsed, "error") : message;
      if (why.empty()) throw MemberError("answered HTTP " + std::to_string(answer.result_int()));
      throw EtcdError("etcd: " + why);
    }
    return parsed.contains("result") ? parsed["result"] : parsed;
  }

  // post_one on each member in turn from the one that answered last, each given
  // request_timeout (to answer, or, with a `deadline`, to take the request of a long poll).
  Json post(const std::string& path, const Json& body,
            std::optional<Clock::time_point> deadline = std::nullopt,
            const std::function<bool()>& cancel = {}) {
    std::size_t first = 0;
    {
      std::lock_guard<std::mutex> lock(mutex);
      first = preferred;
    }
    std::string errors;
    for (std::size_t k = 0; k < endpoints.size(); ++k) {
      const std::size_t i = (first + k) % endpoints.size();
      const Endpoint& e = endpoints[i];
      const auto sent = Clock::now() + options.request_timeout;
      try {
        Json out = post_one(e, path, body, deadline ? std::min(sent, *deadline) : sent,
                            deadline.value_or(sent), cancel);
        std::lock_guard<std::mutex> lock(mutex);
        preferred = i;
        return out;
      } catch (const MemberError& error) {
        errors += (errors.empty() ? "" : "; ") + e.url + ": " + error.what();
      }
      if (deadline && Clock::now() >= *deadline) break;
    }
    throw EtcdError("no etcd member answered " + path + " (" + errors + ")");
  }
};

EtcdClient::EtcdClient(EtcdOptions options) : impl_(std::make_unique<Impl>()) {
  if (options.endpoints.empty()) throw EtcdError("no etcd endpoint given");
  for (const std::string& url : options.endpoints) {
    impl_->endpoints.push_back(parse_endpoint(url));
  }
  impl_->options = std::move(options);
}

EtcdClient::~EtcdClient() = default;

Lease EtcdClient::grant_lease(int ttl_seconds) {
  const Json out =
      impl_->post("/v3/lease/grant", {{"TTL", std::to_string(std::max(ttl_seconds, 1))}});
  const Lease lease{number(out, "ID"), number(out, "TTL")};
  if (lease.id == 0 || lease.ttl_seconds <= 0) throw EtcdError("etcd granted no lease");
  return lease;
}

std::int64_t EtcdClient::keep_alive(std::int64_t lease) {
  return number(impl_->post("/v3/lease/keepalive", {{"ID", std::to_string(lease)}}), "TTL");
}

void EtcdClient::revoke_lease(std::int64_t lease) {
  try {
    impl_->post("/v3/lease/revoke", {{"ID", std::to_string(lease)}});
  } catch (const EtcdCancelled&) {
    throw;
  } catch (const EtcdError& e) {
    // Already gone is what revoking asks for.
    if (std::string(e.what()).find("lease not found") == std::string::npos) throw;
  }
}

std::optional<Leader> EtcdClient::campaign(const std::string& name, std::int64_t lease,
                                           const std::string& value,
                                           Clock::time_point deadline,
                                           const std::function<bool()>& cancel) {
  const Json body = {{"name", base64(name)},
                     {"lease", std::to_string(lease)},
                     {"value", base64(value)}};
  // A member lost while waiting: the next one is asked again (the candidacy's key, named
  // after the lease, is the same one).
  while (Clock::now() < deadline) {
    try {
      const Json out = impl_->post("/v3/election/campaign", body, deadline, cancel);
      const Json& l = out.at("leader");
      return Leader{unbase64(text(l, "name")), unbase64(text(l, "key")), number(l, "rev"),
                    number(l, "lease"), value};
    } catch (const EtcdCancelled&) {
      throw;
    } catch (const Json::exception&) {
      throw EtcdError("etcd's campaign answer has no leader");
    } catch (const EtcdError& e) {
      if (std::string(e.what()).rfind("no etcd member answered", 0) != 0) throw;
    }
  }
  return std::nullopt;
}

std::optional<Leader> EtcdClient::leader(const std::string& name) {
  Json out;
  try {
    out = impl_->post("/v3/election/leader", {{"name", base64(name)}});
  } catch (const EtcdCancelled&) {
    throw;
  } catch (const EtcdError& e) {
    if (std::string(e.what()).find("election: no leader") != std::string::npos) return std::nullopt;
    throw;
  }
  const auto kv = out.find("kv");
  if (kv == out.end() || !kv->is_object()) return std::nullopt;
  const std::string key = unbase64(text(*kv, "key"));
  return Leader{name, key, number(*kv, "create_revision"), number(*kv, "lease"),
                unbase64(text(*kv, "value"))};
}

void EtcdClient::resign(const Leader& me) {
  try {
    impl_->post("/v3/election/resign", {{"leader", leader_json(me)}});
  } catch (const EtcdCancelled&) {
    throw;
  } catch (const EtcdError& e) {
    if (std::string(e.what()).find("not leader") == std::string::npos) throw;
  }
}

bool EtcdClient::put_if_leader(const Leader& me, const std::string& key, const std::string& value) {
  const Json body = {
      {"compare",
       Json::array({{{"target", "CREATE"},
                     {"key", base64(me.key)},
                     {"create_revision", std::to_string(me.revision)},
                     {"result", "EQUAL"}}})},
      {"success", Json::array({{{"request_put", {{"key", base64(key)}, {"value", base64(value)}}}}})}};
  const Json out = impl_->post("/v3/kv/txn", body);
  return out.value("succeeded", false);
}

std::optional<std::string> EtcdClient::get(const std::string& key) {
  const Json out = impl_->post("/v3/kv/range", {{"key", base64(key)}});
  const auto kvs = out.find("kvs");
  if (kvs == out.end() || !kvs->is_array() || kvs->empty()) return std::nullopt;
  return unbase64(text(kvs->at(0), "value"));
}

}  // namespace pai::launcher::ha
