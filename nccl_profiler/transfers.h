// The world communicator's network transfers per peer: NCCL's proxy-operation and proxy-step
// events (one step is one network send or receive of a channel) turned into the per-peer
// table named by PAI_TELEMETRY_PEERS_FILE (include/pai/telemetry.h, "The per-peer table").
#pragma once

#include <pthread.h>
#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "nccl_profiler/nccl_profiler_api.h"
#include "nccl_profiler/peer_table.h"
#include "nccl_profiler/shared_file.h"

namespace pai::nccl_profiler {

/// One communicator's transfers (the world's: its ranks are the global ranks the table names)
/// recorded into the per-peer table. Thread-safe: NCCL's proxy thread sends the proxy events,
/// other threads create and destroy communicators. No allocation per event: the handles NCCL
/// gets come from fixed pools allocated when the table is attached.
///
/// A send transfer starts when the step is posted to the network (SendWait) and completes when
/// NCCL stops the step (the network completed it); a receive starts when posted (RecvWait) and
/// completes when its data arrived (RecvFlushWait). Its bytes are the state's transSize.
class Transfers {
 public:
  using Clock = std::uint64_t (*)();
  /// Proxy operations handed out before a handle is reused: NCCL stops only those of network
  /// transports, so operation handles are a ring, not a pool that could run dry.
  static constexpr std::uint32_t kOps = 16384;
  /// Steps in flight at once (NCCL keeps at most 8 per operation); beyond, a step gets no
  /// handle and the header's `dropped` counts it.
  static constexpr std::uint32_t kSteps = 8192;

  /// Times transfers with `clock` (CLOCK_MONOTONIC nanoseconds in the plugin).
  explicit Transfers(Clock clock) : clock_(clock) {}
  /// Detaches: an object that may still get events must not be destroyed.
  ~Transfers();
  Transfers(const Transfers&) = delete;
  Transfers& operator=(const Transfers&) = delete;

  /// Starts recording the transfers of communicator `owner` (its profiler context: compared
  /// with the contexts of events, never read) of `nranks` ranks into the table at
  /// $PAI_TELEMETRY_PEERS_FILE, taking the writer's lock and storing this process's pid as
  /// its writer. False, and nothing recorded, when another communicator is recorded, without
  /// the variable, for a file that is no table, when another process writes it, when out of
  /// memory, or in a process forked from a writer.
  bool attach(const void* owner, int nranks);
  /// Stops recording `owner`'s transfers (nothing when it is not the one recorded): those in
  /// flight end now, every handle given out is forgotten, the table is unmapped.
  void detach(const void* owner);

  /// startEvent of a ProxyOp: a handle for an operation of communicator `context` issued by
  /// process `pid` with `peer`; null when the context is not the recorded one (context is
  /// not read: under PXN it is another process's), the pid is not this process's, or the peer
  /// is out of range.
  void* op_started(const void* context, pid_t pid, int peer, bool is_send);
  /// startEvent of a ProxyStep under `parent`: a handle, or null when `parent` is not an
  /// operation handle this object gave out and has not seen stopped, when its peer has no
  /// slot left in the table, or when every step handle is in use (counted as dropped).
  void* step_started(const void* parent);
  /// recordEventState: SendWait, RecvWait and RecvFlushWait of a step handle this object gave
  /// out move its transfer on; every other state and handle is ignored. `args` may be null.
  void state_recorded(void* handle, ncclProfilerEventState_t state,
                      const ncclProfilerEventStateArgs* args);
  /// stopEvent: true when `handle` is one this object gave out (which it then ends), false for
  /// any other (compared with its pools, never read).
  bool stopped(void* handle);

 private:
  struct Op;
  struct Step;

  Clock clock_;
  std::atomic<bool> attached_{false};  // read without the lock by events of other kinds
  pthread_mutex_t lock_ = PTHREAD_MUTEX_INITIALIZER;
  SharedFile file_;
  PeerTable table_;
  const void* owner_ = nullptr;
  int nranks_ = 0;
  pid_t pid_ = 0;
  Op* ops_ = nullptr;  // kOps, a ring
  std::uint64_t ops_given_ = 0;
  Step* steps_ = nullptr;            // kSteps
  std::uint32_t steps_touched_ = 0;  // steps_[0, steps_touched_) have been handed out
  std::uint32_t free_steps_ = 0;     // first free one of those + 1; 0: none
};

}  // namespace pai::nccl_profiler
