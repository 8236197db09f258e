/* pai/telemetry.h: the per-rank telemetry ring of pai-launch (C99 and C++; no dependencies).
 *
 * For every rank it starts, pai-launch creates a file in the instance's private control folder,
 * `<control folder>/<role>-<i>.rank-<global rank>.telemetry` (mode 0600, fresh for every
 * attempt), and names it in the rank's environment as PAI_TELEMETRY_FILE. The rank (the writer)
 * maps it shared and appends step and collective records; the launcher (the reader) maps it
 * read-only and follows them. Writing a record is a few stores into the mapping: no system call.
 * Python writes it with pai.telemetry (sdk/python/pai/telemetry.py); this header lets C and C++
 * programs do the same.
 *
 * Layout: little-endian, fixed sizes, PAI_TELEMETRY_FILE_SIZE(capacity) bytes in all.
 *
 *   offset 0     pai_telemetry_header (64 bytes): magic "PAIT", version 1, record size 64,
 *                capacity (records, a power of two), global rank (set by the launcher), writer
 *                pid (set by the writer when it attaches), at offset 24 the drill's hold (set
 *                by the launcher; see "The drill's hold" below), the rest reserved zero.
 *   offset 64    uint64 head: the number of records ever written, alone in its cache line.
 *   offset 128   capacity records of 64 bytes (pai_telemetry_record); record n (0-based)
 *                lives in slot n % capacity.
 *
 * Writing record n = head (one writer; see "Writers" below):
 *   1. slot.seq = 0                      the slot is being written
 *   2. the body (every field but seq)    after a release fence
 *   3. slot.seq = n + 1                  release
 *   4. head = n + 1                      release
 * pai_telemetry_append() below does exactly this.
 *
 * Reading (seqlock style): a reader that expects record n, with n < head (head loaded with
 * acquire), loads the slot's seq (acquire), copies the body, and loads seq again after an
 * acquire fence. It finds the slot with the capacity it checked against the file's size when
 * it mapped the file, never one read again from the header (which the writer can change). It
 * accepts the copy only if both loads equal n + 1; otherwise the record was overwritten (the
 * writer lapped the reader: more than capacity records since its last look) or is being
 * overwritten, and it is counted lost, never misread. Records older than head - capacity are
 * lost without looking. pai_telemetry_read() below does this.
 *
 * Writers: exactly one process writes a ring. A writer takes flock(fd, LOCK_EX | LOCK_NB) on
 * the file and writes only if it got the lock (a `torchrun` started as one rank passes the
 * variable to all its workers: the first one to attach writes, the others do not), then stores
 * its pid in writer_pid, and continues from the current head. Python's pai.telemetry stores
 * with plain writes through its mmap (struct.pack_into) in the same order, without fences: on
 * x86 (TSO) other processes see them in that order; on ARM the CPU may reorder them, so a
 * reader there could, rarely, accept a record whose body is not wholly visible yet (the seq
 * checks still reject every record overwritten by a lapping writer once its seq changed).
 * C and C++ writers using pai_telemetry_append() have no such window.
 *
 * Times are CLOCK_MONOTONIC nanoseconds (Python: time.monotonic_ns()), comparable across the
 * processes of one machine.
 *
 * The drill's hold: `pai-launch drill`'s collective-hang fault (docs/drill.md) makes a rank hang
 * inside a collective by storing a CLOCK_MONOTONIC deadline in drill_until_ns (an 8-byte store
 * into the file; 0 clears it). A writer that supports it (pai.telemetry's wrappers) reads the
 * word when a collective it records has completed, before it records the exit: while the word
 * is later than now, it waits there, reading the word again at least every 50 ms, so that the
 * collective stays open in the ring after its peers completed it. The deadline bounds the wait
 * even if the launcher dies; a word more than PAI_TELEMETRY_MAX_HOLD_NS ahead of now is not a
 * deadline the launcher wrote (a torn read, a stray write) and is ignored. A writer that never
 * reads the word is unaffected: the fault then does nothing, and the drill's scorecard says
 * that nothing detected it.
 *
 * A second, separate file, the per-peer table, is described further down ("The per-peer
 * table"): what pai's NCCL profiler plugin measures of the network transfers to and from each
 * peer rank. The ring's layout does not depend on it.
 */
#ifndef PAI_TELEMETRY_H
#define PAI_TELEMETRY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** "PAIT" as the little-endian bytes 'P','A','I','T'. */
#define PAI_TELEMETRY_MAGIC 0x54494150u
/** The layout described here. */
#define PAI_TELEMETRY_VERSION 1u
/** Bytes per record. */
#define PAI_TELEMETRY_RECORD_SIZE 64u
/** Offset of the head counter. */
#define PAI_TELEMETRY_HEAD_OFFSET 64u
/** Offset of the first record (and size of everything before the records). */
#define PAI_TELEMETRY_RECORDS_OFFSET 128u
/** Records in the rings pai-launch creates. */
#define PAI_TELEMETRY_DEFAULT_CAPACITY 1024u
/** Largest capacity a reader accepts (a 64 MiB file). */
#define PAI_TELEMETRY_MAX_CAPACITY (1u << 20)
/** Offset of pai_telemetry_header.drill_until_ns. */
#define PAI_TELEMETRY_DRILL_UNTIL_OFFSET 24u
/** The longest hold a writer honours: a drill's longest fault (an hour) and a minute. */
#define PAI_TELEMETRY_MAX_HOLD_NS (3660ull * 1000000000ull)
/** Size in bytes of the file of a ring of `capacity` records. */
#define PAI_TELEMETRY_FILE_SIZE(capacity) \
  ((uint64_t)PAI_TELEMETRY_RECORDS_OFFSET + (uint64_t)(capacity)*PAI_TELEMETRY_RECORD_SIZE)

/** pai_telemetry_record.kind */
enum pai_telemetry_kind {
  PAI_TELEMETRY_STEP_BEGIN = 1,
  PAI_TELEMETRY_STEP_END = 2,
  PAI_TELEMETRY_COLLECTIVE_ENTER = 3,
  PAI_TELEMETRY_COLLECTIVE_EXIT = 4
};

/** pai_telemetry_record.op: the collective; NONE for step records. */
enum pai_telemetry_op {
  PAI_TELEMETRY_OP_NONE = 0,
  PAI_TELEMETRY_OP_ALL_REDUCE = 1,
  PAI_TELEMETRY_OP_BROADCAST = 2,
  PAI_TELEMETRY_OP_ALL_GATHER = 3,
  PAI_TELEMETRY_OP_REDUCE_SCATTER = 4,
  PAI_TELEMETRY_OP_BARRIER = 5,
  PAI_TELEMETRY_OP_ALL_TO_ALL = 6,
  PAI_TELEMETRY_OP_SEND = 7,
  PAI_TELEMETRY_OP_RECV = 8,
  PAI_TELEMETRY_OP_REDUCE = 9,
  PAI_TELEMETRY_OP_GATHER = 10,
  PAI_TELEMETRY_OP_SCATTER = 11,
  PAI_TELEMETRY_OP_OTHER = 255
};

/** The file's first 64 bytes. */
typedef struct pai_telemetry_header {
  uint32_t magic;       /**< PAI_TELEMETRY_MAGIC */
  uint16_t version;     /**< PAI_TELEMETRY_VERSION */
  uint16_t record_size; /**< PAI_TELEMETRY_RECORD_SIZE */
  uint32_t capacity;    /**< records; a power of two */
  int32_t rank;         /**< global rank, set by the launcher */
  int32_t writer_pid;   /**< set by the writer when it attaches; 0 before */
  uint32_t reserved0;   /**< zero */
  /** The drill's hold: CLOCK_MONOTONIC nanoseconds until which the writer stays inside the
   * collectives it completes; 0: none. Set and cleared by the launcher. */
  uint64_t drill_until_ns;
  uint8_t reserved[32]; /**< zero */
} pai_telemetry_header;

/** One record, at PAI_TELEMETRY_RECORDS_OFFSET + (n % capacity) * 64. */
typedef struct pai_telemetry_record {
  uint64_t seq;            /**< n + 1 once record n is complete; 0 while being written */
  uint64_t time_ns;        /**< CLOCK_MONOTONIC nanoseconds */
  uint16_t kind;           /**< enum pai_telemetry_kind */
  uint16_t op;             /**< enum pai_telemetry_op */
  uint32_t group;          /**< process group id; 0 = the default (world) group */
  int64_t step;            /**< training step; -1 unknown */
  uint64_t collective_seq; /**< per group, increasing; 0 for step records */
  uint64_t bytes;          /**< payload of the collective; 0 unknown */
  uint8_t reserved[16];    /**< zero */
} pai_telemetry_record;

#if defined(__cplusplus)
#define PAI_TELEMETRY_STATIC_ASSERT(cond, name) static_assert(cond, #name)
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define PAI_TELEMETRY_STATIC_ASSERT(cond, name) _Static_assert(cond, #name)
#else /* C99: an array of negative size fails to compile */
#define PAI_TELEMETRY_STATIC_ASSERT(cond, name) \
  typedef char pai_telemetry_assert_##name[(cond) ? 1 : -1]
#endif

PAI_TELEMETRY_STATIC_ASSERT(sizeof(pai_telemetry_header) == 64, header_is_64_bytes);
PAI_TELEMETRY_STATIC_ASSERT(offsetof(pai_telemetry_header, capacity) == 8, capacity_at_8);
PAI_TELEMETRY_STATIC_ASSERT(offsetof(pai_telemetry_header, rank) == 12, rank_at_12);
PAI_TELEMETRY_STATIC_ASSERT(offsetof(pai_telemetry_header, writer_pid) == 16, writer_pid_at_16);
PAI_TELEMETRY_STATIC_ASSERT(offsetof(pai_telemetry_header, drill_until_ns) ==
                                PAI_TELEMETRY_DRILL_UNTIL_OFFSET,
                            drill_until_ns_at_24);
PAI_TELEMETRY_STATIC_ASSERT(sizeof(pai_telemetry_record) == PAI_TELEMETRY_RECORD_SIZE,
                            record_is_64_bytes);
PAI_TELEMETRY_STATIC_ASSERT(offsetof(pai_telemetry_record, time_ns) == 8, time_at_8);
PAI_TELEMETRY_STATIC_ASSERT(offsetof(pai_telemetry_record, kind) == 16, kind_at_16);
PAI_TELEMETRY_STATIC_ASSERT(offsetof(pai_telemetry_record, op) == 18, op_at_18);
PAI_TELEMETRY_STATIC_ASSERT(offsetof(pai_telemetry_record, group) == 20, group_at_20);
PAI_TELEMETRY_STATIC_ASSERT(offsetof(pai_telemetry_record, step) == 24, step_at_24);
PAI_TELEMETRY_STATIC_ASSERT(offsetof(pai_telemetry_record, collective_seq) == 32,
                            collective_seq_at_32);
PAI_TELEMETRY_STATIC_ASSERT(offsetof(pai_telemetry_record, bytes) == 40, bytes_at_40);

#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && \
    __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "pai/telemetry.h: the ring is little-endian; this header maps it as native structs"
#endif

/** Fills `h` as the header of a fresh ring: magic, version, record size, `capacity` (a power
 * of two), `rank`; writer_pid and the reserved bytes zero. */
static inline void pai_telemetry_header_init(pai_telemetry_header* h, uint32_t capacity,
                                             int32_t rank) {
  size_t i;
  h->magic = PAI_TELEMETRY_MAGIC;
  h->version = (uint16_t)PAI_TELEMETRY_VERSION;
  h->record_size = (uint16_t)PAI_TELEMETRY_RECORD_SIZE;
  h->capacity = capacity;
  h->rank = rank;
  h->writer_pid = 0;
  h->reserved0 = 0;
  h->drill_until_ns = 0;
  for (i = 0; i < sizeof h->reserved; ++i) h->reserved[i] = 0;
}

/** The head counter of the ring mapped at `base`. */
static inline uint64_t* pai_telemetry_head(void* base) {
  return (uint64_t*)((char*)base + PAI_TELEMETRY_HEAD_OFFSET);
}

/** The offset in the file of the slot of record `n` (0-based) in a ring of `capacity`. */
static inline uint64_t pai_telemetry_slot_offset(uint32_t capacity, uint64_t n) {
  return PAI_TELEMETRY_RECORDS_OFFSET + (n & (uint64_t)(capacity - 1u)) * PAI_TELEMETRY_RECORD_SIZE;
}

/** The slot of record `n` (0-based) of the ring mapped at `base`, for its writer: the capacity
 * comes from the header. */
static inline pai_telemetry_record* pai_telemetry_slot(void* base, uint64_t n) {
  const uint32_t capacity = ((const pai_telemetry_header*)base)->capacity;
  return (pai_telemetry_record*)((char*)base + pai_telemetry_slot_offset(capacity, n));
}

#if defined(__GNUC__) || defined(__clang__)

/** Appends `record` (its seq and reserved bytes are ignored) to the ring mapped writable and
 * shared at `base`, whose header is valid. Only the ring's one writer may call it. */
static inline void pai_telemetry_append(void* base, const pai_telemetry_record* record) {
  uint64_t* head = pai_telemetry_head(base);
  const uint64_t n = __atomic_load_n(head, __ATOMIC_RELAXED);
  pai_telemetry_record* slot = pai_telemetry_slot(base, n);
  size_t i;
  __atomic_store_n(&slot->seq, (uint64_t)0, __ATOMIC_RELAXED);
  __atomic_thread_fence(__ATOMIC_RELEASE);
  slot->time_ns = record->time_ns;
  slot->kind = record->kind;
  slot->op = record->op;
  slot->group = record->group;
  slot->step = record->step;
  slot->collective_seq = record->collective_seq;
  slot->bytes = record->bytes;
  for (i = 0; i < sizeof slot->reserved; ++i) slot->reserved[i] = 0;
  __atomic_store_n(&slot->seq, n + 1, __ATOMIC_RELEASE);
  __atomic_store_n(head, n + 1, __ATOMIC_RELEASE);
}

/** The number of records ever written to the ring mapped at `base` (acquire). */
static inline uint64_t pai_telemetry_load_head(const void* base) {
  return __atomic_load_n((const uint64_t*)((const char*)base + PAI_TELEMETRY_HEAD_OFFSET),
                         __ATOMIC_ACQUIRE);
}

/** Copies record `n` of the ring of `capacity` records mapped at `base` into `*out`, which is
 * valid only when this returns 1: 0 means the slot holds another record now (overwritten, or
 * being written). Call it only for n < pai_telemetry_load_head(base). `capacity` is the one the
 * reader checked against the file's size when it mapped it: the writer can change the header. */
static inline int pai_telemetry_read(const void* base, uint32_t capacity, uint64_t n,
                                     pai_telemetry_record* out) {
  const pai_telemetry_record* slot =
      (const pai_telemetry_record*)((const char*)base + pai_telemetry_slot_offset(capacity, n));
  size_t i;
  if (__atomic_load_n(&slot->seq, __ATOMIC_ACQUIRE) != n + 1) return 0;
  out->time_ns = __atomic_load_n(&slot->time_ns, __ATOMIC_RELAXED);
  out->kind = __atomic_load_n(&slot->kind, __ATOMIC_RELAXED);
  out->op = __atomic_load_n(&slot->op, __ATOMIC_RELAXED);
  out->group = __atomic_load_n(&slot->group, __ATOMIC_RELAXED);
  out->step = __atomic_load_n(&slot->step, __ATOMIC_RELAXED);
  out->collective_seq = __atomic_load_n(&slot->collective_seq, __ATOMIC_RELAXED);
  out->bytes = __atomic_load_n(&slot->bytes, __ATOMIC_RELAXED);
  for (i = 0; i < sizeof out->reserved; ++i) out->reserved[i] = 0;
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
  if (__atomic_load_n(&slot->seq, __ATOMIC_RELAXED) != n + 1) return 0;
  out->seq = n + 1;
  return 1;
}

#endif /* __GNUC__ || __clang__ */

/* ---- The per-peer table -------------------------------------------------------------------
 *
 * Next to each rank's ring pai-launch creates `<ring path>.peers` (mode 0600, fresh for every
 * attempt) and names it in the rank's environment as PAI_TELEMETRY_PEERS_FILE. pai's NCCL
 * profiler plugin (libpai-nccl-profiler.so) writes it: for the world communicator it keeps one
 * slot per (peer global rank, direction) and updates it in place whenever NCCL's proxy thread
 * starts or completes a network transfer, so that a reader can tell at any moment how fast
 * data moved to and from each peer and whether transfers to one have stopped completing (a
 * stalled link or node). The launcher reads it once per heartbeat.
 *
 * Layout: little-endian, fixed sizes, PAI_TELEMETRY_PEERS_FILE_SIZE(slots) bytes in all.
 *
 *   offset 0    pai_telemetry_peers_header (64 bytes): magic "PAIP", version 1, slot size 64,
 *               slots (the table's capacity), global rank (set by the launcher), writer pid
 *               (set by the writer when it attaches), used (slots 0 .. used-1 are in use),
 *               unplaced (transfers not recorded because every slot was taken), dropped
 *               (proxy events not recorded because the writer's fixed pools of event handles
 *               were full), the rest reserved zero.
 *   offset 64   `slots` slots of 64 bytes (pai_telemetry_peer). A slot, once given to a
 *               (peer, direction), keeps it for the file's life; slots are given in order.
 *
 * A slot's figures are cumulative since the file was created, 64-bit (bytes would wrap after
 * 16 EiB, nanoseconds after 584 years: a reader takes a decrease for a writer that started
 * over, as with any counter reset):
 *
 *   bytes, transfers  completed transfers and their bytes. A send is one NCCL network send (a
 *                     proxy step): from posted to the network to completed by it. A receive
 *                     is from posted to data arrived, so its time includes waiting for the
 *                     peer to send: send rates measure the link, receives the peer and link.
 *   busy_ns           the time with at least one transfer in flight, over the intervals
 *                     closed so far: the union of the transfers' intervals, not the sum of
 *                     their durations (NCCL keeps up to 8 transfers per channel in flight).
 *   in_flight         transfers in flight now.
 *   busy_since_ns     while in_flight > 0: when in_flight last went from 0 to 1, the start of
 *                     the open interval (not in busy_ns yet).
 *   last_done_ns      the last completion; 0 before the first.
 *
 * So at any time t (pai_telemetry_peer_busy_ns and pai_telemetry_peer_stalled_ns below):
 *   busy(t)    = busy_ns + (in_flight > 0 ? t - busy_since_ns : 0); between two reads the
 *                link's rate is (bytes2 - bytes1) / (busy(t2) - busy(t1)): bytes per second
 *                of the time it was in use, however idle it was otherwise;
 *   stalled(t) = in_flight > 0 ? t - max(busy_since_ns, last_done_ns) : none: for how long
 *                transfers have been in flight without a single one completing.
 *
 * Writing (exactly one writer, chosen as for the ring: flock(fd, LOCK_EX | LOCK_NB)): a slot
 * is a seqlock. pai_telemetry_peer_write_begin() makes seq odd, the writer stores the body,
 * pai_telemetry_peer_write_end() makes seq even again (release). A new slot i is written that
 * way, with its peer and direction, before used becomes i + 1 (a release store).
 * Reading: used (acquire), then for each slot below it, and below the slot count the reader
 * checked against the file's size when it mapped it, pai_telemetry_peer_read(): seq
 * (acquire), the body, seq again after an acquire fence; the copy is good only when both are
 * equal, even and not zero. A reader may retry a torn copy; it never blocks the writer.
 */

/** "PAIP" as the little-endian bytes 'P','A','I','P'. */
#define PAI_TELEMETRY_PEERS_MAGIC 0x50494150u
/** The layout described here. */
#define PAI_TELEMETRY_PEERS_VERSION 1u
/** Bytes per slot. */
#define PAI_TELEMETRY_PEERS_SLOT_SIZE 64u
/** Offset of the first slot (the header's size). */
#define PAI_TELEMETRY_PEERS_SLOTS_OFFSET 64u
/** Slots in the tables pai-launch creates. */
#define PAI_TELEMETRY_PEERS_DEFAULT_SLOTS 1024u
/** Largest slot count a reader or writer accepts. */
#define PAI_TELEMETRY_PEERS_MAX_SLOTS 4096u
/** Size in bytes of the file of a table of `slots` slots. */
#define PAI_TELEMETRY_PEERS_FILE_SIZE(slots) \
  ((uint64_t)PAI_TELEMETRY_PEERS_SLOTS_OFFSET + (uint64_t)(slots)*PAI_TELEMETRY_PEERS_SLOT_SIZE)

/** pai_telemetry_peer.direction: data sent to the peer, or received from it. */
enum pai_telemetry_peer_direction { PAI_TELEMETRY_PEER_SEND = 1, PAI_TELEMETRY_PEER_RECV = 2 };

/** The per-peer table's first 64 bytes. */
typedef struct pai_telemetry_peers_header {
  uint32_t magic;       /**< PAI_TELEMETRY_PEERS_MAGIC */
  uint16_t version;     /**< PAI_TELEMETRY_PEERS_VERSION */
  uint16_t slot_size;   /**< PAI_TELEMETRY_PEERS_SLOT_SIZE */
  uint32_t slots;       /**< slots in the file, 1 .. PAI_TELEMETRY_PEERS_MAX_SLOTS */
  int32_t rank;         /**< global rank, set by the launcher */
  int32_t writer_pid;   /**< set by the writer when it attaches; 0 before */
  uint32_t used;        /**< slots in use, <= slots (release-stored by the writer) */
  uint64_t unplaced;    /**< transfers not recorded: no slot was left for their peer */
  uint64_t dropped;     /**< proxy events not recorded: the writer's handle pools were full */
  uint8_t reserved[24]; /**< zero */
} pai_telemetry_peers_header;

/** One (peer, direction), at PAI_TELEMETRY_PEERS_SLOTS_OFFSET + i * 64. */
typedef struct pai_telemetry_peer {
  uint64_t seq;           /**< seqlock: odd while being written, even and > 0 once written */
  int32_t peer;           /**< the peer's global rank */
  uint16_t direction;     /**< enum pai_telemetry_peer_direction */
  uint16_t reserved0;     /**< zero */
  uint64_t bytes;         /**< of the completed transfers */
  uint64_t transfers;     /**< completed */
  uint64_t busy_ns;       /**< time with a transfer in flight, closed intervals */
  uint64_t busy_since_ns; /**< start of the open interval, while in_flight > 0 */
  uint64_t last_done_ns;  /**< CLOCK_MONOTONIC of the last completion; 0: none yet */
  uint32_t in_flight;     /**< transfers in flight now */
  uint32_t reserved1;     /**< zero */
} pai_telemetry_peer;

PAI_TELEMETRY_STATIC_ASSERT(sizeof(pai_telemetry_peers_header) == PAI_TELEMETRY_PEERS_SLOTS_OFFSET,
                            peers_header_is_64_bytes);
PAI_TELEMETRY_STATIC_ASSERT(offsetof(pai_telemetry_peers_header, slots) == 8, peers_slots_at_8);
PAI_TELEMETRY_STATIC_ASSERT(offsetof(pai_telemetry_peers_header, rank) == 12, peers_rank_at_12);
PAI_TELEMETRY_STATIC_ASSERT(offsetof(pai_telemetry_peers_header, writer_pid) == 16,
                            peers_writer_pid_at_16);
PAI_TELEMETRY_STATIC_ASSERT(offsetof(pai_telemetry_peers_header, used) == 20, peers_used_at_20);
PAI_TELEMETRY_STATIC_ASSERT(offsetof(pai_telemetry_peers_header, unplaced) == 24,
                            peers_unplaced_at_24);
PAI_TELEMETRY_STATIC_ASSERT(offsetof(pai_telemetry_peers_header, dropped) == 32,
                            peers_dropped_at_32);
PAI_TELEMETRY_STATIC_ASSERT(sizeof(pai_telemetry_peer) == PAI_TELEMETRY_PEERS_SLOT_SIZE,
                            peer_slot_is_64_bytes);
PAI_TELEMETRY_STATIC_ASSERT(offsetof(pai_telemetry_peer, peer) == 8, peer_at_8);
PAI_TELEMETRY_STATIC_ASSERT(offsetof(pai_telemetry_peer, direction) == 12, direction_at_12);
PAI_TELEMETRY_STATIC_ASSERT(offsetof(pai_telemetry_peer, bytes) == 16, peer_bytes_at_16);
PAI_TELEMETRY_STATIC_ASSERT(offsetof(pai_telemetry_peer, transfers) == 24, transfers_at_24);
PAI_TELEMETRY_STATIC_ASSERT(offsetof(pai_telemetry_peer, busy_ns) == 32, busy_ns_at_32);
PAI_TELEMETRY_STATIC_ASSERT(offsetof(pai_telemetry_peer, busy_since_ns) == 40, busy_since_ns_at_40);
PAI_TELEMETRY_STATIC_ASSERT(offsetof(pai_telemetry_peer, last_done_ns) == 48, last_done_ns_at_48);
PAI_TELEMETRY_STATIC_ASSERT(offsetof(pai_telemetry_peer, in_flight) == 56, in_flight_at_56);

/** Fills `h` as the header of a fresh table of `slots` slots of global rank `rank`: writer_pid,
 * used, the counters and the reserved bytes zero. */
static inline void pai_telemetry_peers_header_init(pai_telemetry_peers_header* h, uint32_t slots,
                                                   int32_t rank) {
  size_t i;
  h->magic = PAI_TELEMETRY_PEERS_MAGIC;
  h->version = (uint16_t)PAI_TELEMETRY_PEERS_VERSION;
  h->slot_size = (uint16_t)PAI_TELEMETRY_PEERS_SLOT_SIZE;
  h->slots = slots;
  h->rank = rank;
  h->writer_pid = 0;
  h->used = 0;
  h->unplaced = 0;
  h->dropped = 0;
  for (i = 0; i < sizeof h->reserved; ++i) h->reserved[i] = 0;
}

/** Slot `i` of the table mapped at `base` (i below the slot count the caller checked). */
static inline pai_telemetry_peer* pai_telemetry_peers_slot(const void* base, uint32_t i) {
  return (pai_telemetry_peer*)((char*)base + PAI_TELEMETRY_PEERS_SLOTS_OFFSET +
                               (uint64_t)i * PAI_TELEMETRY_PEERS_SLOT_SIZE);
}

/** busy(now_ns) of a slot's copy: its closed busy time plus the open interval up to now_ns
 * (none when now_ns is before its start). */
static inline uint64_t pai_telemetry_peer_busy_ns(const pai_telemetry_peer* p, uint64_t now_ns) {
  if (p->in_flight == 0 || now_ns <= p->busy_since_ns) return p->busy_ns;
  return p->busy_ns + (now_ns - p->busy_since_ns);
}

/** stalled(now_ns) of a slot's copy: nanoseconds for which transfers have been in flight
 * without one completing (0 when now_ns is before that started); -1 when none is in flight. */
static inline int64_t pai_telemetry_peer_stalled_ns(const pai_telemetry_peer* p, uint64_t now_ns) {
  uint64_t since;
  if (p->in_flight == 0) return -1;
  since = p->last_done_ns > p->busy_since_ns ? p->last_done_ns : p->busy_since_ns;
  if (now_ns <= since) return 0;
  return now_ns - since > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)(now_ns - since);
}

#if defined(__GNUC__) || defined(__clang__)

/** The writer starts changing `slot`: seq becomes odd. */
static inline void pai_telemetry_peer_write_begin(pai_telemetry_peer* slot) {
  const uint64_t seq = __atomic_load_n(&slot->seq, __ATOMIC_RELAXED);
  __atomic_store_n(&slot->seq, seq | 1u, __ATOMIC_RELAXED);
  __atomic_thread_fence(__ATOMIC_RELEASE);
}

/** The writer is done changing `slot`: seq becomes even, the next even number (release). */
static inline void pai_telemetry_peer_write_end(pai_telemetry_peer* slot) {
  const uint64_t seq = __atomic_load_n(&slot->seq, __ATOMIC_RELAXED);
  __atomic_store_n(&slot->seq, (seq | 1u) + 1u, __ATOMIC_RELEASE);
}

/** The number of slots in use of the table mapped at `base` (acquire), as the writer stored
 * it: a reader bounds it by the slot count it checked. */
static inline uint32_t pai_telemetry_peers_load_used(const void* base) {
  return __atomic_load_n(&((const pai_telemetry_peers_header*)base)->used, __ATOMIC_ACQUIRE);
}

/** Copies slot `i` of the table mapped at `base` into `*out`, which is valid only when this
 * returns 1: 0 means the slot was being written (or never was). `i` must be below the slot
 * count the reader checked against the file's size. */
static inline int pai_telemetry_peer_read(const void* base, uint32_t i, pai_telemetry_peer* out) {
  const pai_telemetry_peer* slot = pai_telemetry_peers_slot(base, i);
  const uint64_t seq = __atomic_load_n(&slot->seq, __ATOMIC_ACQUIRE);
  if (seq == 0 || (seq & 1u) != 0) return 0;
  out->peer = __atomic_load_n(&slot->peer, __ATOMIC_RELAXED);
  out->direction = __atomic_load_n(&slot->direction, __ATOMIC_RELAXED);
  out->reserved0 = 0;
  out->bytes = __atomic_load_n(&slot->bytes, __ATOMIC_RELAXED);
  out->transfers = __atomic_load_n(&slot->transfers, __ATOMIC_RELAXED);
  out->busy_ns = __atomic_load_n(&slot->busy_ns, __ATOMIC_RELAXED);
  out->busy_since_ns = __atomic_load_n(&slot->busy_since_ns, __ATOMIC_RELAXED);
  out->last_done_ns = __atomic_load_n(&slot->last_done_ns, __ATOMIC_RELAXED);
  out->in_flight = __atomic_load_n(&slot->in_flight, __ATOMIC_RELAXED);
  out->reserved1 = 0;
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
  if (__atomic_load_n(&slot->seq, __ATOMIC_RELAXED) != seq) return 0;
  out->seq = seq;
  return 1;
}

#endif /* __GNUC__ || __clang__ */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* PAI_TELEMETRY_H */
