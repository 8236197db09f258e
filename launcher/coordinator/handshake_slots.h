// The coordinator's connections that have not authenticated yet, per source address
// (docs/protocol.md, "Limits"). Both caps are kept by evicting the oldest such connection, not by
// refusing the newcomer: a legitimate client authenticates within milliseconds of connecting,
// so idle sockets held by a flood, even from the client's own address, cannot keep it out.
// Authenticated connections never take a slot and are never evicted.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>

namespace pai::launcher::coordinator {

/// Slots for unauthenticated connections, keyed by connection id (the server's session ids).
class HandshakeSlots {
 public:
  /// A connection to close to make room, already released.
  struct Eviction {
    int id = 0;
    std::string reason;  ///< for the journal
  };

  /// At most `per_address` connections from one address and `total` in all; both at least 1
  /// (else std::invalid_argument).
  HandshakeSlots(std::size_t per_address, std::size_t total);

  /// Takes a slot for connection `id` from `address`; ids grow with arrival, so a smaller id
  /// is an older connection. At a cap, returns the connection evicted for it: the oldest of
  /// `address` when that address is at its cap, else the oldest of the address holding the
  /// most (the oldest of them on a tie).
  std::optional<Eviction> admit(int id, const std::string& address);
  /// Frees the slot of `id` (it authenticated, failed or closed); nothing when it has none.
  void release(int id);

  /// Connections holding a slot.
  std::size_t size() const { return address_of_.size(); }
  /// Connections from `address` holding a slot.
  std::size_t size(const std::string& address) const;

 private:
  // Orders addresses for eviction under the total cap: the last is the one holding the most,
  // and among equals, the one with the oldest connection. (count, -oldest id, address).
  using Rank = std::tuple<std::size_t, int, std::string>;

  void take(int id, const std::string& address);
  Eviction evict_oldest(const std::string& address, std::string reason);
  Rank rank(const std::string& address) const;

  std::size_t per_address_;
  std::size_t total_;
  std::unordered_map<int, std::string> address_of_;
  std::map<std::string, std::set<int>> ids_by_address_;
  std::set<Rank> ranks_;
};

}  // namespace pai::launcher::coordinator
