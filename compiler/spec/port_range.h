// The default port range of a job (design §4): where no `portRange` is given, its start is
// derived from the job's name, so two jobs started on one host with default specs do not
// both get 20000 for the coordinator and 20001 for MASTER_PORT (the network check probes a
// port and releases it, so two jobs checked together would both pass and then collide, as
// the audit of issue 38 saw: ranks of one job joined the other's process group). The plan
// holds the ports it assigns, so every node agrees on them.
#pragma once

#include <string_view>

namespace pai {

inline constexpr int kDefaultPortRangeLow = 20000;
inline constexpr int kDefaultPortRangeMax = 29999;
/// Starts are this far apart, and at least this many ports stay above the highest start.
inline constexpr int kDefaultPortRangeStep = 8;
inline constexpr int kDefaultPortRangeMinSize = 2000;

/// The first port of the default range of the job named `name`: 20000 plus a multiple of 8
/// chosen by the name's FNV-1a hash, at most 29999 - 2000 + 1, the same on every machine.
int default_port_range_min(std::string_view name);

}  // namespace pai
