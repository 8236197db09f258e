#include "compiler/spec/spec.h"

#include <catch2/catch.hpp>

namespace spec_test {

using pai::JobSpec;
using pai::Location;

TEST_CASE("JobSpec::where finds the exact path") {
  JobSpec spec;
  spec.locations[""] = Location{"job.yaml", 1, 1};
  spec.locations["roles.worker.instances"] = Location{"job.yaml", 12, 16};
  const Location loc = spec.where("roles.worker.instances");
  CHECK(loc.file == "job.yaml");
  CHECK(loc.line == 12);
  CHECK(loc.column == 16);
}

TEST_CASE("JobSpec::where falls back to the nearest recorded parent") {
  JobSpec spec;
  spec.locations[""] = Location{"job.yaml", 1, 1};
  spec.locations["hosts"] = Location{"job.yaml", 5, 3};
  spec.locations["hosts[2]"] = Location{"job.yaml", 8, 5};
  CHECK(spec.where("hosts[2].address").line == 8);
  CHECK(spec.where("hosts[3].name").line == 5);
  CHECK(spec.where("roles.worker.ports.sync").line == 1);
}

TEST_CASE("JobSpec::where without any location gives the file only") {
  JobSpec spec;
  CHECK(spec.where("name").file.empty());
  spec.locations["name"] = Location{"job.jsonnet", 0, 0};
  const Location loc = spec.where("roles");
  CHECK(loc.file == "job.jsonnet");
  CHECK(loc.line == 0);
}

}  // namespace spec_test
