#include "launcher/checks/cuda_driver.h"

#include <dlfcn.h>

namespace pai::checks {
namespace {

template <typename Fn>
bool resolve(void* handle, const char* symbol, Fn*& slot) {
  slot = reinterpret_cast<Fn*>(dlsym(handle, symbol));
  return slot != nullptr;
}

std::string describe_with(const CudaApi& api, cuda::Result result) {
  std::string text = "error " + std::to_string(result);
  const char* name = nullptr;
  if (api.cuGetErrorName && api.cuGetErrorName(result, &name) == cuda::kSuccess && name)
    text += std::string(" (") + name + ")";
  return text;
}

}  // namespace

std::string cuda_version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

std::unique_ptr<CudaDriver> CudaDriver::open(const std::string& library,
                                             CheckResult::Status* status, std::string* reason) {
  *status = CheckResult::Failed;
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    *status = CheckResult::Skipped;
    *reason = std::string("no CUDA driver (") + dlerror() + ")";
    return nullptr;
  }
  std::unique_ptr<CudaDriver> driver(new CudaDriver);
  driver->handle_ = handle;
  CudaApi& api = driver->api_;
  // The version is read before anything else so that an old driver is named as such rather
  // than as a missing symbol.
  if (!resolve(handle, "cuDriverGetVersion", api.cuDriverGetVersion)) {
    *reason = library + " loads but lacks cuDriverGetVersion";
    return nullptr;
  }
  if (api.cuDriverGetVersion(&driver->version_) != cuda::kSuccess) {
    *reason = "driver library loads but cuDriverGetVersion failed";
    return nullptr;
  }
  if (driver->version_ < kMinCudaDriverVersion) {
    *reason = "CUDA driver " + cuda_version_text(driver->version_) + " is too old (need " +
              cuda_version_text(kMinCudaDriverVersion) + " or newer)";
    return nullptr;
  }
  resolve(handle, "cuGetErrorName", api.cuGetErrorName);
  if (!resolve(handle, "cuInit", api.cuInit)) {
    *reason = library + " loads but lacks cuInit";
    return nullptr;
  }
  cuda::Result r = api.cuInit(0);
  if (r != cuda::kSuccess) {
    *reason = "driver library loads but cuInit failed: " + describe_with(api, r);
    return nullptr;
  }
  bool ok = true;
  std::string missing;
  auto need = [&](const char* symbol, auto*& slot) {
    if (!resolve(handle, symbol, slot) && ok) {
      ok = false;
      missing = symbol;
    }
  };
  need("cuDeviceGetCount", api.cuDeviceGetCount);
  need("cuDeviceGet", api.cuDeviceGet);
  need("cuDeviceGetName", api.cuDeviceGetName);
  need("cuDeviceTotalMem_v2", api.cuDeviceTotalMem);
  need("cuDeviceGetAttribute", api.cuDeviceGetAttribute);
  need("cuDevicePrimaryCtxRetain", api.cuDevicePrimaryCtxRetain);
  need("cuDevicePrimaryCtxRelease_v2", api.cuDevicePrimaryCtxRelease);
  need("cuCtxSetCurrent", api.cuCtxSetCurrent);
  need("cuMemAlloc_v2", api.cuMemAlloc);
  need("cuMemFree_v2", api.cuMemFree);
  need("cuMemcpyDtoH_v2", api.cuMemcpyDtoH);
  need("cuMemsetD32_v2", api.cuMemsetD32);
  need("cuModuleLoadData", api.cuModuleLoadData);
  need("cuModuleUnload", api.cuModuleUnload);
  need("cuModuleGetFunction", api.cuModuleGetFunction);
  need("cuLaunchKernel", api.cuLaunchKernel);
  need("cuStreamCreate", api.cuStreamCreate);
  need("cuStreamDestroy_v2", api.cuStreamDestroy);
  need("cuStreamSynchronize", api.cuStreamSynchronize);
  need("cuStreamQuery", api.cuStreamQuery);
  need("cuEventCreate", api.cuEventCreate);
  need("cuEventDestroy_v2", api.cuEventDestroy);
  need("cuEventRecord", api.cuEventRecord);
  need("cuEventSynchronize", api.cuEventSynchronize);
  // The unversioned symbol: every driver since CUDA 2 exports it (12.8 added a _v2).
  need("cuEventElapsedTime", api.cuEventElapsedTime);
  resolve(handle, "cuDeviceGetPCIBusId", api.cuDeviceGetPCIBusId);
  if (!ok) {
    *reason = library + " loads but lacks " + missing;
    return nullptr;
  }
  return driver;
}

CudaDriver::~CudaDriver() {
  if (handle_) dlclose(handle_);
}

std::string CudaDriver::describe(cuda::Result result) const { return describe_with(api_, result); }

}  // namespace pai::checks
