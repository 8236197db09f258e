#include "libpai/python_command.h"

#include <cctype>

namespace pai {

namespace {

bool is_python_name(const std::string& argv0) {
  const std::size_t slash = argv0.rfind('/');
  const std::string base = slash == std::string::npos ? argv0 : argv0.substr(slash + 1);
  if (base.rfind("python", 0) != 0) return false;
  for (std::size_t i = 6; i < base.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(base[i])) && base[i] != '.') return false;
  }
  return true;
}

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

}  // namespace

bool is_python_module_name(const std::string& name) {
  std::size_t start = 0;
  for (;;) {
    const std::size_t dot = name.find('.', start);
    if (!is_identifier(name.substr(start, dot - start))) return false;
    if (dot == std::string::npos) return true;
    start = dot + 1;
  }
}

std::optional<PythonCommand> parse_python_command(const std::vector<std::string>& argv,
                                                  std::string* why) {
  if (argv.empty() || !is_python_name(argv[0])) {
    *why =
        "the command does not start with a Python interpreter (python, python3, "
        "python3.11, or a path to one); a container runtime, a shell or a wrapper script "
        "cannot be forked warm";
    return std::nullopt;
  }
  PythonCommand command;
  command.interpreter = argv[0];
  std::size_t i = 1;
  for (; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a == "-u") {
      command.unbuffered = true;
    } else if (a == "-B") {
      command.no_bytecode = true;
    } else if (a == "-m") {
      if (i + 1 >= argv.size() || !is_python_module_name(argv[i + 1])) {
        *why = "-m is not followed by a module name";
        return std::nullopt;
      }
      command.module = true;
      command.target = argv[++i];
      break;
    } else if (!a.empty() && a[0] == '-') {
      *why = "the interpreter option " + a +
             " is not one a warm interpreter can honour (only -u, -B and -m are)";
      return std::nullopt;
    } else {
      command.target = a;
      break;
    }
  }
  if (command.target.empty()) {
    *why = "the command names no script or module for Python to run";
    return std::nullopt;
  }
  command.args.assign(argv.begin() + static_cast<std::ptrdiff_t>(i) + 1, argv.end());
  return command;
}

}  // namespace pai
