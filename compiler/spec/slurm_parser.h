// slurm: the settings of the Slurm target (--target slurm), parsed for parse_spec().
//
// Where the job's nodes are allocated (account, partition, QoS, reservation, topology/block
// segment), the requeue chain's length, srun's MPI plugin, and the pyxis container every
// node's pai-launch runs in (srun --container-image and friends; NVIDIA pyxis, a SPANK plugin
// running enroot containers).
// Rendered by compiler/targets/slurm/slurm_script.cpp; ignored by the other targets.
#pragma once

#include <array>
#include <string>

#include "compiler/document/document.h"
#include "compiler/document/field_reader.h"
#include "libpai/plan.h"

namespace pai {

/// The MPI plugins srun's --mpi takes (Slurm's mpi/* plugins; "none" turns PMI off).
inline constexpr std::array<const char*, 7> kSlurmMpiPlugins = {
    "pmix", "pmix_v3", "pmix_v4", "pmix_v5", "pmi2", "cray_shasta", "none"};

/// The most successor jobs `slurm.requeue` may ask for.
inline constexpr int kMaxSlurmRequeue = 1000;

/// Parses `slurm` at `path` into `out` (defaults kept where not written or wrong). `job` is the
/// spec parsed so far: its image is the container's when `container.image` is not given, and
/// its mounts and output, which the container gets too, must not share a target with
/// `container.mounts`.
void parse_slurm(const Node& node, const std::string& path, const Plan& job, FieldReader& reader,
                 Slurm* out);

/// Whether `entry` is a pyxis mount, SRC:DST[:FLAGS] (pyxis' --container-mounts, one entry):
/// SRC an absolute or relative path ('/' or '.' first), "tmpfs" or "umount"; DST a path;
/// FLAGS mount flags separated by '+' (e.g. "ro+rprivate"); no ','. Sets `*target` to DST.
bool is_pyxis_mount(const std::string& entry, std::string* target);

}  // namespace pai
