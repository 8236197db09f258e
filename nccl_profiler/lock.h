// A pthread mutex held for a scope, for the plugin's state shared between NCCL's threads.
#pragma once

#include <pthread.h>

namespace pai::nccl_profiler {

/// Locks `m` until the end of the scope.
class Lock {
 public:
  explicit Lock(pthread_mutex_t& m) : m_(m) { pthread_mutex_lock(&m_); }
  ~Lock() { pthread_mutex_unlock(&m_); }
  Lock(const Lock&) = delete;
  Lock& operator=(const Lock&) = delete;

 private:
  pthread_mutex_t& m_;
};

}  // namespace pai::nccl_profiler
