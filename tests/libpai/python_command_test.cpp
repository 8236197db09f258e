#include "libpai/python_command.h"

#include <catch2/catch.hpp>

namespace python_command_test {

using namespace pai;

TEST_CASE("a Python command reads as interpreter, options, target and args") {
  std::string why;
  auto c = parse_python_command({"python3", "train.py", "-u", "--lr", "1"}, &why);
  REQUIRE(c);
  CHECK(c->interpreter == "python3");
  CHECK_FALSE(c->unbuffered);
  CHECK_FALSE(c->module);
  CHECK(c->target == "train.py");
  CHECK(c->args == std::vector<std::string>{"-u", "--lr", "1"});  // the script's, not Python's

  c = parse_python_command({"/opt/venv/bin/python3.11", "-u", "-B", "-m", "pkg.train", "x"}, &why);
  REQUIRE(c);
  CHECK(c->unbuffered);
  CHECK(c->no_bytecode);
  CHECK(c->module);
  CHECK(c->target == "pkg.train");
  CHECK(c->args == std::vector<std::string>{"x"});
  CHECK(parse_python_command({"python"}, &why) == std::nullopt);
  CHECK(why == "the command names no script or module for Python to run");
}

TEST_CASE("what a warm interpreter cannot run is refused with a reason") {
  std::string why;
  for (const auto& argv : std::vector<std::vector<std::string>>{
           {}, {"/bin/sh", "-c", "python3 x.py"}, {"pythonista", "x.py"}, {"torchrun", "x.py"}}) {
    INFO(argv.size());
    CHECK_FALSE(parse_python_command(argv, &why));
    CHECK(why.rfind("the command does not start with a Python interpreter", 0) == 0);
  }
  CHECK_FALSE(parse_python_command({"python3", "-c", "print(1)"}, &why));
  CHECK(why ==
        "the interpreter option -c is not one a warm interpreter can honour (only -u, -B and -m "
        "are)");
  CHECK_FALSE(parse_python_command({"python3", "-m"}, &why));
  CHECK(why == "-m is not followed by a module name");
  CHECK_FALSE(parse_python_command({"python3", "-m", "not-a-module"}, &why));
}

TEST_CASE("module names are dotted identifiers") {
  for (const char* ok : {"torch", "torch.distributed", "_x.y_2", "numpy"}) {
    CHECK(is_python_module_name(ok));
  }
  for (const char* bad : {"", ".", "a.", ".a", "a..b", "2x", "my-pkg", "a b", "a/b"}) {
    INFO(bad);
    CHECK_FALSE(is_python_module_name(bad));
  }
}

}  // namespace python_command_test
