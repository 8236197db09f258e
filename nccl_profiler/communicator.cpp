#include "nccl_profiler/communicator.h"

#include <pai/telemetry.h>
#include <strings.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>

#include "nccl_profiler/lock.h"
#include "nccl_profiler/ring_writer.h"

namespace pai::nccl_profiler {
namespace {

// Handle tags: what stopEvent finds at the address it is given.
constexpr std::uint32_t kCollTag = 0x6c6c6f43;    // "Coll"
constexpr std::uint32_t kKernelTag = 0x6e72654b;  // "Kern"

// NCCL's names are short; a longer string is not one of them (and is not read past this).
constexpr std::size_t kMaxName = 32;

bool named(const char* s, const char* name) { return ::strncasecmp(s, name, kMaxName) == 0; }

}  // namespace

std::uint16_t collective_op(const char* func) {
  struct Name {
    const char* name;
    std::uint16_t op;
  };
  static constexpr Name kOps[] = {
      {"AllReduce", PAI_TELEMETRY_OP_ALL_REDUCE},
      {"Broadcast", PAI_TELEMETRY_OP_BROADCAST},
      {"AllGather", PAI_TELEMETRY_OP_ALL_GATHER},
      {"ReduceScatter", PAI_TELEMETRY_OP_REDUCE_SCATTER},
      {"AlltoAll", PAI_TELEMETRY_OP_ALL_TO_ALL},
      {"Reduce", PAI_TELEMETRY_OP_REDUCE},
      {"Gather", PAI_TELEMETRY_OP_GATHER},
      {"Scatter", PAI_TELEMETRY_OP_SCATTER},
      {"Send", PAI_TELEMETRY_OP_SEND},
      {"Recv", PAI_TELEMETRY_OP_RECV},
  };
  if (func == nullptr) return PAI_TELEMETRY_OP_OTHER;
  for (const Name& n : kOps) {
    if (named(func, n.name)) return n.op;
  }
  return PAI_TELEMETRY_OP_OTHER;
}

std::uint64_t payload_bytes(std::size_t count, const char* name) {
  struct Size {
    const char* name;
    std::uint64_t bytes;
  };
  static constexpr Size kSizes[] = {
      {"ncclInt8", 1},    {"ncclUint8", 1},    {"ncclInt32", 4},      {"ncclUint32", 4},
      {"ncclInt64", 8},   {"ncclUint64", 8},   {"ncclFloat16", 2},    {"ncclFloat32", 4},
      {"ncclFloat64", 8}, {"ncclBfloat16", 2}, {"ncclFloat8e4m3", 1}, {"ncclFloat8e5m2", 1},
  };
  if (name == nullptr) return 0;
  for (const Size& s : kSizes) {
    if (named(name, s.name)) {
      const std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
      return count > max / s.bytes ? max : count * s.bytes;
    }
  }
  return 0;
}

Communicator::Communicator(std::uint32_t group, bool wait_for_kernels)
    : group_(group), wait_for_kernels_(wait_for_kernels) {
  std::memset(slots_, 0, sizeof slots_);
}

Communicator* Communicator::create(std::uint32_t group, bool wait_for_kernels) {
  // malloc, not operator new: the plugin needs nothing of libstdc++ at run time.
  void* memory = std::malloc(sizeof(Communicator));
  return memory == nullptr ? nullptr : new (memory) Communicator(group, wait_for_kernels);
}

void Communicator::destroy(Communicator* comm) {
  if (comm == nullptr) return;
  {
    Lock lock(comm->lock_);
    for (std::uint64_t seq = comm->oldest_open_; seq <= comm->last_seq_; ++seq) {
      Collective& c = comm->slot(seq);
      if (c.seq == seq && !c.exited) comm->exit(c);
    }
  }
  pthread_mutex_destroy(&comm->lock_);
  comm->~Communicator();
  std::free(comm);
}

void* Communicator::collective_started(const char* func, std::size_t count, const char* datatype) {
  Lock lock(lock_);
  const std::uint64_t seq = ++last_seq_;
  Collective& c = slot(seq);
  // A collective still open kSlots collectives later is given up: it stays open in the ring.
  c = Collective{
      kCollTag, kKernelTag, this, seq, payload_bytes(count, datatype), collective_op(func),
      false,    false,      0,    0};
  if (oldest_open_ + kSlots <= seq) oldest_open_ = seq - kSlots + 1;
  ring_append(PAI_TELEMETRY_COLLECTIVE_ENTER, c.op, group_, c.seq, c.bytes);
  return &c.coll_tag;
}

void* Communicator::kernel_started(const void* parent) {
  // Only a pointer comparison: `parent` comes from NCCL and is read only once it is known
  // to be one of this communicator's slots.
  const auto at = reinterpret_cast<std::uintptr_t>(parent);
  const auto first = reinterpret_cast<std::uintptr_t>(&slots_[0]);
  if (at < first || at >= first + sizeof slots_ || (at - first) % sizeof(Collective) != 0) {
    return nullptr;
  }
  Lock lock(lock_);
  Collective& c = slots_[(at - first) / sizeof(Collective)];
  if (c.seq == 0) return nullptr;
  ++c.kernels_started;
  ++c.kernels_open;
  // A communicator's kernels run one after another: once this one runs, the collectives
  // before it are done, including any whose kernel NCCL reported no channel of.
  for (std::uint64_t seq = oldest_open_; seq < c.seq; ++seq) {
    Collective& earlier = slot(seq);
    if (earlier.seq == seq && earlier.enqueued && earlier.kernels_open == 0 && !earlier.exited) {
      exit(earlier);
    }
  }
  return &c.kernel_tag;
}

void Communicator::event_stopped(void* handle) {
  if (handle == nullptr) return;
  const std::uint32_t tag = *static_cast<const std::uint32_t*>(handle);
  if (tag == kCollTag) {
    auto* c =
        reinterpret_cast<Collective*>(static_cast<char*>(handle) - offsetof(Collective, coll_tag));
    c->comm->enqueued(*c);
  } else if (tag == kKernelTag) {
    auto* c = reinterpret_cast<Collective*>(static_cast<char*>(handle) -
                                            offsetof(Collective, kernel_tag));
    c->comm->kernel_stopped(*c);
  }
}

void Communicator::enqueued(Collective& c) {
  Lock lock(lock_);
  c.enqueued = true;
  exit_if_done(c);
}

void Communicator::kernel_stopped(Collective& c) {
  Lock lock(lock_);
  if (c.kernels_open > 0) --c.kernels_open;
  exit_if_done(c);
}

void Communicator::exit_if_done(Collective& c) {
  if (!c.exited && c.enqueued && c.kernels_open == 0 &&
      (c.kernels_started > 0 || !wait_for_kernels_)) {
    exit(c);
  }
}

void Communicator::exit(Collective& c) {
  c.exited = true;
  ring_append(PAI_TELEMETRY_COLLECTIVE_EXIT, c.op, group_, c.seq, c.bytes);
  while (oldest_open_ <= last_seq_) {
    const Collective& oldest = slot(oldest_open_);
    if (oldest.seq == oldest_open_ && !oldest.exited) break;
    ++oldest_open_;
  }
}

}  // namespace pai::nccl_profiler
