#include "compiler/spec/kubernetes_names.h"

#include <algorithm>
#include <cctype>

#include "compiler/document/field_reader.h"

namespace pai {

namespace {

bool alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

}  // namespace

bool is_dns_subdomain(const std::string& s) {
  if (s.empty() || s.size() > 253) return false;
  size_t start = 0;
  while (true) {
    const size_t dot = s.find('.', start);
    const std::string part = s.substr(start, dot == std::string::npos ? dot : dot - start);
    if (!is_dns_label(part)) return false;
    if (dot == std::string::npos) return true;
    start = dot + 1;
  }
}

bool is_label_name(const std::string& s) {
  if (s.empty() || s.size() > 63 || !alnum(s.front()) || !alnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return alnum(c) || c == '-' || c == '_' || c == '.'; });
}

bool is_qualified_name(const std::string& s, bool prefix_required) {
  const size_t slash = s.find('/');
  if (slash == std::string::npos) return !prefix_required && is_label_name(s);
  return is_dns_subdomain(s.substr(0, slash)) && is_label_name(s.substr(slash + 1));
}

bool is_network_reference(const std::string& s) {
  std::string rest = s;
  if (const size_t at = rest.find('@'); at != std::string::npos) {
    const std::string interface = rest.substr(at + 1);
    if (interface.empty() || interface.size() > 15 ||
        !std::all_of(interface.begin(), interface.end(),
                     [](char c) { return alnum(c) || c == '-' || c == '_' || c == '.'; })) {
      return false;
    }
    rest.resize(at);
  }
  if (const size_t slash = rest.find('/'); slash != std::string::npos) {
    if (!is_dns_label(rest.substr(0, slash))) return false;
    rest = rest.substr(slash + 1);
  }
  return is_dns_subdomain(rest);
}

}  // namespace pai
