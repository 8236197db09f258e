// The enum name tables: every enumerator spelled once, and the spellings round-trip.
#include "libpai/enum_names.h"

#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "libpai/plan.h"

namespace enum_names_test {

using namespace pai;

namespace {

template <typename Enum>
void check_table(std::size_t enumerators) {
  const auto values = enum_values<Enum>();
  CHECK(values.size() == enumerators);
  std::set<int> seen_values;
  std::set<std::string> seen_names;
  for (Enum v : values) {
    INFO("enumerator " << static_cast<int>(v));
    const std::string name = to_string(v);
    CHECK_FALSE(name.empty());
    CHECK(seen_values.insert(static_cast<int>(v)).second);
    CHECK(seen_names.insert(name).second);
    CHECK(enum_from_string<Enum>(name) == v);
  }
  // Every enumerator 0..N-1 has an entry (enums here count from 0 without gaps).
  for (std::size_t i = 0; i < enumerators; ++i) CHECK(seen_values.count(static_cast<int>(i)) == 1);
}

}  // namespace

TEST_CASE("every named enum of the plan lists each enumerator once") {
  check_table<Runtime>(3);
  check_table<Framework>(9);
  check_table<FabricType>(4);
  check_table<EnvConvention>(3);
  check_table<FaultToleranceMode>(2);
  check_table<RestartPolicy>(4);
  check_table<Inventory>(2);
}

TEST_CASE("enum spellings are the spec's and plan.json's") {
  CHECK(std::string(to_string(Framework::DeepSpeed)) == "deepspeed");
  CHECK(std::string(to_string(RestartPolicy::ExitCodeAndErrorMsg)) == "exitCodeAndErrorMsg");
  CHECK(std::string(to_string(EnvConvention::PerProcess)) == "perProcess");
  CHECK(std::string(to_string(EnvConvention::Torchrun)) == "torchrun");
  CHECK(std::string(to_string(Framework::XGBoost)) == "xgboost");
  CHECK(enum_from_string<FabricType>("roce") == FabricType::Roce);
}

TEST_CASE("an unknown spelling or a value outside the table has no name") {
  CHECK_FALSE(enum_from_string<Runtime>("Docker").has_value());
  CHECK_FALSE(enum_from_string<Runtime>("").has_value());
  CHECK(std::string(to_string(static_cast<Runtime>(42))).empty());
}

}  // namespace enum_names_test
