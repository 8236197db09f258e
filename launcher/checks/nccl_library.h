// NCCL (libnccl.so.2), opened at run time. Only this file and nccl_library.cpp know NCCL's
// symbols and its ncclConfig_t layout.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

namespace pai::checks {

/// NCCL types and constants, as its ABI defines them (nccl.h's names in comments).
namespace nccl {
using Result = int;             ///< ncclResult_t; 0 = ncclSuccess
using Comm = struct ncclComm*;  ///< ncclComm_t
inline constexpr Result kSuccess = 0;
inline constexpr Result kInProgress = 7;  ///< ncclInProgress
inline constexpr int kFloat32 = 7;        ///< ncclFloat32
inline constexpr int kSum = 0;            ///< ncclSum
inline constexpr std::size_t kUniqueIdBytes = 128;
/// ncclUniqueId: 128 opaque bytes.
struct UniqueId {
  char internal[kUniqueIdBytes];
};
}  // namespace nccl

/// The oldest NCCL the check uses: 2.14, the first with ncclCommInitRankConfig (non-blocking
/// communicators that can be aborted).
inline constexpr int kMinNcclVersion = 21400;

/// An opened NCCL.
class NcclLibrary {
 public:
  /// Opens `library` (normally "libnccl.so.2") and checks ncclGetVersion before anything else;
  /// null with `*reason` set when it cannot be opened, is older than kMinNcclVersion or lacks an
  /// entry point.
  static std::unique_ptr<NcclLibrary> open(const std::string& library, std::string* reason);
  /// Closes the library.
  ~NcclLibrary();
  NcclLibrary(const NcclLibrary&) = delete;
  NcclLibrary& operator=(const NcclLibrary&) = delete;

  /// ncclGetVersion's value, e.g. 21903.
  int version() const { return version_; }
  /// "2.19.3" for 21903.
  std::string version_text() const;

  /// ncclGetUniqueId: a new id for rank 0 to hand to every rank.
  nccl::Result get_unique_id(nccl::UniqueId* id) const;
  /// ncclCommInitRankConfig with a non-blocking config: returns at once (ncclInProgress) and
  /// completes in the background; poll with async_error().
  nccl::Result init_rank_nonblocking(nccl::Comm* comm, int ranks, const nccl::UniqueId& id,
                                     int rank) const;
  /// ncclCommGetAsyncError: `*state` is kInProgress while an operation is still being set up.
  nccl::Result async_error(nccl::Comm comm, nccl::Result* state) const;
  /// ncclAllReduce of `count` float32 values with ncclSum on `stream` (a CUstream).
  nccl::Result all_reduce_sum_float(const void* send, void* receive, std::size_t count,
                                    nccl::Comm comm, void* stream) const;
  /// ncclGroupStart / ncclGroupEnd: several ranks driven from one thread.
  nccl::Result group_start() const;
  /// See group_start().
  nccl::Result group_end() const;
  /// ncclCommAbort: frees `comm` without waiting for its peers or its pending work.
  nccl::Result abort(nccl::Comm comm) const;
  /// ncclCommDestroy: frees `comm` after its pending work.
  nccl::Result destroy(nccl::Comm comm) const;
  /// ncclGetErrorString's text for `result`.
  std::string describe(nccl::Result result) const;

 private:
  struct Api;
  NcclLibrary();
  void* handle_ = nullptr;
  std::unique_ptr<Api> api_;
  int version_ = 0;
};

}  // namespace pai::checks
