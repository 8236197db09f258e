#include "launcher/coordinator/handshake_slots.h"

#include <stdexcept>
#include <utility>

namespace pai::launcher::coordinator {

HandshakeSlots::HandshakeSlots(std::size_t per_address, std::size_t total)
    : per_address_(per_address), total_(total) {
  if (per_address_ == 0 || total_ == 0) {
    throw std::invalid_argument(
        "the limits of unauthenticated connections must be at least 1 (per address " +
        std::to_string(per_address_) + ", in all " + std::to_string(total_) + ")");
  }
}

std::optional<HandshakeSlots::Eviction> HandshakeSlots::admit(int id, const std::string& address) {
  std::optional<Eviction> eviction;
  if (size(address) >= per_address_) {
    eviction = evict_oldest(address, "evicted by a newer connection: at most " +
                                         std::to_string(per_address_) +
                                         " unauthenticated connections per address");
  } else if (size() >= total_) {
    // The last rank is the address holding the most.
    std::string busiest = std::get<2>(*ranks_.rbegin());
    eviction = evict_oldest(busiest, "evicted by a newer connection: at most " +
                                         std::to_string(total_) + " unauthenticated connections");
  }
  take(id, address);
  return eviction;
}

void HandshakeSlots::release(int id) {
  auto it = address_of_.find(id);
  if (it == address_of_.end()) return;
  std::string address = std::move(it->second);
  address_of_.erase(it);
  ranks_.erase(rank(address));
  auto& ids = ids_by_address_[address];
  ids.erase(id);
  if (ids.empty()) {
    ids_by_address_.erase(address);
  } else {
    ranks_.insert(rank(address));
  }
}

std::size_t HandshakeSlots::size(const std::string& address) const {
  auto it = ids_by_address_.find(address);
  return it == ids_by_address_.end() ? 0 : it->second.size();
}

void HandshakeSlots::take(int id, const std::string& address) {
  auto& ids = ids_by_address_[address];
  if (!ids.empty()) ranks_.erase(rank(address));
  ids.insert(id);
  address_of_[id] = address;
  ranks_.insert(rank(address));
}

HandshakeSlots::Eviction HandshakeSlots::evict_oldest(const std::string& address,
                                                      std::string reason) {
  int oldest = *ids_by_address_.at(address).begin();
  release(oldest);
  return Eviction{oldest, std::move(reason)};
}

HandshakeSlots::Rank HandshakeSlots::rank(const std::string& address) const {
  const auto& ids = ids_by_address_.at(address);
  return Rank{ids.size(), -*ids.begin(), address};
}

}  // namespace pai::launcher::coordinator
