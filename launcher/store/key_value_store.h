// What torch's TCPStore keeps and answers (issue 39): keys and values, counters, and clients
// waiting for keys, as its master daemon does; no sockets (store_server.h has them).
//
// Bounded: the values and keys held stay under `max_bytes`, a write past it is refused. And a
// job restarted by pai runs its ranks' stores under torchelastic's prefix
// `/worker/attempt_<N>/` (TORCHELASTIC_RESTART_COUNT): the first write of a newer attempt
// drops the keys of the older ones, whose ranks pai stopped before it started the new ones,
// so a job restarted a thousand times holds one attempt's keys.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "launcher/store/store_protocol.h"

namespace pai::launcher::store {

/// A connection of the server.
using ClientId = std::uint64_t;

/// Bytes for one client.
struct Outgoing {
  ClientId client = 0;
  std::string bytes;
};

/// A request the store cannot carry out (the client's fault): the server closes its connection,
/// as torch's daemon does, and says why.
class StoreRequestError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class KeyValueStore {
 public:
  explicit KeyValueStore(std::size_t max_bytes) : max_bytes_(max_bytes) {}

  /// Carries out `request` of `client`, appending to `out` its reply (none for SET, APPEND,
  /// MULTI_SET, VALIDATE, or a WAIT not yet over) and the STOP_WAITING of every client whose
  /// WAIT it ended. Throws StoreRequestError: a GET or MULTI_GET of a key not set, an ADD to a
  /// value that is no integer or past int64, a write past `max_bytes`.
  void apply(ClientId client, const Request& request, std::vector<Outgoing>& out);

  /// Forgets what `client` waits for (it closed).
  void forget(ClientId client);

  /// Keys held, and bytes of keys and values held.
  std::size_t keys() const { return values_.size(); }
  std::size_t bytes() const { return bytes_; }

 private:
  void set(const std::string& key, std::string value, std::vector<Outgoing>& out);
  // Room for `grow` more bytes, or StoreRequestError.
  void reserve(std::size_t grow) const;
  // Drops the keys of attempts older than the one `key` is of (torchelastic's prefix).
  void drop_older_attempts(const std::string& key);
  // Sends STOP_WAITING to the clients that waited for `key` and for nothing else still unset.
  void wake(const std::string& key, std::vector<Outgoing>& out);
  void erase(std::map<std::string, std::string>::iterator it);

  std::size_t max_bytes_;
  std::size_t bytes_ = 0;
  std::map<std::string, std::string> values_;
  std::unordered_map<std::string, std::vector<ClientId>> waiting_;  // key -> clients
  std::unordered_map<ClientId, std::size_t> awaited_;               // client -> keys still unset
  std::int64_t attempt_ = -1;  // the newest attempt a key was written under
};

}  // namespace pai::launcher::store
