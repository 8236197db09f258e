#include "launcher/checks/infiniband.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace pai::checks {
namespace fs = std::filesystem;
namespace {

std::string first_line(const fs::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// "4: ACTIVE" -> "ACTIVE"; a kernel that writes only the name is read the same way.
std::string state_name(const std::string& text) {
  auto colon = text.find(':');
  std::string name = colon == std::string::npos ? text : text.substr(colon + 1);
  auto begin = name.find_first_not_of(" \t");
  auto end = name.find_last_not_of(" \t\r\n");
  return begin == std::string::npos ? "" : name.substr(begin, end - begin + 1);
}

bool is_number(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

std::optional<RdmaDevice> read_rdma_device(const std::string& root, const std::string& name) {
  std::error_code ec;
  fs::path dir = fs::path(root) / name;
  if (name.empty() || !fs::is_directory(dir, ec)) return std::nullopt;
  RdmaDevice device;
  device.name = name;
  for (const auto& entry : fs::directory_iterator(dir / "ports", ec)) {
    std::string port = entry.path().filename().string();
    if (!is_number(port)) continue;
    device.ports.push_back({std::stoi(port), state_name(first_line(entry.path() / "state"))});
  }
  std::sort(device.ports.begin(), device.ports.end(),
            [](const RdmaPort& a, const RdmaPort& b) { return a.number < b.number; });
  return device;
}

std::vector<std::string> list_rdma_devices(const std::string& root) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(root, ec))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

bool rdma_gid_configured(const std::string& root, const std::string& hca, int port, int gid_index) {
  std::string gid = first_line(fs::path(root) / hca / "ports" / std::to_string(port) / "gids" /
                               std::to_string(gid_index));
  return std::any_of(gid.begin(), gid.end(),
                     [](char c) { return c != '0' && c != ':' && c != ' '; });
}

}  // namespace pai::checks
