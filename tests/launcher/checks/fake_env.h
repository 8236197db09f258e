// The fake libcuda's, libnvml's and libcublasLt's configuration (fixtures/fake_cuda.c,
// fake_nvml.c, fake_cublaslt.c), set for the lifetime of one test.
#pragma once

#include <cstdlib>

namespace pai::checks::test {

/// Sets PAI_FAKE_CUDA_{INIT,VERSION,GPUS}; unsets them on destruction.
struct FakeCudaEnv {
  FakeCudaEnv(const char* gpus, const char* init = "0", const char* version = "12040") {
    setenv("PAI_FAKE_CUDA_INIT", init, 1);
    setenv("PAI_FAKE_CUDA_VERSION", version, 1);
    setenv("PAI_FAKE_CUDA_GPUS", gpus, 1);
  }
  ~FakeCudaEnv() {
    unsetenv("PAI_FAKE_CUDA_INIT");
    unsetenv("PAI_FAKE_CUDA_VERSION");
    unsetenv("PAI_FAKE_CUDA_GPUS");
  }
  FakeCudaEnv(const FakeCudaEnv&) = delete;
  FakeCudaEnv& operator=(const FakeCudaEnv&) = delete;
};

/// Sets one PAI_FAKE_NVML_* variable (fixtures/fake_nvml.c); unsets it on destruction.
struct FakeNvmlEnv {
  FakeNvmlEnv(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
  ~FakeNvmlEnv() { unsetenv(name_); }
  FakeNvmlEnv(const FakeNvmlEnv&) = delete;
  FakeNvmlEnv& operator=(const FakeNvmlEnv&) = delete;

 private:
  const char* name_;
};

/// Sets any PAI_FAKE_* variable; unsets it on destruction.
using FakeEnv = FakeNvmlEnv;

}  // namespace pai::checks::test
