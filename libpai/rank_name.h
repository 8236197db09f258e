// One way of naming a rank in every line pai prints, journals or reports: the global rank
// first, then where it runs — "rank 3 (worker-1 local rank 1 on node-2, GPU 1)" — leaving out
// what the speaker does not know ("rank 3 (node-2)", "worker-1 local rank 1 on node-2").
#pragma once

#include <string>

namespace pai {

struct RankName {
  int rank = -1;              ///< global; -1 unknown
  std::string instance = {};  ///< "worker-1"; "" unknown
  int local_rank = -1;        ///< within the instance; -1 unknown
  std::string node = {};      ///< the node it runs on; "" unknown
  int gpu = -1;               ///< the node's GPU index; -1 unknown or none
};

/// The name, as above; "an unknown rank" when nothing is known.
std::string to_string(const RankName& name);

}  // namespace pai
