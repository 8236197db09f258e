#include "compiler/targets/target.h"

namespace pai {

bool Target::replace_inventory(JobSpec&, Diagnostics&) const { return false; }

void Target::check_plan(const Plan&, const JobSpec&, Diagnostics&) const {}

void Target::adapt_plan(Plan&) const {}

void Target::write_files(const Plan&, const std::string&, const std::string&) const {}

}  // namespace pai
