// ${parameters.NAME} substitution in commands, env values and custom check commands.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>

#include "compiler/document/diagnostics.h"

namespace pai {

/// Where byte `offset` of a text being substituted was written.
using TextLocator = std::function<Location(std::size_t offset)>;

/// `text` with every `${parameters.NAME}` replaced by `parameters[NAME]`. Other `${...}`
/// text (shell variables) is left alone. Each undefined parameter is an error at
/// `locate(offset of its "${")` for `path`, e.g. `undefined parameter "lrr" in
/// ${parameters.lrr} (did you mean "lr"? defined: lr, steps)`, and is left unreplaced.
std::string substitute_parameters(const std::string& text,
                                  const std::map<std::string, std::string>& parameters,
                                  const TextLocator& locate, const std::string& path,
                                  Diagnostics& diags);

/// As above, with every error at `loc`.
std::string substitute_parameters(const std::string& text,
                                  const std::map<std::string, std::string>& parameters,
                                  const Location& loc, const std::string& path,
                                  Diagnostics& diags);

}  // namespace pai
