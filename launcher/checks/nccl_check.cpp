#include "launcher/checks/nccl_check.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <vector>

#include "launcher/checks/bus_bandwidth.h"
#include "launcher/checks/cuda_driver.h"
#include "launcher/checks/isolated_check.h"
#include "launcher/checks/nccl_library.h"

namespace pai::checks {
namespace {

using Clock = std::chrono::steady_clock;

// The child stops itself this long before the parent's SIGKILL, so that it can abort the
// communicators and report which phase hung.
constexpr auto kAbortMargin = std::chrono::seconds(2);
// How the child hands a new ncclUniqueId to the launcher (isolated_check.h messages).
constexpr std::string_view kUniqueIdMessage = "nccl-unique-id ";
// How it hands over the bus bandwidth, as a number, for the fabric check's engine.
constexpr std::string_view kBusbwMessage = "nccl-busbw ";

struct Rank {
  cuda::Device device = 0;
  cuda::Context context = nullptr;
  cuda::DevicePtr send = 0;
  cuda::DevicePtr receive = 0;
  cuda::Stream stream = nullptr;
  nccl::Comm comm = nullptr;
};

class AllReduce {
 public:
  AllReduce(const CudaDriver& driver, const NcclLibrary& lib, Clock::time_point deadline)
      : driver_(driver), api_(driver.api()), nccl_(lib), deadline_(deadline) {}
  ~AllReduce() {
    for (auto& r : ranks_) {
      if (!r.context) continue;
      api_.cuCtxSetCurrent(r.context);
      if (r.comm && aborted_) {
        nccl_.abort(r.comm);
      } else if (r.comm) {
        nccl_.destroy(r.comm);
      }
      if (r.stream) api_.cuStreamDestroy(r.stream);
      if (r.send) api_.cuMemFree(r.send);
      if (r.receive) api_.cuMemFree(r.receive);
      api_.cuDevicePrimaryCtxRelease(r.device);
    }
  }
  AllReduce(const AllReduce&) = delete;
  AllReduce& operator=(const AllReduce&) = delete;

  // Buffers on each local GPU, filled with first_rank + i + 1.
  std::string prepare(int local, int first_rank, std::size_t bytes) {
    ranks_.resize(static_cast<std::size_t>(local));
    for (int i = 0; i < local; ++i) {
      Rank& rank = ranks_[static_cast<std::size_t>(i)];
      cuda::Result r;
      if ((r = api_.cuDeviceGet(&rank.device, i))) return cuda_failed("cuDeviceGet", r);
      if ((r = api_.cuDevicePrimaryCtxRetain(&rank.context, rank.device))) {
        rank.context = nullptr;
        return cuda_failed("cuDevicePrimaryCtxRetain", r);
      }
      if ((r = api_.cuCtxSetCurrent(rank.context)) || (r = api_.cuMemAlloc(&rank.send, bytes)) ||
          (r = api_.cuMemAlloc(&rank.receive, bytes)) || (r = api_.cuStreamCreate(&rank.stream, 0)))
        return cuda_failed("allocating on GPU " + std::to_string(i), r);
      float value = static_cast<float>(first_rank + i + 1);
      unsigned bits;
      std::memcpy(&bits, &value, sizeof bits);
      if ((r = api_.cuMemsetD32(rank.send, bits, bytes / 4))) return cuda_failed("cuMemsetD32", r);
    }
    return "";
  }

  std::string connect(const nccl::UniqueId& id, int total, int first_rank) {
    nccl::Result r = nccl_.group_start();
    for (std::size_t i = 0; i < ranks_.size() && ok(r); ++i) {
      api_.cuCtxSetCurrent(ranks_[i].context);
      r = nccl_.init_rank_nonblocking(&ranks_[i].comm, total, id, first_rank + static_cast<int>(i));
    }
    nccl::Result end = nccl_.group_end();
    if (!ok(r)) return nccl_failed("ncclCommInitRankConfig", r);
    if (!ok(end)) return nccl_failed("ncclGroupEnd", end);
    return settle("communicator setup (a peer did not join)");
  }

  // Average seconds per all-reduce over kNcclIterations, after one warm-up.
  std::string run(std::size_t count, double* seconds) {
    std::string error = all_reduce_once(count);
    if (!error.empty()) return error;
    auto start = Clock::now();
    for (int i = 0; i < kNcclIterations; ++i) {
      error = all_reduce_once(count);
      if (!error.empty()) return error;
    }
    *seconds = std::chrono::duration<double>(Clock::now() - start).count() / kNcclIterations;
    return "";
  }

  std::string verify(std::size_t count, float expected) {
    std::vector<float> host(count);
    for (std::size_t i = 0; i < ranks_.size(); ++i) {
      api_.cuCtxSetCurrent(ranks_[i].context);
      cuda::Result r = api_.cuMemcpyDtoH(host.data(), ranks_[i].receive, count * sizeof(float));
      if (r != cuda::kSuccess) return cuda_failed("cuMemcpyDtoH", r);
      for (std::size_t k = 0; k < count; ++k) {
        if (host[k] != expected) {
          char text[160];
          std::snprintf(text, sizeof text,
                        "wrong all-reduce result on GPU %zu: element %zu is %g, expected %g", i, k,
                        static_cast<double>(host[k]), static_cast<double>(expected));
          return text;
        }
      }
    }
    return "";
  }

 private:
  static bool ok(nccl::Result r) { return r == nccl::kSuccess || r == nccl::kInProgress; }
  std::string cuda_failed(const std::string& what, cuda::Result r) {
    return what + " failed: " + driver_.describe(r);
  }
  std::string nccl_failed(const std::string& what, nccl::Result r) {
    return what + " failed: " + nccl_.describe(r);
  }

  std::string all_reduce_once(std::size_t count) {
    nccl::Result r = nccl_.group_start();
    for (std::size_t i = 0; i < ranks_.size() && ok(r); ++i) {
      api_.cuCtxSetCurrent(ranks_[i].context);
      r = nccl_.all_reduce_sum_float(reinterpret_cast<const void*>(ranks_[i].send),
                                     reinterpret_cast<void*>(ranks_[i].receive), count,
                                     ranks_[i].comm, ranks_[i].stream);
    }
    nccl::Result end = nccl_.group_end();
    if (!ok(r)) return nccl_failed("ncclAllReduce", r);
    if (!ok(end)) return nccl_failed("ncclGroupEnd", end);
    std::string error = settle("all-reduce");
    if (!error.empty()) return error;
    // Streams are polled, not synchronized on, so that a peer that died mid-collective is caught
    // at the deadline.
    for (auto& rank : ranks_) {
      api_.cuCtxSetCurrent(rank.context);
      while (true) {
        cuda::Result q = api_.cuStreamQuery(rank.stream);
        if (q == cuda::kSuccess) break;
        if (q != cuda::kNotReady) return cuda_failed("the all-reduce", q);
        error = poll_errors("all-reduce");
        if (!error.empty()) return error;
        std::this_thread::sleep_for(std::chrono::microseconds(50));
      }
    }
    return "";
  }

  // Waits until no communicator is in progress; aborts them all at the deadline.
  std::string settle(const std::string& phase) {
    while (true) {
      bool pending = false;
      for (auto& rank : ranks_) {
        nccl::Result state = nccl::kSuccess;
        nccl::Result r = nccl_.async_error(rank.comm, &state);
        if (r != nccl::kSuccess) return nccl_failed("ncclCommGetAsyncError", r);
        if (state == nccl::kInProgress) {
          pending = true;
        } else if (state != nccl::kSuccess) {
          aborted_ = true;
          return phase + " failed: " + nccl_.describe(state);
        }
      }
      if (!pending) return "";
      if (Clock::now() >= deadline_) {
        aborted_ = true;
        return phase + " timed out; communicators aborted";
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }

  std::string poll_errors(const std::string& phase) {
    for (auto& rank : ranks_) {
      nccl::Result state = nccl::kSuccess;
      nccl_.async_error(rank.comm, &state);
      if (state != nccl::kSuccess && state != nccl::kInProgress) {
        aborted_ = true;
        return phase + " failed: " + nccl_.describe(state);
      }
    }
    if (Clock::now() >= deadline_) {
      aborted_ = true;
      return phase + " timed out; communicators aborted";
    }
    return "";
  }

  const CudaDriver& driver_;
  const CudaApi& api_;
  const NcclLibrary& nccl_;
  Clock::time_point deadline_;
  std::vector<Rank> ranks_;
  bool aborted_ = false;
};

std::string to_hex(const std::string& bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char c : bytes) {
    hex += digits[c >> 4];
    hex += digits[c & 15];
  }
  return hex;
}

std::string from_hex(const std::string& hex) {
  auto value = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
  std::string bytes;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    bytes += static_cast<char>(value(hex[i]) * 16 + value(hex[i + 1]));
  return bytes;
}

// The all-reduce, judged against `min_busbw` (0 = no floor).
CheckResult all_reduce(const Plan& plan, const CheckOptions& options, double min_busbw,
                       Clock::time_point deadline, const SendToParent& send) {
  CheckResult::Status status;
  std::string reason;
  auto driver = CudaDriver::open(options.cuda_library, &status, &reason);
  if (!driver) return make_result("nccl", status, reason);
  int local = 0;
  cuda::Result cr = driver->api().cuDeviceGetCount(&local);
  if (cr != cuda::kSuccess)
    return make_result("nccl", CheckResult::Failed,
                       "cuDeviceGetCount failed: " + driver->describe(cr));
  auto lib = NcclLibrary::open(options.nccl_library, &reason);
  if (!lib) return make_result("nccl", CheckResult::Skipped, reason);

  nccl::UniqueId id{};
  int total = local;
  int first_rank = 0;
  bool job_wide = options.nccl.has_value();
  bool make_id = !job_wide || options.nccl->unique_id.empty();
  if (job_wide) {
    total = options.nccl->ranks;
    first_rank = options.nccl->first_rank;
    if (make_id && first_rank != 0)
      return make_result("nccl", CheckResult::Failed,
                         "the rendezvous gave no ncclUniqueId to a node without rank 0");
    if (!make_id && options.nccl->unique_id.size() != nccl::kUniqueIdBytes)
      return make_result("nccl", CheckResult::Failed,
                         "the rendezvous passed a malformed ncclUniqueId");
    if (!make_id) std::memcpy(id.internal, options.nccl->unique_id.data(), nccl::kUniqueIdBytes);
    // Ranks beyond the job's count would never be matched by a peer.
    local = std::max(0, std::min(local, total - first_rank));
  }
  if (make_id) {
    nccl::Result r = lib->get_unique_id(&id);
    if (r != nccl::kSuccess)
      return make_result("nccl", CheckResult::Failed,
                         "ncclGetUniqueId failed: " + lib->describe(r));
    if (job_wide)
      send(std::string(kUniqueIdMessage) + to_hex(std::string(id.internal, sizeof id.internal)));
  }
  if (total < 2)
    return make_result("nccl", CheckResult::Skipped,
                       "fewer than two GPUs in the all-reduce (" + std::to_string(total) +
                           "): nothing to measure");

  auto bytes = static_cast<std::size_t>(plan.sanity_check.nccl_bytes) / 4 * 4;
  std::size_t count = bytes / 4;
  AllReduce reduce(*driver, *lib, deadline);
  std::string error = reduce.prepare(local, first_rank, bytes);
  if (error.empty()) error = reduce.connect(id, total, first_rank);
  double seconds = 0;
  if (error.empty()) error = reduce.run(count, &seconds);
  if (error.empty()) error = reduce.verify(count, all_reduce_expected(total));

  CheckResult result;
  result.name = "nccl";
  result.facts["nccl"] = lib->version_text();
  if (!error.empty()) {
    result.status = CheckResult::Failed;
    result.summary = error;
    return result;
  }
  AllReduceBandwidth bw = all_reduce_bandwidth(static_cast<std::int64_t>(bytes), seconds, total);
  char text[200];
  std::snprintf(text, sizeof text, "%s%.9g", kBusbwMessage.data(), bw.busbw);
  send(text);
  std::snprintf(text, sizeof text, "%.1f GB/s busbw", bw.busbw);
  result.figure = text;
  std::snprintf(
      text, sizeof text,
      "all-reduce of %zu bytes over %d GPUs%s: algbw %.1f GB/s, busbw %.1f GB/s, verified", bytes,
      total, job_wide ? "" : " of this node", bw.algbw, bw.busbw);
  result.summary = text;
  std::string problem = bus_bandwidth_problem(bw.busbw, min_busbw);
  result.status = problem.empty() ? CheckResult::Passed : CheckResult::Failed;
  if (!problem.empty()) {
    result.detail = result.summary + "\n";
    result.summary = problem;
  }
  return result;
}

// Runs the all-reduce in a child killed at `timeout_seconds`; the id it makes goes to
// options.nccl's publish_unique_id, the bus bandwidth it measured to `*busbw` when given.
CheckResult run_all_reduce(const Plan& plan, const CheckOptions& options, double min_busbw,
                           std::int64_t timeout_seconds, double* busbw) {
  auto timeout = std::chrono::seconds(timeout_seconds);
  auto on_message = [&options, busbw](const std::string& message) {
    if (message.rfind(kBusbwMessage, 0) == 0) {
      if (busbw) *busbw = std::strtod(message.c_str() + kBusbwMessage.size(), nullptr);
      return;
    }
    if (message.rfind(kUniqueIdMessage, 0) != 0 || !options.nccl ||
        !options.nccl->publish_unique_id)
      return;
    options.nccl->publish_unique_id(from_hex(message.substr(kUniqueIdMessage.size())));
  };
  return run_isolated(
      "nccl",
      [&](const SendToParent& send) {
        auto deadline =
            Clock::now() + timeout - std::min<Clock::duration>(kAbortMargin, timeout / 2);
        return all_reduce(plan, options, min_busbw, deadline, send);
      },
      timeout, on_message, options.containment);
}

}  // namespace

CheckResult run_nccl_check(const Plan& plan, const CheckOptions& options,
                           std::int64_t timeout_seconds) {
  return run_all_reduce(plan, options, plan.sanity_check.nccl_min_bus_bandwidth_gbps,
                        timeout_seconds, nullptr);
}

double run_nccl_pair(const Plan& plan, const CheckOptions& options, std::int64_t timeout_seconds) {
  double busbw = 0;
  const CheckResult r = run_all_reduce(plan, options, 0, timeout_seconds, &busbw);
  if (r.status == CheckResult::Passed) return busbw;
  // Skipped means no driver, no NCCL or a single GPU: on a node that should run the engine,
  // as much a failure as an error.
  throw std::runtime_error("NCCL engine: " + r.summary);
}

}  // namespace pai::checks
