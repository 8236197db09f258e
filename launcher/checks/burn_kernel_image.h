// The burn kernels (burn_kernel.cu) as the build embedded them.
#pragma once

#include <cstddef>

namespace pai::checks {

/// The CUDA fatbin of burn_kernel.cu: SASS for sm_80 and sm_90 plus compute_90 PTX, for
/// cuModuleLoadData. Empty (kBurnKernelImageSize == 0) in a build configured with
/// -DPAI_GPU_KERNELS=OFF.
extern const unsigned char kBurnKernelImage[];
/// The size of kBurnKernelImage in bytes.
extern const std::size_t kBurnKernelImageSize;

}  // namespace pai::checks
