#include "launcher/os/proc_stat.h"

#include <fstream>
#include <iterator>
#include <sstream>

namespace pai::launcher {

std::optional<ProcStat> read_proc_stat(int pid, const std::string& proc) {
  std::ifstream in(proc + "/" + std::to_string(pid) + "/stat");
  if (!in) return std::nullopt;
  const std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // "PID (COMM) STATE PPID PGRP ...": COMM may hold spaces and parentheses.
  const std::size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return std::nullopt;
  std::istringstream fields(stat.substr(paren + 1));
  ProcStat result;
  if (!(fields >> result.state >> result.ppid >> result.pgrp)) return std::nullopt;
  return result;
}

}  // namespace pai::launcher
