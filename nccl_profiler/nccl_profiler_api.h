// The part of NCCL's profiler plugin interface that libpai-nccl-profiler.so implements: the
// ncclProfiler_v4 struct (NCCL 2.26) and ncclProfiler_v5 (NCCL 2.27 and 2.28; 2.28.9 looks up
// v5, then v4 down to v1). NCCL does not install these definitions: plugins carry their own
// copy. Reproduced from NVIDIA/nccl ext-profiler/example/nccl/profiler.h, profiler_v4.h,
// profiler_v5.h and ext-profiler/inspector/nccl/common.h (the 2.28 tree), with only the types
// this plugin reads; the layouts below must stay byte for byte NCCL's, so the static_asserts
// pin the offsets NCCL's own headers give on x86_64 and aarch64 (LP64).
//
// v1 to v3 (NCCL 2.23 to 2.25) are not implemented: their init does not say how many ranks a
// communicator has, so the plugin could not tell the world communicator from the others.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

extern "C" {

/// ncclResult_t (nccl.h): only ncclSuccess is returned to NCCL.
typedef enum { ncclSuccess = 0, ncclSystemError = 2 } ncclResult_t;

/// ncclDebugLogger_t (nccl_common.h): NCCL's logger, passed to init.
typedef void (*ncclDebugLogger_t)(int level, unsigned long flags, const char* file, int line,
                                  const char* fmt, ...);

/// Event types, the bits of the activation mask (profiler.h).
enum {
  ncclProfileGroup = (1 << 0),
  ncclProfileColl = (1 << 1),
  ncclProfileP2p = (1 << 2),
  ncclProfileProxyOp = (1 << 3),
  ncclProfileProxyStep = (1 << 4),
  ncclProfileProxyCtrl = (1 << 5),
  ncclProfileKernelCh = (1 << 6),
  ncclProfileNetPlugin = (1 << 7),
  ncclProfileGroupApi = (1 << 8),       // v5
  ncclProfileCollApi = (1 << 9),        // v5
  ncclProfileP2pApi = (1 << 10),        // v5
  ncclProfileKernelLaunch = (1 << 11),  // v5
};

/// ncclProfilerEventState_v4_t / _v5_t: an int-sized enum; the states this plugin reads.
typedef int ncclProfilerEventState_t;
enum {
  ncclProfilerProxyOpInProgress_v4 = 19,
  ncclProfilerProxyStepSendGPUWait = 8,
  ncclProfilerProxyStepSendPeerWait_v4 = 20,  ///< waits for the receiver's credit
  ncclProfilerProxyStepSendWait = 9,          ///< posted to the network; transSize set
  ncclProfilerProxyStepRecvWait = 10,         ///< receive posted
  ncclProfilerProxyStepRecvFlushWait = 11,    ///< data arrived; transSize set
  ncclProfilerProxyStepRecvGPUWait = 12,
  ncclProfilerKernelChStop = 22,
};

/// The collective member of the descriptors' union: v4 and v5 share this prefix (v5 appends
/// `parentGroup`).
struct ncclProfilerCollDescr {
  uint64_t seqNumber;  ///< per communicator *and per collective type*: not pai's sequence
  const char* func;    ///< "AllReduce", "Broadcast", ...
  void const* sendBuff;
  void* recvBuff;
  size_t count;  ///< elements
  int root;
  const char* datatype;  ///< "ncclFloat32", ...
  uint8_t nChannels;
  uint8_t nWarps;
  const char* algo;
  const char* proto;
};

/// The kernel-channel member of the union (v4, v5).
struct ncclProfilerKernelChDescr {
  uint8_t channelId;
  uint64_t pTimer;
};

/// The proxy-operation member of the union (v4, v5, v6): one per channel, peer and direction
/// of a collective or point-to-point call, started by the proxy thread that moves its data.
struct ncclProfilerProxyOpDescr {
  pid_t pid;  ///< the process that issued it: another one's under PXN (its context too)
  uint8_t channelId;
  int peer;  ///< the peer's rank in the communicator
  int nSteps;
  int chunkSize;
  int isSend;  ///< 1: a network send; 0: a receive (or a transport without network steps)
};

/// The proxy-step member of the union: one network transfer of a proxy operation, whose
/// parentObj is the handle the plugin returned for that operation.
struct ncclProfilerProxyStepDescr {
  int step;
};

/// ncclProfilerEventDescr_v4_t, the members this plugin reads. The union's largest member
/// is bigger than what is declared here; NCCL owns the object, the plugin only reads.
typedef struct {
  uint8_t type;
  void* parentObj;
  int rank;
  union {
    ncclProfilerCollDescr coll;
    ncclProfilerProxyOpDescr proxyOp;
    ncclProfilerProxyStepDescr proxyStep;
    ncclProfilerKernelChDescr kernelCh;
  };
} ncclProfilerEventDescr_v4_t;

/// ncclProfilerEventDescr_v5_t: as v4 with a 64-bit type (the API events need bits 8-11).
typedef struct {
  uint64_t type;
  void* parentObj;
  int rank;
  union {
    ncclProfilerCollDescr coll;
    ncclProfilerProxyOpDescr proxyOp;
    ncclProfilerProxyStepDescr proxyStep;
    ncclProfilerKernelChDescr kernelCh;
  };
} ncclProfilerEventDescr_v5_t;

/// The state arguments (ncclProfilerEventStateArgs_v4_t and _v5_t are the same union): the
/// member this plugin reads. NCCL's union is larger; NCCL owns it, the plugin only reads.
union ncclProfilerEventStateArgs {
  struct {
    size_t transSize;  ///< bytes of the step's network transfer (SendWait, RecvFlushWait)
  } proxyStep;
};
typedef union ncclProfilerEventStateArgs ncclProfilerEventStateArgs_v4_t;
typedef union ncclProfilerEventStateArgs ncclProfilerEventStateArgs_v5_t;

/// ncclProfiler_v4_t.
typedef struct {
  const char* name;
  ncclResult_t (*init)(void** context, int* eActivationMask, const char* commName,
                       uint64_t commHash, int nNodes, int nranks, int rank,
                       ncclDebugLogger_t logfn);
  ncclResult_t (*startEvent)(void* context, void** eHandle, ncclProfilerEventDescr_v4_t* eDescr);
  ncclResult_t (*stopEvent)(void* eHandle);
  ncclResult_t (*recordEventState)(void* eHandle, ncclProfilerEventState_t eState,
                                   ncclProfilerEventStateArgs_v4_t* eStateArgs);
  ncclResult_t (*finalize)(void* context);
} ncclProfiler_v4_t;

/// ncclProfiler_v5_t: init takes the communicator id first.
typedef struct {
  const char* name;
  ncclResult_t (*init)(void** context, uint64_t commId, int* eActivationMask, const char* commName,
                       int nNodes, int nranks, int rank, ncclDebugLogger_t logfn);
  ncclResult_t (*startEvent)(void* context, void** eHandle, ncclProfilerEventDescr_v5_t* eDescr);
  ncclResult_t (*stopEvent)(void* eHandle);
  ncclResult_t (*recordEventState)(void* eHandle, ncclProfilerEventState_t eState,
                                   ncclProfilerEventStateArgs_v5_t* eStateArgs);
  ncclResult_t (*finalize)(void* context);
} ncclProfiler_v5_t;

}  // extern "C"

static_assert(offsetof(ncclProfilerEventDescr_v4_t, parentObj) == 8);
static_assert(offsetof(ncclProfilerEventDescr_v4_t, rank) == 16);
static_assert(offsetof(ncclProfilerEventDescr_v4_t, coll) == 24);
static_assert(offsetof(ncclProfilerEventDescr_v5_t, coll) == 24);
static_assert(offsetof(ncclProfilerCollDescr, count) == 32);
static_assert(offsetof(ncclProfilerCollDescr, datatype) == 48);
static_assert(offsetof(ncclProfilerCollDescr, nChannels) == 56);
static_assert(offsetof(ncclProfilerKernelChDescr, pTimer) == 8);
static_assert(offsetof(ncclProfilerEventDescr_v4_t, proxyOp) == 24);
static_assert(offsetof(ncclProfilerEventDescr_v5_t, proxyOp) == 24);
static_assert(offsetof(ncclProfilerEventDescr_v5_t, proxyStep) == 24);
static_assert(offsetof(ncclProfilerProxyOpDescr, channelId) == 4);
static_assert(offsetof(ncclProfilerProxyOpDescr, peer) == 8);
static_assert(offsetof(ncclProfilerProxyOpDescr, isSend) == 20);
static_assert(offsetof(ncclProfilerProxyStepDescr, step) == 0);
static_assert(offsetof(ncclProfilerEventStateArgs, proxyStep.transSize) == 0);
