#include "compiler/spec/role_parser.h"

#include <catch2/catch.hpp>

#include "compiler/document/yaml_loader.h"

namespace role_parser_test {

using namespace pai;

namespace {

struct Parsed {
  Diagnostics diags;
  std::map<std::string, Location> locations;
  Role role;
};

std::unique_ptr<Parsed> parse(const std::string& yaml,
                              const std::map<std::string, std::string>& parameters = {}) {
  auto p = std::make_unique<Parsed>();
  const Document doc = load_yaml("job.yaml", yaml);
  FieldReader reader(p->diags, p->locations);
  p->role = parse_role(doc.root, "roles.w", "w", parameters, reader);
  return p;
}

}  // namespace

TEST_CASE("role names are usable in env var names") {
  CHECK(is_role_name("worker"));
  CHECK(is_role_name("Worker_2"));
  CHECK(is_role_name(std::string(32, 'a')));
  CHECK_FALSE(is_role_name(std::string(33, 'a')));
  CHECK_FALSE(is_role_name("_w"));
  CHECK_FALSE(is_role_name("2w"));
  CHECK_FALSE(is_role_name("my-worker"));
  CHECK_FALSE(is_role_name(""));
}

TEST_CASE("parse_role reads resources before resolving nprocPerNode gpu") {
  const auto p = parse("nprocPerNode: gpu\nresources: {gpu: 4}\ncommand: [a, b]\n");
  CHECK(p->diags.all().empty());
  CHECK(p->role.name == "w");
  CHECK(p->role.nproc_per_node == 4);
  CHECK(p->role.env_convention == EnvConvention::PerProcess);
  CHECK(p->role.command == std::vector<std::string>{"a", "b"});
  CHECK(p->locations.count("roles.w.resources.gpu") == 1);
}

TEST_CASE("parse_role lets envConvention override the default") {
  const auto p = parse("nprocPerNode: 2\nenvConvention: perNode\ncommand: x\n");
  CHECK(p->diags.all().empty());
  CHECK(p->role.env_convention == EnvConvention::PerNode);
}

TEST_CASE("parse_role substitutes parameters in list commands and env") {
  const auto p = parse("command: [run, \"--n=${parameters.n}\"]\nenv: {N: \"${parameters.n}0\"}\n",
                       {{"n", "7"}});
  CHECK(p->diags.all().empty());
  CHECK(p->role.command == std::vector<std::string>{"run", "--n=7"});
  CHECK(p->role.env == std::vector<std::pair<std::string, std::string>>{{"N", "70"}});
}

TEST_CASE("parse_role suggests the nested field for a misplaced key") {
  const auto p = parse("command: x\ngpu: 8\n");
  REQUIRE(p->diags.all().size() == 1);
  CHECK(p->diags.all()[0].message == "unknown key \"gpu\" (did you mean \"resources.gpu\"?)");
}

}  // namespace role_parser_test
