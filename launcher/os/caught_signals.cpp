#include "launcher/os/caught_signals.h"

#include <dirent.h>
#include <signal.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <memory>

#include "launcher/os/proc_stat.h"

namespace pai::launcher {

namespace {

bool all_digits(const char* name) {
  if (*name == '\0') return false;
  for (const char* c = name; *c != '\0'; ++c) {
    if (!std::isdigit(static_cast<unsigned char>(*c))) return false;
  }
  return true;
}

}  // namespace

std::optional<std::uint64_t> caught_signals(int pid, const std::string& proc) {
  std::ifstream in(proc + "/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("SigCgt:", 0) != 0) continue;
    const char* hex = line.c_str() + 7;
    char* end = nullptr;
    const unsigned long long mask = std::strtoull(hex, &end, 16);
    if (end == hex) return std::nullopt;
    return static_cast<std::uint64_t>(mask);
  }
  return std::nullopt;
}

std::vector<int> process_group_members(int pgid, const std::string& proc) {
  std::vector<int> members;
  std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(proc.c_str()), ::closedir);
  if (!dir) return members;
  while (const dirent* entry = ::readdir(dir.get())) {
    if (!all_digits(entry->d_name)) continue;
    const int pid = std::atoi(entry->d_name);
    const auto stat = read_proc_stat(pid, proc);
    if (!stat || stat->state == 'Z' || stat->pgrp != pgid) continue;
    members.push_back(pid);
  }
  return members;
}

int signal_catchers(int pgid, int sig, const std::string& proc) {
  int sent = 0;
  for (int pid : process_group_members(pgid, proc)) {
    const auto mask = caught_signals(pid, proc);
    if (!mask || (*mask & (std::uint64_t{1} << (sig - 1))) == 0) continue;
    if (::kill(pid, sig) == 0) ++sent;
  }
  return sent;
}

}  // namespace pai::launcher
