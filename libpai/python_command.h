// How a role's command starts Python, read for warm starts (launcher/os/warm_interpreter.h):
// a warm interpreter can stand in for `python3 [-u] [-B] SCRIPT ARGS...` and
// `python3 [-u] [-B] -m MODULE ARGS...`, and for nothing else. The compiler checks the roles
// that ask for warm starts with it; the launcher reads their commands with it.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace pai {

struct PythonCommand {
  std::string interpreter;   ///< argv[0], as given (searched in PATH when it holds no '/')
  bool unbuffered = false;   ///< -u
  bool no_bytecode = false;  ///< -B
  bool module = false;       ///< -m: `target` is a module name, else a script path
  std::string target;
  std::vector<std::string> args;  ///< what follows the target
};

/// Reads `argv` as a Python command; nullopt with `why` set (a complete sentence about argv)
/// when it is not one a warm interpreter can run.
std::optional<PythonCommand> parse_python_command(const std::vector<std::string>& argv,
                                                  std::string* why);

/// Whether `name` is a dotted Python module name (`torch`, `torch.distributed`).
bool is_python_module_name(const std::string& name);

}  // namespace pai
