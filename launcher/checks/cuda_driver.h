// The CUDA driver API, opened at run time from libcuda.so.1 so that pai-launch links nothing
// from CUDA and runs on CPU-only nodes. Only this file and cuda_driver.cpp know the symbol
// names; the few types needed are declared here (opaque handles, enums as int).
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "launcher/checks/check_result.h"

namespace pai::checks {

/// CUDA driver API types and constants, as the driver ABI defines them (cuda.h's names in
/// comments).
namespace cuda {
using Result = int;                    ///< CUresult; 0 = CUDA_SUCCESS
using Device = int;                    ///< CUdevice
using DevicePtr = unsigned long long;  ///< CUdeviceptr
using Context = struct CUctx_st*;      ///< CUcontext
using Module = struct CUmod_st*;       ///< CUmodule
using Function = struct CUfunc_st*;    ///< CUfunction
using Stream = struct CUstream_st*;    ///< CUstream
using Event = struct CUevent_st*;      ///< CUevent

inline constexpr Result kSuccess = 0;     ///< CUDA_SUCCESS
inline constexpr Result kNotReady = 600;  ///< CUDA_ERROR_NOT_READY
inline constexpr int kAttrComputeCapabilityMajor =
    75;  ///< CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
inline constexpr int kAttrComputeCapabilityMinor =
    76;                                     ///< CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR
inline constexpr int kAttrEccEnabled = 32;  ///< CU_DEVICE_ATTRIBUTE_ECC_ENABLED
}  // namespace cuda

/// The driver's entry points, named as in cuda.h and resolved to the _v2 symbols where the
/// driver has them (cuDeviceTotalMem -> cuDeviceTotalMem_v2, ...).
struct CudaApi {
  cuda::Result (*cuDriverGetVersion)(int*) = nullptr;
  cuda::Result (*cuInit)(unsigned) = nullptr;
  cuda::Result (*cuGetErrorName)(cuda::Result, const char**) = nullptr;  ///< may be null
  cuda::Result (*cuDeviceGetCount)(int*) = nullptr;
  cuda::Result (*cuDeviceGet)(cuda::Device*, int) = nullptr;
  cuda::Result (*cuDeviceGetName)(char*, int, cuda::Device) = nullptr;
  cuda::Result (*cuDeviceTotalMem)(std::size_t*, cuda::Device) = nullptr;
  cuda::Result (*cuDeviceGetAttribute)(int*, int, cuda::Device) = nullptr;
  cuda::Result (*cuDevicePrimaryCtxRetain)(cuda::Context*, cuda::Device) = nullptr;
  cuda::Result (*cuDevicePrimaryCtxRelease)(cuda::Device) = nullptr;
  cuda::Result (*cuCtxSetCurrent)(cuda::Context) = nullptr;
  cuda::Result (*cuMemAlloc)(cuda::DevicePtr*, std::size_t) = nullptr;
  cuda::Result (*cuMemFree)(cuda::DevicePtr) = nullptr;
  cuda::Result (*cuMemcpyDtoH)(void*, cuda::DevicePtr, std::size_t) = nullptr;
  cuda::Result (*cuMemsetD32)(cuda::DevicePtr, unsigned, std::size_t) = nullptr;
  cuda::Result (*cuModuleLoadData)(cuda::Module*, const void*) = nullptr;
  cuda::Result (*cuModuleUnload)(cuda::Module) = nullptr;
  cuda::Result (*cuModuleGetFunction)(cuda::Function*, cuda::Module, const char*) = nullptr;
  cuda::Result (*cuLaunchKernel)(cuda::Function, unsigned, unsigned, unsigned, unsigned, unsigned,
                                 unsigned, unsigned, cuda::Stream, void**, void**) = nullptr;
  cuda::Result (*cuStreamCreate)(cuda::Stream*, unsigned) = nullptr;
  cuda::Result (*cuStreamDestroy)(cuda::Stream) = nullptr;
  cuda::Result (*cuStreamSynchronize)(cuda::Stream) = nullptr;
  cuda::Result (*cuStreamQuery)(cuda::Stream) = nullptr;
  cuda::Result (*cuEventCreate)(cuda::Event*, unsigned) = nullptr;
  cuda::Result (*cuEventDestroy)(cuda::Event) = nullptr;
  cuda::Result (*cuEventRecord)(cuda::Event, cuda::Stream) = nullptr;
  cuda::Result (*cuEventSynchronize)(cuda::Event) = nullptr;
  cuda::Result (*cuEventElapsedTime)(float*, cuda::Event, cuda::Event) = nullptr;
  cuda::Result (*cuDeviceGetPCIBusId)(char*, int, cuda::Device) = nullptr;  ///< may be null
};

/// The oldest driver the checks use: CUDA 11.4 (primary-context _v2 entry points).
inline constexpr int kMinCudaDriverVersion = 11040;

/// An opened and initialized CUDA driver.
class CudaDriver {
 public:
  /// Opens `library` (normally "libcuda.so.1"), checks its version, calls cuInit(0) and
  /// resolves the rest of the API. On failure returns null and sets `*status` and `*reason`:
  ///   Skipped "no CUDA driver (<dlerror>)" when the library cannot be opened;
  ///   Failed  "driver library loads but cuInit failed: error 100 (CUDA_ERROR_NO_DEVICE)";
  ///   Failed  for a driver older than kMinCudaDriverVersion or missing an entry point.
  static std::unique_ptr<CudaDriver> open(const std::string& library, CheckResult::Status* status,
                                          std::string* reason);
  /// Closes the library.
  ~CudaDriver();
  CudaDriver(const CudaDriver&) = delete;
  CudaDriver& operator=(const CudaDriver&) = delete;

  /// The entry points; all non-null except cuGetErrorName.
  const CudaApi& api() const { return api_; }
  /// cuDriverGetVersion's value, e.g. 12040.
  int version() const { return version_; }
  /// "error 2 (CUDA_ERROR_OUT_OF_MEMORY)", or "error 2" without cuGetErrorName.
  std::string describe(cuda::Result result) const;

 private:
  CudaDriver() = default;
  void* handle_ = nullptr;
  CudaApi api_;
  int version_ = 0;
};

/// "12.4" for 12040.
std::string cuda_version_text(int version);

}  // namespace pai::checks
