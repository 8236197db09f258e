#include "compiler/openpai/names.h"

namespace pai {

namespace {

// A DNS label has at most 63 characters, and the job's pods are named after it with
// "-worker-<index>" (up to 8 digits): 16 are left for that suffix, so that the converted name
// passes the pod-name rule (spec_rules) on every target.
constexpr std::size_t kMaxLabel = 63 - 16;

bool is_label_char(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; }

void trim_dashes(std::string& s) {
  s.erase(0, s.find_first_not_of('-'));
  const std::size_t last = s.find_last_not_of('-');
  s.erase(last == std::string::npos ? 0 : last + 1);
}

}  // namespace

std::string openpai_job_label(const std::string& name) {
  std::string label;
  for (char c : name) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    label += is_label_char(c) ? c : '-';
  }
  trim_dashes(label);
  if (label.size() > kMaxLabel) label.resize(kMaxLabel);
  trim_dashes(label);
  return label;
}

std::string openpai_role_name(const std::string& name) {
  std::string role = name;
  for (char& c : role) {
    if (c == '-' || c == '.' || c == '~') c = '_';
  }
  return role;
}

}  // namespace pai
