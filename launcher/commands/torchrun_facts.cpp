#include "launcher/commands/torchrun_facts.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "launcher/node/node_identity.h"

extern char** environ;

namespace pai::launcher {

namespace {

// A numeric address, normalized ("::1" for "0:0::1"); "" when `text` is not one.
std::string numeric(const std::string& text) {
  unsigned char buf[sizeof(in6_addr)];
  char out[INET6_ADDRSTRLEN] = {};
  if (inet_pton(AF_INET, text.c_str(), buf) == 1) {
    return inet_ntop(AF_INET, buf, out, sizeof out) ? out : "";
  }
  if (inet_pton(AF_INET6, text.c_str(), buf) == 1) {
    return inet_ntop(AF_INET6, buf, out, sizeof out) ? out : "";
  }
  return "";
}

bool is_loopback(const std::string& address) {
  return address.rfind("127.", 0) == 0 || address == "::1";
}

}  // namespace

std::map<std::string, std::string> process_environment() {
  std::map<std::string, std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const std::size_t eq = entry.find('=');
    if (eq != std::string_view::npos) {
      env.emplace(std::string(entry.substr(0, eq)), std::string(entry.substr(eq + 1)));
    }
  }
  return env;
}

int visible_gpus(const std::map<std::string, std::string>& env, const std::string& proc) {
  if (const auto it = env.find("CUDA_VISIBLE_DEVICES"); it != env.end()) {
    // CUDA stops at the first entry that names no device: "0,1,-1,2" is two GPUs.
    int count = 0;
    std::size_t start = 0;
    const std::string& list = it->second;
    while (start < list.size()) {
      std::size_t end = list.find(',', start);
      if (end == std::string::npos) end = list.size();
      const std::string item = list.substr(start, end - start);
      const bool index = !item.empty() && std::all_of(item.begin(), item.end(), ::isdigit);
      const bool uuid = item.rfind("GPU-", 0) == 0 || item.rfind("MIG-", 0) == 0;
      if (!index && !uuid) break;
      ++count;
      start = end + 1;
    }
    return count;
  }
  std::error_code ec;
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(proc + "/driver/nvidia/gpus", ec)) {
    if (entry.is_directory(ec)) ++count;
  }
  return count;
}

std::string torchrun_interpreter(const std::string& path_list, const std::string& self) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path me = fs::weakly_canonical(self, ec);
  std::size_t start = 0;
  while (start <= path_list.size()) {
    std::size_t end = path_list.find(':', start);
    if (end == std::string::npos) end = path_list.size();
    const std::string dir = path_list.substr(start, end - start);
    start = end + 1;
    if (dir.empty()) continue;
    const fs::path candidate = fs::path(dir) / "torchrun";
    if (::access(candidate.c_str(), X_OK) != 0) continue;
    if (fs::weakly_canonical(candidate, ec) == me) continue;
    std::ifstream in(candidate);
    std::string line;
    if (!std::getline(in, line) || line.rfind("#!", 0) != 0) return "";
    std::istringstream words(line.substr(2));
    std::string interpreter, argument;
    words >> interpreter >> argument;
    // `#!/usr/bin/env python3` names the interpreter by its argument.
    if (fs::path(interpreter).filename() == "env" && !argument.empty()) return argument;
    return interpreter;
  }
  return "";
}

int online_cpus() {
  const long n = ::sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return 0;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_ANY);
  socklen_t length = sizeof address;
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
    port = ntohs(address.sin_port);
  }
  ::close(fd);
  return port;
}

std::string random_uuid() {
  unsigned char b[16] = {};
  if (::getrandom(b, sizeof b, 0) != static_cast<ssize_t>(sizeof b)) {
    const auto now =
        static_cast<unsigned long>(::getpid()) ^ static_cast<unsigned long>(::time(nullptr));
    for (std::size_t i = 0; i < sizeof b; ++i) b[i] = static_cast<unsigned char>(now >> (i % 8));
  }
  b[6] = static_cast<unsigned char>((b[6] & 0x0f) | 0x40);  // version 4
  b[8] = static_cast<unsigned char>((b[8] & 0x3f) | 0x80);  // RFC 4122 variant
  char out[37];
  std::snprintf(out, sizeof out,
                "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
                b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
                b[15]);
  return out;
}

bool is_local_host(const std::string& host) {
  if (host == "localhost") return true;
  const LocalIdentity local = local_identity();
  const auto local_address = [&](const std::string& address) {
    return is_loopback(address) || std::find(local.addresses.begin(), local.addresses.end(),
                                             address) != local.addresses.end();
  };
  if (const std::string address = numeric(host); !address.empty()) return local_address(address);
  if (host == local.hostname || host == local.hostname.substr(0, local.hostname.find('.'))) {
    return true;
  }
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (::getaddrinfo(host.c_str(), nullptr, &hints, &found) != 0) return false;
  bool local_one = false;
  for (const addrinfo* a = found; a != nullptr && !local_one; a = a->ai_next) {
    char text[INET6_ADDRSTRLEN] = {};
    const void* raw =
        a->ai_family == AF_INET
            ? static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(a->ai_addr)->sin_addr)
            : static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(a->ai_addr)->sin6_addr);
    if (inet_ntop(a->ai_family, raw, text, sizeof text) != nullptr) local_one = local_address(text);
  }
  ::freeaddrinfo(found);
  return local_one;
}

}  // namespace pai::launcher
