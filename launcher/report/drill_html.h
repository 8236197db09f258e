// The report's drill section (docs/drill.md): the scorecard of the faults `pai-launch drill`
// put into the job, one row per fault.
#pragma once

#include <string>
#include <vector>

#include "launcher/report/drill_scorecard.h"

namespace pai::launcher::report {

/// The `<section id="drill">` of `scores`; "" when the job had no drill.
std::string drill_html(const std::vector<FaultScore>& scores);

}  // namespace pai::launcher::report
