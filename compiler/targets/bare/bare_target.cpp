#include "compiler/targets/bare/bare_target.h"

namespace pai {

std::string_view BareTarget::name() const { return "bare"; }

}  // namespace pai
