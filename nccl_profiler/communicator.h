// One NCCL communicator as the plugin sees it: its collectives, numbered 1, 2, ... in the
// order this rank issues them (the same order on every rank: NCCL requires it), each recorded
// as COLLECTIVE_ENTER when NCCL starts its Coll event and COLLECTIVE_EXIT when its GPU work is
// known to be done (see docs/diagnosis.md, "NCCL jobs without the SDK").
#pragma once

#include <pthread.h>

#include <cstddef>
#include <cstdint>

namespace pai::nccl_profiler {

class Communicator;

/// One collective: the object behind the handles NCCL gets for its Coll event (the address of
/// `coll_tag`) and for that collective's kernel-channel events (the address of `kernel_tag`).
struct Collective {
  std::uint32_t coll_tag;
  std::uint32_t kernel_tag;
  Communicator* comm;
  std::uint64_t seq;  ///< 0: the slot never held a collective
  std::uint64_t bytes;
  std::uint16_t op;
  bool enqueued;  ///< NCCL stopped the Coll event: the work is queued on the GPU
  bool exited;    ///< COLLECTIVE_EXIT written (or given up: slot reused)
  int kernels_started;
  int kernels_open;
};

/// The op code (enum pai_telemetry_op) of NCCL's name of a collective ("AllReduce", ...);
/// OTHER for names it does not know or null.
std::uint16_t collective_op(const char* func);
/// Bytes of `count` elements of NCCL's datatype `name` ("ncclFloat32", ...): 0 (unknown) for
/// names it does not know or null; saturates instead of overflowing.
std::uint64_t payload_bytes(std::size_t count, const char* name);

/// The collectives of one communicator. Thread-safe: NCCL starts Coll events in the threads
/// that call it and kernel-channel events in its proxy thread.
class Communicator {
 public:
  /// Collectives tracked at once; the slot of collective n is reused by n + kSlots.
  static constexpr std::uint64_t kSlots = 1024;

  /// Allocates a communicator whose records carry `group`; with `wait_for_kernels` false
  /// (a one-rank communicator, which runs no kernel NCCL reports) a collective exits as soon
  /// as it is enqueued. Null when out of memory.
  static Communicator* create(std::uint32_t group, bool wait_for_kernels);
  /// Records the exit of every collective not exited yet (the communicator is going away:
  /// nothing of it can be waited on any more), then frees it.
  static void destroy(Communicator* comm);

  std::uint32_t group() const { return group_; }

  /// NCCL started a Coll event: numbers it, records its enter; returns its handle.
  void* collective_started(const char* func, std::size_t count, const char* datatype);
  /// NCCL started a kernel-channel event under `parent` (a Coll handle); returns the event's
  /// handle, or null when `parent` is not one of this communicator's collectives.
  void* kernel_started(const void* parent);

  /// stopEvent for any handle these functions returned; null is ignored.
  static void event_stopped(void* handle);

 private:
  Communicator(std::uint32_t group, bool wait_for_kernels);
  Collective& slot(std::uint64_t seq) { return slots_[seq % kSlots]; }
  void enqueued(Collective& c);
  void kernel_stopped(Collective& c);
  // Records c's exit when it is done; callers hold lock_.
  void exit_if_done(Collective& c);
  void exit(Collective& c);

  pthread_mutex_t lock_ = PTHREAD_MUTEX_INITIALIZER;
  std::uint32_t group_;
  bool wait_for_kernels_;
  std::uint64_t last_seq_ = 0;
  std::uint64_t oldest_open_ = 1;  // every collective below it has exited
  Collective slots_[kSlots];
};

}  // namespace pai::nccl_profiler
