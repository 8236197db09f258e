#include "compiler/spec/inventory.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <utility>

#include "compiler/document/field_reader.h"
#include "compiler/document/yaml_loader.h"
#include "compiler/spec/host_list.h"

namespace pai {
namespace {

/// Where each host of the inventory was written: its name and its address.
struct HostPlaces {
  Location name;
  Location address;
};

std::string strip_bom(const std::string& text) {
  return text.compare(0, 3, "\xef\xbb\xbf") == 0 ? text.substr(3) : text;
}

/// A YAML inventory is a sequence (block "- " or flow "["); anything else is read as an
/// MPI hostfile, whose lines YAML would take for one long plain scalar.
bool is_yaml_list(const std::string& text) {
  size_t i = 0;
  while (i < text.size()) {
    const size_t end = std::min(text.find('\n', i), text.size());
    const size_t first = text.find_first_not_of(" \t\r", i);
    if (first < end && text[first] != '#') return text[first] == '-' || text[first] == '[';
    i = end + 1;
  }
  return false;
}

Node scalar_at(std::string text, const Location& loc) {
  Node n;
  n.kind = Node::Kind::Scalar;
  n.scalar = std::move(text);
  n.loc = loc;
  return n;
}

/// A DNS-label host name for a hostfile entry ([A-Za-z0-9._-]): the entry itself when it is
/// one, else the entry lowercased with '.' and '_' turned into '-' ("10.0.0.7" -> "10-0-0-7"),
/// since hostfiles commonly list addresses while names must be usable as k8s and file names.
std::string host_name_for(const std::string& entry) {
  if (is_dns_label(entry)) return entry;
  std::string name;
  for (char c : entry) {
    name += std::isalnum(static_cast<unsigned char>(c))
                ? static_cast<char>(std::tolower(static_cast<unsigned char>(c)))
                : '-';
  }
  const size_t first = name.find_first_not_of('-');
  if (first == std::string::npos) return "";
  return name.substr(first, name.find_last_not_of('-') - first + 1);
}

void read_yaml_list(const std::string& file, const std::string& text, Diagnostics& diags,
                    std::vector<Host>* hosts, std::vector<HostPlaces>* places) {
  Document doc;
  try {
    doc = load_yaml(file, text);
  } catch (const LoadError& e) {
    diags.add(e.diagnostic);
    return;
  }
  std::map<std::string, Location> locations;
  FieldReader reader(diags, locations);
  const int errors_before = diags.error_count();
  parse_host_list(reader, doc.root, "hosts", hosts);
  if (diags.error_count() > errors_before) return;
  for (const Node& item : doc.root.items) {
    const Node* name = item.is_mapping() ? item.find("name") : &item;
    const Node* address = item.is_mapping() ? item.find("address") : nullptr;
    places->push_back({name->loc, address ? address->loc : name->loc});
  }
}

/// One whitespace-separated word of a hostfile line and its 1-based column.
struct Word {
  std::string text;
  int column;
};

std::vector<Word> split_words(const std::string& line) {
  std::vector<Word> words;
  size_t i = 0;
  while ((i = line.find_first_not_of(" \t\r", i)) != std::string::npos) {
    const size_t end = std::min(line.find_first_of(" \t\r", i), line.size());
    words.push_back({line.substr(i, end - i), static_cast<int>(i) + 1});
    i = end;
  }
  return words;
}

void read_hostfile(const std::string& file, const std::string& text, Diagnostics& diags,
                   std::vector<Host>* hosts, std::vector<HostPlaces>* places) {
  std::map<std::string, Location> locations;
  FieldReader reader(diags, locations);
  int line_no = 0;
  size_t entries = 0;
  size_t i = 0;
  while (i < text.size()) {
    const size_t end = std::min(text.find('\n', i), text.size());
    std::string line = text.substr(i, end - i);
    i = end + 1;
    ++line_no;
    line = line.substr(0, line.find('#'));
    const std::vector<Word> words = split_words(line);
    if (words.empty()) continue;

    const std::string path = index_path("hosts", entries++);
    const Location where{file, line_no, words[0].column};
    Host host;
    std::string entry = words[0].text;
    std::optional<Node> slots;
    if (const size_t colon = entry.find(':'); colon != std::string::npos) {
      slots = scalar_at(entry.substr(colon + 1),
                        {file, line_no, words[0].column + static_cast<int>(colon) + 1});
      entry.resize(colon);
    }
    const bool plain = !entry.empty() && std::all_of(entry.begin(), entry.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_';
    });
    if (!plain) {
      reader.error(scalar_at(entry, where), path,
                   "expected a host name or IPv4 address, got " + quote(entry));
      continue;
    }
    bool ok = reader.dns_label(scalar_at(host_name_for(entry), where), path, &host.name);
    host.address = entry;
    for (size_t w = 1; w < words.size(); ++w) {
      const Word& word = words[w];
      if (word.text.rfind("slots=", 0) == 0 && !slots) {
        slots = scalar_at(word.text.substr(6), {file, line_no, word.column + 6});
      } else {
        reader.error(scalar_at(word.text, {file, line_no, word.column}), path,
                     "unexpected " + quote(word.text) + " in hostfile line; expected " +
                         "\"host\", \"host slots=N\" or \"host:N\"");
        ok = false;
      }
    }
    if (slots) ok = reader.integer(*slots, join_path(path, "slots"), 1, 1024, &host.slots) && ok;
    if (!ok) continue;
    hosts->push_back(std::move(host));
    places->push_back({where, where});
  }
}

/// Reports the second of two hosts with the same name, or with the same address, in the
/// words check_spec uses for the spec's own hosts.
void check_duplicates(const std::vector<Host>& hosts, const std::vector<HostPlaces>& places,
                      Diagnostics& diags) {
  std::map<std::string, size_t> names, addresses;
  for (size_t i = 0; i < hosts.size(); ++i) {
    const std::string path = index_path("hosts", i);
    const auto [name, new_name] = names.emplace(hosts[i].name, i);
    if (!new_name) {
      diags.error(places[i].name, join_path(path, "name"),
                  "duplicate host name " + quote(hosts[i].name) + " (also " +
                      index_path("hosts", name->second) + ")");
      continue;
    }
    const auto [address, new_address] = addresses.emplace(hosts[i].address, i);
    if (!new_address) {
      diags.error(places[i].address, join_path(path, "address"),
                  "duplicate address " + quote(hosts[i].address) + " (also " +
                      index_path("hosts", address->second) + ")");
    }
  }
}

}  // namespace

std::vector<Host> load_inventory(const std::string& file, const std::string& text,
                                 Diagnostics& diags) {
  const int errors_before = diags.error_count();
  std::vector<Host> hosts;
  std::vector<HostPlaces> places;
  if (is_yaml_list(text)) {
    read_yaml_list(file, text, diags, &hosts, &places);
  } else {
    read_hostfile(file, strip_bom(text), diags, &hosts, &places);
  }
  if (diags.error_count() > errors_before) return {};
  check_duplicates(hosts, places, diags);
  if (hosts.empty() && diags.error_count() == errors_before) {
    diags.error(Location{file, 1, 1}, "hosts", "the inventory lists no hosts");
  }
  return diags.error_count() > errors_before ? std::vector<Host>{} : hosts;
}

}  // namespace pai
