#include "libpai/rank_name.h"

namespace pai {

std::string to_string(const RankName& name) {
  // Where: "worker-1 local rank 1 on node-2, GPU 1", each part when known.
  std::string where = name.instance;
  if (!where.empty() && name.local_rank >= 0)
    where += " local rank " + std::to_string(name.local_rank);
  if (!name.node.empty()) where += (where.empty() ? "" : " on ") + name.node;
  if (name.gpu >= 0)
    where += (where.empty() ? "" : ", ") + std::string("GPU ") + std::to_string(name.gpu);
  if (name.rank < 0) return where.empty() ? "an unknown rank" : where;
  const std::string rank = "rank " + std::to_string(name.rank);
  return where.empty() ? rank : rank + " (" + where + ")";
}

}  // namespace pai
