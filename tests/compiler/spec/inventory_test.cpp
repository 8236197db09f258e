#include "compiler/spec/inventory.h"

#include <catch2/catch.hpp>
#include <string>

namespace pai {
namespace inventory_test {

/// The hosts of `text`, requiring that it loads without diagnostics.
std::vector<Host> load_ok(const std::string& text) {
  Diagnostics diags;
  std::vector<Host> hosts = load_inventory("hosts.txt", text, diags);
  INFO(diags.render_text({{"hosts.txt", text}}));
  REQUIRE(diags.all().empty());
  return hosts;
}

/// The diagnostics of `text`, requiring that it is rejected with no hosts returned.
std::vector<Diagnostic> load_errors(const std::string& text) {
  Diagnostics diags;
  const std::vector<Host> hosts = load_inventory("hosts.txt", text, diags);
  REQUIRE(diags.has_errors());
  CHECK(hosts.empty());
  return diags.all();
}

void check_error(const Diagnostic& d, int line, int column, const std::string& path,
                 const std::string& message) {
  CHECK(d.severity == Severity::Error);
  CHECK(d.loc.file == "hosts.txt");
  CHECK(d.loc.line == line);
  CHECK(d.loc.column == column);
  CHECK(d.path == path);
  CHECK(d.message == message);
}

void check_host(const Host& h, const std::string& name, const std::string& address, int slots) {
  CHECK(h.name == name);
  CHECK(h.address == address);
  CHECK(h.slots == slots);
}

TEST_CASE("load_inventory reads an MPI hostfile in both styles") {
  const std::vector<Host> hosts = load_ok(
      "# the cluster\n"
      "gpu-001 slots=8\n"
      "  gpu-002   slots=8   # rack 2\n"
      "\n"
      "gpu-003:4\r\n"
      "gpu-004\n");
  REQUIRE(hosts.size() == 4);
  check_host(hosts[0], "gpu-001", "gpu-001", 8);
  check_host(hosts[1], "gpu-002", "gpu-002", 8);
  check_host(hosts[2], "gpu-003", "gpu-003", 4);
  check_host(hosts[3], "gpu-004", "gpu-004", 0);
}

TEST_CASE("load_inventory names hostfile entries that are addresses") {
  const std::vector<Host> hosts = load_ok(
      "\xef\xbb\xbf"
      "10.0.0.7 slots=2\nNode_8.Cluster\n");
  REQUIRE(hosts.size() == 2);
  check_host(hosts[0], "10-0-0-7", "10.0.0.7", 2);
  check_host(hosts[1], "node-8-cluster", "Node_8.Cluster", 0);
}

TEST_CASE("load_inventory reads a YAML list of names and mappings") {
  const std::vector<Host> hosts = load_ok(
      "# inventory\n"
      "- gpu-001\n"
      "- {name: gpu-002, address: 10.0.0.2, slots: 8}\n");
  REQUIRE(hosts.size() == 2);
  check_host(hosts[0], "gpu-001", "gpu-001", 0);
  check_host(hosts[1], "gpu-002", "10.0.0.2", 8);
  REQUIRE(load_ok("[gpu-001, gpu-002]\n").size() == 2);
}

TEST_CASE("load_inventory rejects bad slots with their location") {
  const auto bad_word = load_errors("gpu-001 slots=eight\n");
  REQUIRE(bad_word.size() == 1);
  check_error(bad_word[0], 1, 15, "hosts[0].slots",
              "expected an integer between 1 and 1024, got \"eight\"");

  const auto zero = load_errors("gpu-001 slots=0\ngpu-002:x\n");
  REQUIRE(zero.size() == 2);
  check_error(zero[0], 1, 15, "hosts[0].slots", "expected an integer between 1 and 1024, got 0");
  check_error(zero[1], 2, 9, "hosts[1].slots", "expected an integer between 1 and 1024, got \"x\"");

  const auto yaml = load_errors("- {name: gpu-001, slots: -2}\n");
  REQUIRE(yaml.size() == 1);
  check_error(yaml[0], 1, 26, "hosts[0].slots", "expected an integer between 1 and 1024, got -2");
}

TEST_CASE("load_inventory rejects unknown hostfile words") {
  const auto errors = load_errors("gpu-001 max_slots=4\ngpu-002 slots=2 slots=4\n");
  REQUIRE(errors.size() == 2);
  check_error(errors[0], 1, 9, "hosts[0]",
              "unexpected \"max_slots=4\" in hostfile line; expected \"host\", "
              "\"host slots=N\" or \"host:N\"");
  check_error(errors[1], 2, 17, "hosts[1]",
              "unexpected \"slots=4\" in hostfile line; expected \"host\", "
              "\"host slots=N\" or \"host:N\"");
}

TEST_CASE("load_inventory rejects duplicate hosts and addresses") {
  const auto hostfile = load_errors("gpu-001\ngpu-002\ngpu-001 slots=2\n");
  REQUIRE(hostfile.size() == 1);
  check_error(hostfile[0], 3, 1, "hosts[2].name",
              "duplicate host name \"gpu-001\" (also hosts[0])");

  const auto yaml = load_errors("- gpu-001\n- gpu-001\n");
  REQUIRE(yaml.size() == 1);
  check_error(yaml[0], 2, 3, "hosts[1].name", "duplicate host name \"gpu-001\" (also hosts[0])");

  const auto address =
      load_errors("- {name: gpu-001, address: 10.0.0.2}\n- {name: gpu-002, address: 10.0.0.2}\n");
  REQUIRE(address.size() == 1);
  check_error(address[0], 2, 28, "hosts[1].address",
              "duplicate address \"10.0.0.2\" (also hosts[0])");
}

TEST_CASE("load_inventory reports YAML item errors with suggestions") {
  const auto errors = load_errors("- {name: gpu-001, slot: 2}\n- Bad_Name\n");
  REQUIRE(errors.size() == 2);
  check_error(errors[0], 1, 19, "hosts[0]", "unknown key \"slot\" (did you mean \"slots\"?)");
  check_error(errors[1], 2, 3, "hosts[1]",
              "expected a host name that is a DNS label (at most 63 lowercase letters, digits "
              "or '-'), got \"Bad_Name\"; write {name: ..., address: Bad_Name} to give the "
              "host a different address");
}

TEST_CASE("load_inventory passes YAML load errors through") {
  const auto errors = load_errors("[gpu-001, \xff]\n");
  REQUIRE(errors.size() == 1);
  check_error(errors[0], 1, 11, "", "file is not valid UTF-8 (byte 0xff)");
}

TEST_CASE("load_inventory rejects an inventory without hosts") {
  const auto errors = load_errors("# nothing yet\n\n");
  REQUIRE(errors.size() == 1);
  check_error(errors[0], 1, 1, "hosts", "the inventory lists no hosts");
  check_error(load_errors("")[0], 1, 1, "hosts", "the inventory lists no hosts");
}

TEST_CASE("load_inventory rejects an entry that cannot be a host name") {
  const auto errors = load_errors(":4\n  gpu\xff slots=2\nuser@gpu-003\n");
  REQUIRE(errors.size() == 3);
  check_error(errors[0], 1, 1, "hosts[0]", "expected a host name or IPv4 address, got \"\"");
  check_error(errors[1], 2, 3, "hosts[1]",
              "expected a host name or IPv4 address, got \"gpu\\xff\"");
  check_error(errors[2], 3, 1, "hosts[2]",
              "expected a host name or IPv4 address, got \"user@gpu-003\"");

  const auto too_long = load_errors(std::string(64, 'a') + "\n");
  REQUIRE(too_long.size() == 1);
  check_error(too_long[0], 1, 1, "hosts[0]",
              "expected a DNS label (at most 63 lowercase letters, digits or '-', starting and "
              "ending with a letter or digit), got \"" +
                  std::string(60, 'a') + "...\"");
}

}  // namespace inventory_test
}  // namespace pai
