#include "libpai/plan.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "libpai/duration.h"
#include "support/plan_fixture.h"

namespace plan_test {

namespace {

using nlohmann::json;

// Walks a field table beside the schema of the object it describes and notes every
// disagreement: a field the schema lacks or does not require (or requires though the table
// lets it be absent), a JSON type or bound that does not match, a schema property the table
// lacks.
class SchemaWalk {
 public:
  SchemaWalk(const json& root, const json& object, std::string path,
             std::vector<std::string>& problems)
      : root_(root), object_(resolve(object)), path_(std::move(path)), problems_(problems) {
    if (object_.value("type", "") != "object") note(path_, "the schema's is not an object");
    if (object_.value("additionalProperties", true) != false) {
      note(path_, "the schema allows other properties; the reader refuses them");
    }
  }

  template <class T, class... Options>
  void operator()(const char* key, T&, const Options&... options) {
    const json* property = member(key, pai::field::may_be_absent<Options...> || together_);
    if (property) compare<T>(child(key), resolve(*property), options...);
  }

  template <class Problem>
  void check(const char*, const Problem&) {}

  template <class Fn>
  void group(const char* key, const Fn& fn) {
    nested(key, false, fn);
  }

  template <class Flag, class Fn>
  void optional_group(const char* key, Flag&, const Fn& fn) {
    nested(key, true, fn);
  }

  template <class Fn>
  void together(bool, const Fn& fn) {
    together_ = true;
    fn(*this);
    together_ = false;
  }

  template <class Fn>
  void read_if(bool, const Fn& fn) {
    fn(*this);
  }

  // The schema's properties that no field of the table named (but `except`).
  void finish(const std::set<std::string>& except = {}) {
    if (!object_.contains("properties")) return;
    for (const auto& [key, property] : object_["properties"].items()) {
      if (!seen_.contains(key) && !except.contains(key)) {
        note(child(key), "in the schema, not in the table");
      }
    }
  }

 private:
  const json& resolve(const json& node) const {
    if (!node.contains("$ref")) return node;
    const std::string ref = node["$ref"];  // "#/$defs/host"
    return root_.at(json::json_pointer(ref.substr(1)));
  }

  std::string child(const std::string& key) const {
    return path_.empty() ? key : path_ + "." + key;
  }

  void note(const std::string& path, const std::string& what) {
    problems_.push_back(path + ": " + what);
  }

  // The schema of property `key`, noting a missing one and one required other than `optional`.
  const json* member(const char* key, bool optional) {
    seen_.insert(key);
    if (!object_.contains("properties") || !object_["properties"].contains(key)) {
      note(child(key), "in the table, not in the schema");
      return nullptr;
    }
    const json required = object_.value("required", json::array());
    const bool listed = std::find(required.begin(), required.end(), key) != required.end();
    if (listed == optional) {
      note(child(key), optional ? "the schema requires it; the table lets it be absent"
                                : "the table requires it; the schema does not");
    }
    return &object_["properties"][key];
  }

  template <class Fn>
  void nested(const char* key, bool optional, const Fn& fn) {
    const json* property = member(key, optional);
    if (!property) return;
    SchemaWalk walk(root_, *property, child(key), problems_);
    fn(walk);
    walk.finish();
  }

  template <class T>
  void object(const std::string& path, const json& schema) {
    SchemaWalk walk(root_, schema, path, problems_);
    T probe{};
    fields(walk, probe);
    walk.finish();
  }

  // Whether `schema` is of JSON type `type` (or an enum or const of such values).
  static bool typed(const json& schema, const std::string& type) {
    if (schema.contains("type")) return schema["type"] == type;
    const json values = schema.contains("enum") ? schema["enum"] : json::array({schema["const"]});
    return std::all_of(values.begin(), values.end(), [&](const json& v) {
      return type == "string" ? v.is_string() : type == "integer" && v.is_number_integer();
    });
  }

  template <class T, class... Options>
  void compare(const std::string& path, const json& schema, const Options&... options) {
    using EnvVar = std::pair<std::string, std::string>;
    auto expect = [&](const std::string& type) {
      if (!typed(schema, type)) note(path, "the schema's type is not " + type);
    };
    if constexpr (pai::NamedEnum<T>) {
      std::set<std::string> names;
      for (auto value : pai::enum_values<T>()) names.insert(pai::to_string(value));
      const json spellings = schema.value("enum", json::array());
      const std::set<std::string> listed(spellings.begin(), spellings.end());
      if (names != listed) note(path, "the enum's spellings differ from the schema's");
    } else if constexpr (pai::HasFields<T>) {
      object<T>(path, schema);
    } else if constexpr (pai::ListOfFields<T>) {
      expect("array");
      object<typename T::value_type>(path + "[]", resolve(schema.value("items", json::object())));
    } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
      expect("array");
      if (!typed(schema.value("items", json::object()), "string")) note(path, "not strings");
    } else if constexpr (std::is_same_v<T, std::vector<EnvVar>> ||
                         std::is_same_v<T, std::vector<pai::PortRequest>> ||
                         std::is_same_v<T, std::map<std::string, std::vector<int>>>) {
      expect("object");
      if (!schema.contains("additionalProperties") || schema["additionalProperties"] == false) {
        note(path, "a map in the table, fixed properties in the schema");
      }
    } else if constexpr (std::is_same_v<T, std::string>) {
      expect("string");
    } else if constexpr (std::is_same_v<T, bool>) {
      expect("boolean");
    } else if constexpr (std::is_same_v<T, double>) {
      expect("number");
    } else {
      static_assert(std::is_same_v<T, int> || std::is_same_v<T, std::int64_t>);
      expect("integer");
      if constexpr (pai::field::has<pai::AtLeast, Options...>) {
        const int min = pai::field::get<pai::AtLeast>(options...).min;
        if (schema.value("minimum", json()) != min) {
          note(path, "the table's minimum is " + std::to_string(min) + ", not the schema's");
        }
      }
      if constexpr (pai::field::has<pai::Seconds, Options...>) {
        if (schema.value("minimum", -1) < 0 ||
            schema.value("maximum", pai::kMaxDurationSeconds + 1) > pai::kMaxDurationSeconds) {
          note(path, "seconds, but the schema allows values outside 0.." +
                         std::to_string(pai::kMaxDurationSeconds));
        }
      }
    }
  }

  const json& root_;
  const json& object_;
  std::string path_;
  std::vector<std::string>& problems_;
  std::set<std::string> seen_;
  bool together_ = false;
};

json plan_schema() {
  std::ifstream in(std::string(PAI_SOURCE_DIR) + "/schemas/plan.schema.json");
  return json::parse(in);
}

// The disagreements of the Plan's tables with `schema`.
std::vector<std::string> disagreements(const json& schema) {
  std::vector<std::string> problems;
  SchemaWalk walk(schema, schema, "", problems);
  pai::Plan plan;
  fields(walk, plan);
  walk.finish({"hash"});  // the seal, which plan_json.cpp splices into the text
  return problems;
}

}  // namespace

TEST_CASE("the plan's field tables and schemas/plan.schema.json name the same fields") {
  std::string problems;
  for (const std::string& problem : disagreements(plan_schema())) problems += problem + "\n";
  CHECK(problems == "");
}

TEST_CASE("a field the schema lacks or mistypes - or one only the schema has - is found") {
  json schema = plan_schema();
  schema["$defs"]["role"]["properties"].erase("workingDir");
  schema["properties"]["faultTolerance"]["properties"]["restart"]["properties"]["maxRestarts"]
        ["type"] = "string";
  schema["properties"]["sanityCheck"]["properties"]["fabric"]["properties"]["jitter"] =
      json{{"type", "number"}};
  schema["properties"]["sanityCheck"]["properties"]["fabric"]["required"].push_back("jitter");
  schema["properties"]["fabric"]["properties"]["gidIndex"]["minimum"] = 0;
  json& required = schema["required"];
  required.erase(std::find(required.begin(), required.end(), "nodes"));
  required.push_back("inventory");
  schema["properties"]["runtime"]["enum"].push_back("podman");
  CHECK(disagreements(schema) ==
        std::vector<std::string>{
            "runtime: the enum's spellings differ from the schema's",
            "fabric.gidIndex: the table's minimum is -1, not the schema's",
            "inventory: the schema requires it; the table lets it be absent",
            "roles[].workingDir: in the table, not in the schema",
            "faultTolerance.restart.maxRestarts: the schema's type is not integer",
            "sanityCheck.fabric.jitter: in the schema, not in the table",
            "nodes: the table requires it; the schema does not"});
}

TEST_CASE("enums are spelled as in the job spec") {
  using std::string;
  CHECK(string(pai::to_string(pai::Runtime::Host)) == "host");
  CHECK(string(pai::to_string(pai::Runtime::Docker)) == "docker");
  CHECK(string(pai::to_string(pai::Runtime::Apptainer)) == "apptainer");
  CHECK(string(pai::to_string(pai::Framework::PyTorch)) == "pytorch");
  CHECK(string(pai::to_string(pai::Framework::Mpi)) == "mpi");
  CHECK(string(pai::to_string(pai::Framework::TensorFlow)) == "tensorflow");
  CHECK(string(pai::to_string(pai::Framework::DeepSpeed)) == "deepspeed");
  CHECK(string(pai::to_string(pai::Framework::Custom)) == "custom");
  CHECK(string(pai::to_string(pai::FabricType::None)) == "none");
  CHECK(string(pai::to_string(pai::FabricType::Roce)) == "roce");
  CHECK(string(pai::to_string(pai::FabricType::Ib)) == "ib");
  CHECK(string(pai::to_string(pai::FabricType::Ethernet)) == "ethernet");
  CHECK(string(pai::to_string(pai::EnvConvention::PerProcess)) == "perProcess");
  CHECK(string(pai::to_string(pai::EnvConvention::PerNode)) == "perNode");
  CHECK(string(pai::to_string(pai::FaultToleranceMode::Sync)) == "sync");
  CHECK(string(pai::to_string(pai::FaultToleranceMode::Async)) == "async");
  CHECK(string(pai::to_string(pai::RestartPolicy::ExitCodeAndErrorMsg)) == "exitCodeAndErrorMsg");
  CHECK(string(pai::to_string(pai::RestartPolicy::ExitCode)) == "exitCode");
  CHECK(string(pai::to_string(pai::RestartPolicy::OnFailure)) == "onFailure");
  CHECK(string(pai::to_string(pai::RestartPolicy::Never)) == "never");
  CHECK(string(pai::to_string(pai::Inventory::Static)) == "static");
  CHECK(string(pai::to_string(pai::Inventory::Slurm)) == "slurm");
}

TEST_CASE("find_placement and find_role look up by name") {
  pai::Plan plan = pai::testing::make_test_plan(3, 2);
  REQUIRE(pai::find_placement(plan, "worker", 2) != nullptr);
  CHECK(pai::find_placement(plan, "worker", 2)->node_rank == 2);
  REQUIRE(pai::find_placement(plan, "ps", 0) != nullptr);
  CHECK(pai::find_placement(plan, "ps", 0)->node_rank == 3);
  CHECK(pai::find_placement(plan, "ps", 1) == nullptr);
  CHECK(pai::find_placement(plan, "worker", -1) == nullptr);
  CHECK(pai::find_placement(plan, "nope", 0) == nullptr);
  REQUIRE(pai::find_role(plan, "ps") != nullptr);
  CHECK(pai::find_role(plan, "ps")->nproc_per_node == 1);
  CHECK(pai::find_role(plan, "nope") == nullptr);

  // A hand-ordered plan still answers correctly.
  std::swap(plan.placements[0], plan.placements[3]);
  REQUIRE(pai::find_placement(plan, "ps", 0) != nullptr);
  CHECK(pai::find_placement(plan, "ps", 0)->role == "ps");
  CHECK(pai::find_placement(plan, "worker", 0)->index == 0);
}

}  // namespace plan_test
