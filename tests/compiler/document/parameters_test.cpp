#include "compiler/document/parameters.h"

#include <catch2/catch.hpp>

namespace parameters_test {

using pai::Diagnostics;
using pai::Location;
using pai::substitute_parameters;

namespace {

const std::map<std::string, std::string> kParams = {{"lr", "3e-4"}, {"steps", "1000"}};
const Location kLoc{"job.yaml", 7, 14};

}  // namespace

TEST_CASE("substitute_parameters replaces every reference") {
  Diagnostics diags;
  CHECK(substitute_parameters("train --lr ${parameters.lr} --steps=${parameters.steps}${parameters.lr}",
                              kParams, kLoc, "roles.worker.command", diags) ==
        "train --lr 3e-4 --steps=10003e-4");
  CHECK_FALSE(diags.has_errors());
}

TEST_CASE("substitute_parameters leaves shell variables and plain text alone") {
  Diagnostics diags;
  CHECK(substitute_parameters("echo ${HOME} $RANK ${parameters} {parameters.lr} ${parameters.lr",
                              kParams, kLoc, "p", diags) ==
        "echo ${HOME} $RANK ${parameters} {parameters.lr} ${parameters.lr");
  CHECK_FALSE(diags.has_errors());
}

TEST_CASE("substitute_parameters reports an undefined parameter with a suggestion") {
  Diagnostics diags;
  const std::string out =
      substitute_parameters("run ${parameters.lrr}", kParams, kLoc, "roles.worker.command", diags);
  CHECK(out == "run ${parameters.lrr}");
  REQUIRE(diags.all().size() == 1);
  const pai::Diagnostic& d = diags.all()[0];
  CHECK(d.path == "roles.worker.command");
  CHECK(d.loc.line == 7);
  CHECK(d.loc.column == 14);
  CHECK(d.message ==
        "undefined parameter \"lrr\" in ${parameters.lrr} (did you mean \"lr\"? defined: lr, steps)");
}

TEST_CASE("substitute_parameters without a close name lists the defined ones") {
  Diagnostics diags;
  substitute_parameters("${parameters.batch}", kParams, kLoc, "p", diags);
  REQUIRE(diags.all().size() == 1);
  CHECK(diags.all()[0].message ==
        "undefined parameter \"batch\" in ${parameters.batch} (defined: lr, steps)");
}

TEST_CASE("substitute_parameters with no parameters at all says so") {
  Diagnostics diags;
  substitute_parameters("${parameters.lr} ${parameters.x}", {}, kLoc, "p", diags);
  REQUIRE(diags.all().size() == 2);
  CHECK(diags.all()[0].message ==
        "undefined parameter \"lr\" in ${parameters.lr} (the spec defines no parameters)");
  CHECK(diags.all()[1].message ==
        "undefined parameter \"x\" in ${parameters.x} (the spec defines no parameters)");
}

}  // namespace parameters_test
