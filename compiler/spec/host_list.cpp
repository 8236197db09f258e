#include "compiler/spec/host_list.h"

namespace pai {
namespace {

const std::vector<std::string> kHostKeys = {"name", "address", "slots"};

}  // namespace

void parse_host_list(FieldReader& reader, const Node& node, const std::string& path,
                     std::vector<Host>* out) {
  if (!reader.list(node, path, "a list of hosts")) return;
  for (size_t i = 0; i < node.items.size(); ++i) {
    const std::string item_path = index_path(path, i);
    const Node& item = node.items[i];
    reader.record(item_path, item);
    Host host;
    if (item.is_scalar()) {
      if (!is_dns_label(item.scalar)) {
        reader.error(item, item_path,
                     "expected a host name that is a DNS label (at most 63 lowercase "
                     "letters, digits or '-'), got " +
                         describe(item) + "; write {name: ..., address: " + item.scalar +
                         "} to give the host a different address");
        continue;
      }
      host.name = host.address = item.scalar;
    } else if (item.is_mapping()) {
      if (!reader.mapping(item, item_path, kHostKeys)) continue;
      if (const Node* n = reader.required(item, item_path, "name")) {
        reader.dns_label(*n, join_path(item_path, "name"), &host.name);
      }
      host.address = host.name;
      if (const Node* n = reader.optional(item, item_path, "address")) {
        const std::string address_path = join_path(item_path, "address");
        std::string address;
        if (reader.string(*n, address_path, &address)) {
          const bool blank = address.find_first_of(" \t\r\n") != std::string::npos;
          if (address.empty() || blank) {
            reader.error(*n, address_path,
                         "expected a host name or IP address, got " + describe(*n));
          } else {
            host.address = address;
          }
        }
      }
      if (const Node* n = reader.optional(item, item_path, "slots")) {
        reader.integer(*n, join_path(item_path, "slots"), 1, 1024, &host.slots);
      }
    } else {
      reader.error(item, item_path,
                   "expected a host name or {name, address, slots}, got " + describe(item));
      continue;
    }
    out->push_back(std::move(host));
  }
}

}  // namespace pai
