// The fake libcuda's configuration (fixtures/fake_cuda.c), set for the lifetime of one test.
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

}  // namespace pai::checks::test
