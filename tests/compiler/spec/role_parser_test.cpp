#include "compiler/spec/role_parser.h"

#include <catch2/catch.hpp>

#include "compiler/document/yaml_loader.h"
#include "compiler/spec/exec_limits.h"

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

TEST_CASE("parse_role refuses exec strings over MAX_ARG_STRLEN, at the field") {
  const std::string at_limit(kMaxExecString - 1, 'a');  // with its NUL: exactly the limit
  const std::string over(kMaxExecString, 'a');
  // NAME=value is the exec string: a value of limit-3 bytes under "AB=" fits with its NUL.
  const auto ok = parse("command: [run, " + at_limit +
                        "]\nenv: {AB: " + std::string(kMaxExecString - 4, 'v') + "}\n");
  CHECK(ok->diags.all().empty());

  const auto p = parse("command: [run, " + over +
                       "]\nenv:\n  AB: " + std::string(kMaxExecString - 3, 'v') + "\n");
  REQUIRE(p->diags.all().size() == 2);
  const Diagnostic& arg = p->diags.all()[0];
  CHECK(arg.path == "roles.w.command[1]");
  CHECK(arg.loc.line == 1);
  CHECK(arg.loc.column == 16);
  CHECK(arg.message ==
        "the argument is 131073 bytes with its terminating NUL, over the kernel's "
        "limit of 131072 for one argument or NAME=value (MAX_ARG_STRLEN): exec "
        "would fail with E2BIG");
  const Diagnostic& env = p->diags.all()[1];
  CHECK(env.path == "roles.w.env.AB");
  CHECK(env.loc.line == 3);
  CHECK(env.message.starts_with("AB=value is 131073 bytes with its terminating NUL"));
}

TEST_CASE("parse_role refuses a command script that parameters make too long") {
  const auto p =
      parse("command: \"echo ${parameters.big}\"\n", {{"big", std::string(kMaxExecString, 'x')}});
  REQUIRE(p->diags.all().size() == 1);
  CHECK(p->diags.all()[0].path == "roles.w.command");
  CHECK(p->diags.all()[0].message.starts_with("the command is 131078 bytes"));
}

TEST_CASE("parse_role refuses a NUL byte in an env value or an argument") {
  const auto p = parse("command: [run, \"a\\0b\"]\nenv: {TOKEN: \"abc\\0def\"}\n");
  REQUIRE(p->diags.all().size() == 2);
  CHECK(p->diags.all()[0].path == "roles.w.command[1]");
  CHECK(p->diags.all()[0].message.starts_with("the argument holds a NUL byte at byte 1"));
  CHECK(p->diags.all()[1].path == "roles.w.env.TOKEN");
  CHECK(p->diags.all()[1].message ==
        "TOKEN=value holds a NUL byte at byte 9: a process is given the text before it, and "
        "the env script and the launcher would disagree");
  CHECK(exec_string_problem("plain").empty());
}

}  // namespace role_parser_test
