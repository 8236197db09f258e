#include "compiler/spec/host_list.h"

#include <catch2/catch.hpp>

#include "compiler/document/yaml_loader.h"

namespace pai {
namespace host_list_test {

struct Parsed {
  Diagnostics diags;
  std::map<std::string, Location> locations;
  std::vector<Host> hosts;
};

void parse(const std::string& yaml, Parsed* p) {
  const Document doc = load_yaml("job.yaml", yaml);
  FieldReader reader(p->diags, p->locations);
  parse_host_list(reader, *doc.root.find("hosts"), "hosts", &p->hosts);
}

TEST_CASE("parse_host_list reads names and mappings and records locations") {
  Parsed p;
  parse("hosts:\n  - gpu-001\n  - {name: gpu-002, address: 10.0.0.2, slots: 8}\n", &p);
  CHECK_FALSE(p.diags.has_errors());
  REQUIRE(p.hosts.size() == 2);
  CHECK(p.hosts[0].name == "gpu-001");
  CHECK(p.hosts[0].address == "gpu-001");
  CHECK(p.hosts[0].slots == 0);
  CHECK(p.hosts[1].name == "gpu-002");
  CHECK(p.hosts[1].address == "10.0.0.2");
  CHECK(p.hosts[1].slots == 8);
  CHECK(p.locations.at("hosts[1]").line == 3);
  CHECK(p.locations.at("hosts[1].slots").column == 47);
}

TEST_CASE("parse_host_list skips bad items with located errors") {
  Parsed p;
  parse("hosts:\n  - [a]\n  - {name: gpu-1, address: \"a b\"}\n  - gpu-2\n", &p);
  REQUIRE(p.diags.all().size() == 2);
  CHECK(p.diags.all()[0].loc.line == 2);
  CHECK(p.diags.all()[0].path == "hosts[0]");
  CHECK(p.diags.all()[0].message == "expected a host name or {name, address, slots}, got a list");
  CHECK(p.diags.all()[1].loc.line == 3);
  CHECK(p.diags.all()[1].path == "hosts[1].address");
  CHECK(p.diags.all()[1].message == "expected a host name or IP address, got \"a b\"");
  REQUIRE(p.hosts.size() == 2);
  CHECK(p.hosts[0].address == "gpu-1");
  CHECK(p.hosts[1].name == "gpu-2");
}

TEST_CASE("parse_host_list requires a list") {
  Parsed p;
  parse("hosts: gpu-001\n", &p);
  REQUIRE(p.diags.all().size() == 1);
  CHECK(p.diags.all()[0].loc.column == 8);
  CHECK(p.diags.all()[0].message == "expected a list of hosts, got \"gpu-001\"");
  CHECK(p.hosts.empty());
}

}  // namespace host_list_test
}  // namespace pai
