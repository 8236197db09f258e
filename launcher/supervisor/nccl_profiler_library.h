// Where pai-launch finds libpai-nccl-profiler.so (nccl_profiler/), the NCCL profiler plugin it
// names in the ranks' NCCL_PROFILER_PLUGIN when the spec asks
// (faultTolerance.diagnosis.ncclProfiler).
#pragma once

#include <string>

namespace pai::launcher {

/// The plugin's file name.
inline constexpr const char* kNcclProfilerLibrary = "libpai-nccl-profiler.so";

/// The absolute path of the plugin for the pai-launch executable at `exe` (/proc/self/exe):
/// `override_path` when it is non-empty (PAI_NCCL_PROFILER), else the first of
///   <exe's folder>/../lib/pai/libpai-nccl-profiler.so       the install layout (<prefix>/bin)
///   <exe's folder>/../nccl_profiler/libpai-nccl-profiler.so the build tree (launcher/)
///   <exe's folder>/libpai-nccl-profiler.so                   a copy beside the executable
/// that is a regular file (symbolic links followed). "" when there is none (an override that
/// names no regular file included).
std::string find_nccl_profiler(const std::string& exe, const std::string& override_path);

}  // namespace pai::launcher
