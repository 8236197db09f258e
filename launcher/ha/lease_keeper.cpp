#include "launcher/ha/lease_keeper.h"

#include <algorithm>

namespace pai::launcher::ha {
namespace {

std::chrono::milliseconds margin(std::chrono::seconds ttl) {
  return std::max<std::chrono::milliseconds>(ttl / 10, std::chrono::milliseconds(100));
}

}  // namespace

LeaseKeeper::LeaseKeeper(EtcdClient& etcd, std::chrono::seconds ttl)
    : etcd_(etcd),
      asked_(Clock::now()),
      lease_(etcd.grant_lease(static_cast<int>(std::max<std::int64_t>(ttl.count(), 1)))),
      ttl_(lease_.ttl_seconds) {
  valid_until_ = asked_ + ttl_ - margin(ttl_);
  thread_ = std::thread([this] { renew_loop(); });
}

LeaseKeeper::~LeaseKeeper() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
  if (lost()) return;
  try {
    etcd_.revoke_lease(lease_.id);
  } catch (const EtcdError&) {
    // It expires on its own.
  }
}

LeaseKeeper::Clock::time_point LeaseKeeper::valid_until() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return expired_ ? Clock::time_point::min() : valid_until_;
}

bool LeaseKeeper::lost() const { return Clock::now() >= valid_until(); }

std::string LeaseKeeper::last_error() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return last_error_;
}

void LeaseKeeper::renew_loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  bool renewed = true;
  while (!stopping_ && !expired_) {
    const std::chrono::milliseconds pause =
        renewed ? std::chrono::milliseconds(ttl_) / 3 : std::chrono::milliseconds(200);
    wake_.wait_for(lock, pause, [&] { return stopping_; });
    if (stopping_) return;
    lock.unlock();
    const auto sent = Clock::now();
    std::string error;
    std::int64_t left = -1;
    try {
      left = etcd_.keep_alive(lease_.id);
    } catch (const EtcdError& e) {
      error = e.what();
    }
    lock.lock();
    renewed = left > 0;
    last_error_ = error;
    if (left == 0) {
      expired_ = true;
      last_error_ = "etcd says the lease expired";
    } else if (left > 0) {
      // What etcd renewed it for, from no later than when we asked.
      valid_until_ = std::max(valid_until_, sent + std::chrono::seconds(left) - margin(ttl_));
    }
  }
}

}  // namespace pai::launcher::ha
