// The report's goodput section (docs/goodput.md): where every rank-second of the job went, as
// a waterfall of plain HTML bars (each cause's bar starts where the previous one ended), with
// its rank-seconds and share, the ETTR and the account's notes.
#pragma once

#include <string>

#include "launcher/logs/goodput.h"

namespace pai::launcher::report {

/// `value` with `decimals` decimals ("12.3"), as the goodput section and `pai-launch goodput`
/// print figures.
std::string fixed_text(double value, int decimals);

/// The `<section id="goodput">` of `account`; a line saying there is nothing to account for
/// when it holds no rank-second.
std::string goodput_html(const goodput::Account& account);

}  // namespace pai::launcher::report
