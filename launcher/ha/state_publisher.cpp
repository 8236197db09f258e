#include "launcher/ha/state_publisher.h"

namespace pai::launcher::ha {

StatePublisher::StatePublisher(EtcdClient& etcd, Leader leader, std::string key)
    : etcd_(etcd), leader_(std::move(leader)), key_(std::move(key)) {
  thread_ = std::thread([this] { loop(); });
}

StatePublisher::~StatePublisher() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void StatePublisher::publish(std::string value) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!leading_) return;
    pending_ = std::move(value);
  }
  changed_.notify_all();
}

bool StatePublisher::flush(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  return changed_.wait_for(lock, timeout, [&] { return (!pending_ && !writing_) || !leading_; }) &&
         leading_;
}

bool StatePublisher::leading() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return leading_;
}

std::string StatePublisher::last_error() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return last_error_;
}

void StatePublisher::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return stopping_ || (pending_ && leading_); });
    if (stopping_) return;
    std::string value = std::move(*pending_);
    pending_.reset();
    writing_ = true;
    lock.unlock();
    std::string error;
    bool refused = false;
    try {
      refused = !etcd_.put_if_leader(leader_, key_, value);
    } catch (const EtcdError& e) {
      error = e.what();
    }
    lock.lock();
    writing_ = false;
    last_error_ = error;
    if (refused) {
      leading_ = false;
      pending_.reset();
    } else if (!error.empty() && !pending_) {
      // Not written: tried again with the latest value, a little later.
      pending_ = std::move(value);
      changed_.wait_for(lock, std::chrono::milliseconds(100), [&] { return stopping_; });
    }
    changed_.notify_all();
  }
}

}  // namespace pai::launcher::ha
