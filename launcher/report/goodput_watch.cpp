#include "launcher/report/goodput_watch.h"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>

namespace pai::launcher::report {

namespace {

using Clock = std::chrono::steady_clock;

std::int64_t unix_now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

struct GoodputWatch::Impl {
  std::string log_dir;
  std::chrono::milliseconds interval;
  Deliver deliver;
  Warn warn;
  std::mutex mutex;
  std::condition_variable wake;
  bool stopping = false;
  std::string last_warning;
  std::thread thread;  // last: started once the rest is set

  void run() {
    std::unique_lock lock(mutex);
    while (!stopping) {
      lock.unlock();
      const auto began = Clock::now();
      read_once();
      const auto took = Clock::now() - began;
      lock.lock();
      const auto pause = std::max<Clock::duration>(interval, 20 * took);
      wake.wait_for(lock, pause, [this] { return stopping; });
    }
  }

  void read_once() {
    try {
      const LiveAccount account = read_live_goodput(log_dir, unix_now_ms());
      last_warning.clear();
      if (account.journals > 0) deliver(account);
    } catch (const std::exception& e) {  // LogFolderError, or out of memory
      if (e.what() != last_warning) {
        last_warning = e.what();
        warn(last_warning);
      }
    }
  }
};

GoodputWatch::GoodputWatch(std::string log_dir, std::chrono::milliseconds interval, Deliver deliver,
                           Warn warn)
    : impl_(std::make_unique<Impl>()) {
  impl_->log_dir = std::move(log_dir);
  impl_->interval = std::max(interval, std::chrono::milliseconds(1));
  impl_->deliver = std::move(deliver);
  impl_->warn = std::move(warn);
  impl_->thread = std::thread([impl = impl_.get()] { impl->run(); });
}

GoodputWatch::~GoodputWatch() {
  {
    std::lock_guard lock(impl_->mutex);
    impl_->stopping = true;
  }
  impl_->wake.notify_all();
  impl_->thread.join();
}

}  // namespace pai::launcher::report
