#include "nccl_profiler/transfers.h"

#include <pai/telemetry.h>
#include <unistd.h>

#include <cstdlib>

#include "nccl_profiler/lock.h"

namespace pai::nccl_profiler {
namespace {

enum Phase : std::uint8_t { kFree = 0, kIdle, kInFlight, kDone };

// The element of `pool` (of `n` elements) at address `p`, or null: a comparison of addresses,
// so that a pointer from NCCL is read only once it is known to be one of ours.
template <typename T>
T* element(T* pool, std::uint32_t n, const void* p) {
  if (pool == nullptr) return nullptr;
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  const auto first = reinterpret_cast<std::uintptr_t>(pool);
  if (at < first || at >= first + n * sizeof(T) || (at - first) % sizeof(T) != 0) return nullptr;
  return pool + (at - first) / sizeof(T);
}

}  // namespace

struct Transfers::Op {
  std::int32_t peer;
  std::uint16_t direction;  // enum pai_telemetry_peer_direction
  bool live;                // started and not stopped: steps may start under it
  std::int16_t slot;        // in the table; -1 until its first step
};

struct Transfers::Step {
  std::uint64_t bytes;  // of a send, from SendWait
  std::int16_t slot;
  std::uint8_t direction;
  std::uint8_t phase;
  std::uint32_t next_free;  // index + 1 of the next free step; 0: none
};

Transfers::~Transfers() {
  if (owner_ != nullptr) detach(owner_);
}

bool Transfers::attach(const void* owner, int nranks) {
  if (owner == nullptr || nranks <= 0 || forked_from_writer()) return false;
  Lock lock(lock_);
  if (owner_ != nullptr) return false;
  // calloc, not new: the plugin needs nothing of libstdc++ at run time. Pages are touched
  // only as handles are given out.
  ops_ = static_cast<Op*>(std::calloc(kOps, sizeof(Op)));
  steps_ = static_cast<Step*>(std::calloc(kSteps, sizeof(Step)));
  if (ops_ == nullptr || steps_ == nullptr ||
      !attach_shared_file("PAI_TELEMETRY_PEERS_FILE", PeerTable::valid, file_) ||
      !table_.attach(file_.base, file_.size)) {
    detach_shared_file(file_);
    std::free(ops_);
    std::free(steps_);
    ops_ = nullptr;
    steps_ = nullptr;
    return false;
  }
  pid_ = ::getpid();
  __atomic_store_n(&static_cast<pai_telemetry_peers_header*>(file_.base)->writer_pid,
                   static_cast<std::int32_t>(pid_), __ATOMIC_RELAXED);
  owner_ = owner;
  nranks_ = nranks;
  ops_given_ = 0;
  steps_touched_ = 0;
  free_steps_ = 0;
  attached_.store(true, std::memory_order_release);
  return true;
}

void Transfers::detach(const void* owner) {
  if (owner == nullptr || forked_from_writer()) return;
  Lock lock(lock_);
  if (owner != owner_) return;
  attached_.store(false, std::memory_order_relaxed);
  table_.detach(clock_());
  detach_shared_file(file_);
  std::free(ops_);
  std::free(steps_);
  ops_ = nullptr;
  steps_ = nullptr;
  owner_ = nullptr;
}

void* Transfers::op_started(const void* context, pid_t pid, int peer, bool is_send) {
  if (!attached_.load(std::memory_order_acquire) || forked_from_writer()) return nullptr;
  Lock lock(lock_);
  if (owner_ == nullptr || context != owner_ || pid != pid_ || peer < 0 || peer >= nranks_) {
    return nullptr;
  }
  Op& op = ops_[ops_given_++ % kOps];
  op = Op{peer,
          static_cast<std::uint16_t>(is_send ? PAI_TELEMETRY_PEER_SEND : PAI_TELEMETRY_PEER_RECV),
          true, -1};
  return &op;
}

void* Transfers::step_started(const void* parent) {
  if (!attached_.load(std::memory_order_acquire) || forked_from_writer()) return nullptr;
  Lock lock(lock_);
  Op* op = element(ops_, kOps, parent);
  if (op == nullptr || !op->live) return nullptr;
  if (op->slot < 0) {
    const int slot = table_.slot(op->peer, op->direction);
    if (slot < 0) return nullptr;
    op->slot = static_cast<std::int16_t>(slot);
  }
  Step* step = nullptr;
  if (free_steps_ != 0) {
    step = &steps_[free_steps_ - 1];
    free_steps_ = step->next_free;
  } else if (steps_touched_ < kSteps) {
    step = &steps_[steps_touched_++];
  } else {
    table_.count_dropped();
    return nullptr;
  }
  *step = Step{0, op->slot, static_cast<std::uint8_t>(op->direction), kIdle, 0};
  return step;
}

void Transfers::state_recorded(void* handle, ncclProfilerEventState_t state,
                               const ncclProfilerEventStateArgs* args) {
  // Most states NCCL records move no transfer on: they cost no lock.
  if (state != ncclProfilerProxyStepSendWait && state != ncclProfilerProxyStepRecvWait &&
      state != ncclProfilerProxyStepRecvFlushWait) {
    return;
  }
  if (!attached_.load(std::memory_order_acquire) || forked_from_writer()) return;
  Lock lock(lock_);
  Step* step = element(steps_, kSteps, handle);
  if (step == nullptr || step->phase == kFree) return;
  const std::uint64_t bytes = args != nullptr ? args->proxyStep.transSize : 0;
  if (step->direction == PAI_TELEMETRY_PEER_SEND) {
    if (state != ncclProfilerProxyStepSendWait) return;
    // Completed at stopEvent, which has no arguments: the size is kept until then.
    step->bytes = bytes;
    if (step->phase == kIdle) {
      table_.started(step->slot, clock_());
      step->phase = kInFlight;
    }
  } else if (state == ncclProfilerProxyStepRecvWait && step->phase == kIdle) {
    table_.started(step->slot, clock_());
    step->phase = kInFlight;
  } else if (state == ncclProfilerProxyStepRecvFlushWait && step->phase == kInFlight) {
    table_.completed(step->slot, bytes, clock_());
    step->phase = kDone;
  }
}

bool Transfers::stopped(void* handle) {
  if (!attached_.load(std::memory_order_acquire) || forked_from_writer()) return false;
  Lock lock(lock_);
  if (Op* op = element(ops_, kOps, handle)) {
    op->live = false;
    return true;
  }
  Step* step = element(steps_, kSteps, handle);
  if (step == nullptr) return false;
  if (step->phase == kInFlight) {
    // A send completes when the network did; a receive stopped before its data arrived
    // did not complete.
    if (step->direction == PAI_TELEMETRY_PEER_SEND) {
      table_.completed(step->slot, step->bytes, clock_());
    } else {
      table_.abandoned(step->slot, clock_());
    }
  }
  if (step->phase != kFree) {
    step->phase = kFree;
    step->next_free = free_steps_;
    free_steps_ = static_cast<std::uint32_t>(step - steps_) + 1;
  }
  return true;
}

}  // namespace pai::nccl_profiler
