#include "compiler/spec/policy_parser.h"

#include <catch2/catch.hpp>

#include "compiler/document/yaml_loader.h"

namespace policy_parser_test {

using namespace pai;

TEST_CASE("the built-in checks in run order") {
  CHECK(builtin_check_names() ==
        std::vector<std::string>{"gpu", "burn", "nccl", "network", "mounts", "disk"});
}

TEST_CASE("parse_fault_tolerance keeps AIMaster defaults for unwritten fields") {
  Diagnostics diags;
  std::map<std::string, Location> locations;
  FieldReader reader(diags, locations);
  FaultTolerance ft;
  parse_fault_tolerance(load_yaml("job.yaml", "policy: never\nhang: {interval: 1h}\n").root,
                        "faultTolerance", reader, &ft);
  CHECK(diags.all().empty());
  CHECK(ft.policy == RestartPolicy::Never);
  CHECK(ft.hang.interval_seconds == 3600);
  CHECK(ft.hang.exit_interval_seconds == 600);
  CHECK(ft.max_restarts == 3);
  CHECK(ft.backoff_seconds == 10);
  CHECK(ft.max_same_error == 10);
  CHECK(ft.max_tolerated_failure_rate == -1);
  CHECK(ft.grace_period_seconds == 30);
  CHECK(locations.at("faultTolerance.hang.interval").line == 2);
}

TEST_CASE("parse_fault_tolerance points misplaced keys to their section") {
  Diagnostics diags;
  std::map<std::string, Location> locations;
  FieldReader reader(diags, locations);
  FaultTolerance ft;
  parse_fault_tolerance(load_yaml("job.yaml", "interval: 1h\nbackof: 5s\n").root,
                        "faultTolerance", reader, &ft);
  REQUIRE(diags.all().size() == 2);
  CHECK(diags.all()[0].message == "unknown key \"interval\" (did you mean \"hang.interval\"?)");
  CHECK(diags.all()[1].message == "unknown key \"backof\" (did you mean \"restart.backoff\"?)");
  CHECK(ft.hang.interval_seconds == 1800);
}

TEST_CASE("parse_fault_tolerance reads diagnosis settings") {
  Diagnostics diags;
  std::map<std::string, Location> locations;
  FieldReader reader(diags, locations);
  FaultTolerance ft;
  parse_fault_tolerance(
      load_yaml("job.yaml", "diagnosis: {action: isolate, hangAfter: 2m, slowFactor: 1.5}\n").root,
      "faultTolerance", reader, &ft);
  CHECK(diags.all().empty());
  CHECK(ft.diagnosis.enabled);
  CHECK(ft.diagnosis.action == DiagnosisAction::Isolate);
  CHECK(ft.diagnosis.hang_seconds == 120);
  CHECK(ft.diagnosis.slow_factor == 1.5);
  CHECK(ft.diagnosis.slow_windows == 5);
  CHECK(ft.diagnosis.rtt_factor == 3);
}

TEST_CASE("parse_fault_tolerance reads the swap policy - off by default, durations checked") {
  Diagnostics diags;
  std::map<std::string, Location> locations;
  FieldReader reader(diags, locations);
  FaultTolerance ft;
  CHECK_FALSE(ft.swap.enabled);
  CHECK(ft.swap.after_seconds == 60);
  CHECK(ft.swap.checkpoint_timeout_seconds == 600);
  parse_fault_tolerance(
      load_yaml("job.yaml", "swap: {enabled: true, after: 2m, checkpointTimeout: 90s}\n").root,
      "faultTolerance", reader, &ft);
  CHECK(diags.all().empty());
  CHECK(ft.swap.enabled);
  CHECK(ft.swap.after_seconds == 120);
  CHECK(ft.swap.checkpoint_timeout_seconds == 90);

  FaultTolerance bad;
  parse_fault_tolerance(
      load_yaml("job.yaml", "swap: {enabled: yes please, after: 0s, checkpointTimout: 1m}\n").root,
      "faultTolerance", reader, &bad);
  REQUIRE(diags.all().size() == 3);
  CHECK(diags.all()[0].path == "faultTolerance.swap");
  CHECK(diags.all()[0].message ==
        "unknown key \"checkpointTimout\" (did you mean \"checkpointTimeout\"?)");
  CHECK(diags.all()[1].path == "faultTolerance.swap.enabled");
  CHECK(diags.all()[2].path == "faultTolerance.swap.after");
  CHECK(diags.all()[2].loc.line == 1);
  CHECK_FALSE(bad.swap.enabled);
  CHECK(bad.swap.after_seconds == 60);
}

TEST_CASE("parse_fault_tolerance rejects diagnosis factors that never fire") {
  Diagnostics diags;
  std::map<std::string, Location> locations;
  FieldReader reader(diags, locations);
  FaultTolerance ft;
  parse_fault_tolerance(
      load_yaml("job.yaml",
                "diagnosis: {action: restart, slowFactor: 120, slowWindows: 0, rttFactor: 1}\n")
          .root,
      "faultTolerance", reader, &ft);
  REQUIRE(diags.all().size() == 4);
  CHECK(diags.all()[0].message.find("warn") != std::string::npos);
  CHECK(diags.all()[1].message.find("greater than 1 and at most 100") != std::string::npos);
  CHECK(diags.all()[1].path == "faultTolerance.diagnosis.slowFactor");
  CHECK(diags.all()[3].path == "faultTolerance.diagnosis.rttFactor");
  CHECK(ft.diagnosis.slow_factor == 1.2);
}

TEST_CASE("parse_fault_tolerance reads the adaptive hang interval and the NCCL profiler switch") {
  Diagnostics diags;
  std::map<std::string, Location> locations;
  FieldReader reader(diags, locations);
  FaultTolerance ft;
  CHECK(ft.hang.adaptive_factor == 0);  // off unless asked
  CHECK_FALSE(ft.diagnosis.nccl_profiler);
  parse_fault_tolerance(load_yaml("job.yaml",
                                  "hang: {adaptive: {floor: 2m, warmupSteps: 50}}\n"
                                  "diagnosis: {ncclProfiler: true}\n")
                            .root,
                        "faultTolerance", reader, &ft);
  CHECK(diags.all().empty());
  CHECK(ft.hang.adaptive_factor == 10);
  CHECK(ft.hang.adaptive_floor_seconds == 120);
  CHECK(ft.hang.adaptive_warmup_steps == 50);
  CHECK(ft.hang.interval_seconds == 1800);
  CHECK(ft.diagnosis.nccl_profiler);
}

TEST_CASE("parse_fault_tolerance refuses adaptive hang settings that cannot work") {
  Diagnostics diags;
  std::map<std::string, Location> locations;
  FieldReader reader(diags, locations);
  FaultTolerance ft;
  parse_fault_tolerance(
      load_yaml("job.yaml", "hang: {adaptive: {factor: 0.5, floor: 0s, warmupSteps: 0, k: 1}}\n")
          .root,
      "faultTolerance", reader, &ft);
  REQUIRE(diags.all().size() == 4);
  CHECK(diags.all()[0].path == "faultTolerance.hang.adaptive");
  CHECK(diags.all()[0].message.find("unknown key \"k\"") != std::string::npos);
  CHECK(diags.all()[1].path == "faultTolerance.hang.adaptive.factor");
  CHECK(diags.all()[2].path == "faultTolerance.hang.adaptive.floor");
  CHECK(diags.all()[3].path == "faultTolerance.hang.adaptive.warmupSteps");
}

TEST_CASE("parse_fault_tolerance turns the adaptive interval off with enabled: false") {
  Diagnostics diags;
  std::map<std::string, Location> locations;
  FieldReader reader(diags, locations);
  FaultTolerance ft;
  parse_fault_tolerance(
      load_yaml("job.yaml", "hang: {adaptive: {enabled: false, factor: 4}}\n").root,
      "faultTolerance", reader, &ft);
  CHECK(diags.all().empty());
  CHECK(ft.hang.adaptive_factor == 0);
}

TEST_CASE("parse_sanity_check reads custom checks with parameters and defaults") {
  Diagnostics diags;
  std::map<std::string, Location> locations;
  FieldReader reader(diags, locations);
  SanityCheck sc;
  sc.checks = builtin_check_names();
  parse_sanity_check(
      load_yaml("job.yaml", "custom: [{name: ib, command: \"check ${parameters.hca}\"}]\n").root,
      "sanityCheck", {{"hca", "mlx5_0"}}, reader, &sc);
  CHECK(diags.all().empty());
  CHECK(sc.checks.size() == 6);
  REQUIRE(sc.custom.size() == 1);
  CHECK(sc.custom[0].name == "ib");
  CHECK(sc.custom[0].command == "check mlx5_0");
  CHECK(sc.custom[0].timeout_seconds == 60);
}

TEST_CASE("parse_sanity_check turns on the fabric check from checks and reads its settings") {
  Diagnostics diags;
  std::map<std::string, Location> locations;
  FieldReader reader(diags, locations);
  SanityCheck sc;
  sc.checks = builtin_check_names();
  parse_sanity_check(load_yaml("job.yaml",
                               "checks: [gpu, fabric]\n"
                               "fabric: {minTcpGbps: 20, duration: 5s, timeout: 1m, streams: 8,\n"
                               "         beforeRestarts: true, allNodes: true, minBusGbps: 150.5,\n"
                               "         nccl: false}\n")
                         .root,
                     "sanityCheck", {}, reader, &sc);
  CHECK(diags.all().empty());
  // The node checks stay in checks; fabric is the coordinator's.
  CHECK(sc.checks == std::vector<std::string>{"gpu"});
  CHECK(sc.fabric.enabled);
  CHECK(sc.fabric.min_tcp_gbps == 20);
  CHECK(sc.fabric.duration_seconds == 5);
  CHECK(sc.fabric.timeout_seconds == 60);
  CHECK(sc.fabric.streams == 8);
  CHECK(sc.fabric.before_restarts);
  CHECK(sc.fabric.all_nodes);
  CHECK(sc.fabric.min_bus_gbs == 150.5);
  CHECK_FALSE(sc.fabric.nccl);
}

TEST_CASE("parse_sanity_check leaves the fabric check off unless listed") {
  Diagnostics diags;
  std::map<std::string, Location> locations;
  FieldReader reader(diags, locations);
  SanityCheck sc;
  sc.checks = builtin_check_names();
  parse_sanity_check(load_yaml("job.yaml", "fabric: {streams: 2}\n").root, "sanityCheck", {},
                     reader, &sc);
  CHECK(diags.all().empty());
  CHECK_FALSE(sc.fabric.enabled);
  CHECK(sc.fabric.streams == 2);
  CHECK(sc.fabric.duration_seconds == 2);
  CHECK(sc.fabric.timeout_seconds == 30);
  CHECK_FALSE(sc.fabric.all_nodes);
  CHECK(sc.fabric.min_bus_gbs == 0);
  CHECK(sc.fabric.nccl);
}

TEST_CASE("parse_sanity_check names the fabric field out of range") {
  Diagnostics diags;
  std::map<std::string, Location> locations;
  FieldReader reader(diags, locations);
  SanityCheck sc;
  parse_sanity_check(
      load_yaml("job.yaml",
                "fabric:\n  duration: 2m\n  streams: 65\n  minTcpGbps: -1\n  allNodes: often\n")
          .root,
      "sanityCheck", {}, reader, &sc);
  REQUIRE(diags.all().size() == 4);
  CHECK(diags.all()[0].path == "sanityCheck.fabric.minTcpGbps");
  CHECK(diags.all()[0].loc.line == 4);
  CHECK(diags.all()[1].path == "sanityCheck.fabric.duration");
  CHECK(diags.all()[1].loc.line == 2);
  CHECK(diags.all()[1].message.find("at most 60s") != std::string::npos);
  CHECK(diags.all()[2].path == "sanityCheck.fabric.streams");
  CHECK(diags.all()[3].path == "sanityCheck.fabric.allNodes");
  CHECK(diags.all()[3].loc.line == 5);
  CHECK(sc.fabric.duration_seconds == 2);
  CHECK(sc.fabric.streams == 4);
}

// Parses sources' job.yaml as a sanityCheck section into `sc`, its errors into `diags`.
void parse_sanity_source(const std::map<std::string, std::string>& sources, Diagnostics& diags,
                         SanityCheck* sc) {
  std::map<std::string, Location> locations;
  FieldReader reader(diags, locations);
  parse_sanity_check(load_yaml("job.yaml", sources.at("job.yaml")).root, "sanityCheck", {},
                     reader, sc);
}

TEST_CASE("parse_sanity_check names the fabric's NCCL floor and switch of the wrong value") {
  const std::map<std::string, std::string> sources = {
      {"job.yaml", "fabric:\n  minBusGbps: -1\n  nccl: often\n"}};
  Diagnostics diags;
  SanityCheck sc;
  parse_sanity_source(sources, diags, &sc);
  REQUIRE(diags.all().size() == 2);
  CHECK(diags.all()[0].path == "sanityCheck.fabric.minBusGbps");
  CHECK(diags.all()[1].path == "sanityCheck.fabric.nccl");
  CHECK(diags.render_text(sources) ==
        "job.yaml:2:15: error: sanityCheck.fabric.minBusGbps: expected a number of at least 0, "
        "got -1\n"
        "    2 |   minBusGbps: -1\n"
        "      |               ^\n"
        "job.yaml:3:9: error: sanityCheck.fabric.nccl: expected true or false, got \"often\"\n"
        "    3 |   nccl: often\n"
        "      |         ^\n"
        "2 errors\n");
  CHECK(sc.fabric.min_bus_gbs == 0);
  CHECK(sc.fabric.nccl);
}

TEST_CASE("parse_sanity_check refuses a fabric NCCL floor not a number and a quoted switch") {
  const std::map<std::string, std::string> sources = {
      {"job.yaml", "fabric: {minBusGbps: fast, nccl: \"false\"}\n"}};
  Diagnostics diags;
  SanityCheck sc;
  parse_sanity_source(sources, diags, &sc);
  REQUIRE(diags.all().size() == 2);
  CHECK(diags.render_text(sources) ==
        "job.yaml:1:22: error: sanityCheck.fabric.minBusGbps: expected a number of at least 0, "
        "got \"fast\"\n"
        "    1 | fabric: {minBusGbps: fast, nccl: \"false\"}\n"
        "      |                      ^\n"
        "job.yaml:1:34: error: sanityCheck.fabric.nccl: expected true or false, got \"false\" "
        "(write it without quotes)\n"
        "    1 | fabric: {minBusGbps: fast, nccl: \"false\"}\n"
        "      |                                  ^\n"
        "2 errors\n");
  CHECK(sc.fabric.nccl);
}

TEST_CASE("parse_sanity_check reads the burn's thresholds, FP8 and baselines") {
  Diagnostics diags;
  std::map<std::string, Location> locations;
  FieldReader reader(diags, locations);
  SanityCheck sc;
  parse_sanity_check(load_yaml("job.yaml",
                               "burn:\n"
                               "  fp8: false\n"
                               "  warnBelow: 2\n"
                               "  failBelow: 5.5\n"
                               "  baselines:\n"
                               "    - {model: NVIDIA H100 80GB HBM3, bf16: 700, fp8: 1300}\n"
                               "    - {model: NVIDIA A100-SXM4-80GB, bf16: 280}\n")
                         .root,
                     "sanityCheck", {}, reader, &sc);
  CHECK(diags.all().empty());
  CHECK_FALSE(sc.burn_fp8);
  CHECK(sc.burn_warn_percent == 2);
  CHECK(sc.burn_fail_percent == 5.5);
  CHECK(sc.burn_baselines == std::vector<BurnBaseline>{{"NVIDIA H100 80GB HBM3", "bf16", 700},
                                                       {"NVIDIA H100 80GB HBM3", "fp8", 1300},
                                                       {"NVIDIA A100-SXM4-80GB", "bf16", 280}});
}

TEST_CASE("parse_sanity_check names wrong burn thresholds and baselines") {
  Diagnostics diags;
  std::map<std::string, Location> locations;
  FieldReader reader(diags, locations);
  SanityCheck sc;
  parse_sanity_check(load_yaml("job.yaml",
                               "burn:\n"
                               "  warnBelow: 8\n"
                               "  failBelow: 120\n"
                               "  baselines:\n"
                               "    - {model: X}\n"
                               "    - {model: Y, bf16: 0}\n")
                         .root,
                     "sanityCheck", {}, reader, &sc);
  std::vector<std::string> paths;
  for (const auto& d : diags.all()) paths.push_back(d.path + ": " + d.message);
  INFO(paths.size());
  REQUIRE(diags.all().size() == 4);
  CHECK(diags.all()[0].path == "sanityCheck.burn.failBelow");
  // 120 was refused, so 8 is compared with the default of 7.
  CHECK(diags.all()[1].path == "sanityCheck.burn.warnBelow");
  CHECK(diags.all()[1].message.find("must not exceed failBelow (7)") != std::string::npos);
  CHECK(diags.all()[2].path == "sanityCheck.burn.baselines[0]");
  CHECK(diags.all()[2].message.find("a baseline needs bf16 or fp8 TFLOPS") != std::string::npos);
  CHECK(diags.all()[3].path == "sanityCheck.burn.baselines[1].bf16");
  CHECK(diags.all()[3].loc.line == 6);
}

TEST_CASE("parse_sanity_check reads the check history, its folder required and absolute") {
  Diagnostics diags;
  std::map<std::string, Location> locations;
  FieldReader reader(diags, locations);
  SanityCheck sc;
  parse_sanity_check(
      load_yaml("job.yaml", "history: {dir: /shared/pai/history, window: 10, maxFailures: 3}\n")
          .root,
      "sanityCheck", {}, reader, &sc);
  CHECK(diags.all().empty());
  CHECK(sc.history == CheckHistory{"/shared/pai/history", 10, 3});

  SanityCheck bad;
  parse_sanity_check(load_yaml("job.yaml", "history: {dir: relative, window: 2, maxFailures: 3}\n")
                         .root,
                     "sanityCheck", {}, reader, &bad);
  REQUIRE(diags.all().size() == 2);
  CHECK(diags.all()[0].path == "sanityCheck.history.dir");
  CHECK(diags.all()[1].path == "sanityCheck.history.maxFailures");
  CHECK(diags.all()[1].message.find("between 1 and 2") != std::string::npos);
  Diagnostics none;
  FieldReader reader2(none, locations);
  parse_sanity_check(load_yaml("job.yaml", "history: {window: 2}\n").root, "sanityCheck", {},
                     reader2, &bad);
  REQUIRE(none.all().size() == 1);
  CHECK(none.all()[0].path == "sanityCheck.history");
  CHECK(none.all()[0].message.find("dir") != std::string::npos);
}

TEST_CASE("parse_fault_tolerance reads checkpointPlan - defaults for what is not stated") {
  Diagnostics diags;
  std::map<std::string, Location> locations;
  FieldReader reader(diags, locations);
  FaultTolerance ft;
  parse_fault_tolerance(load_yaml("job.yaml", "policy: never\n").root, "faultTolerance", reader,
                        &ft);
  CHECK(ft.checkpoint_plan.node_mtbf_seconds == 237 * 86400);
  CHECK(ft.checkpoint_plan.checkpoint_cost_seconds == 60);
  CHECK(ft.checkpoint_plan.restart_cost_seconds == 600);
  CHECK(ft.checkpoint_plan.source == CheckpointPlanSource::Defaults);

  parse_fault_tolerance(load_yaml("job.yaml", "checkpointPlan: {nodeMtbf: 30d}\n").root,
                        "faultTolerance", reader, &ft);
  CHECK(ft.checkpoint_plan.node_mtbf_seconds == 30 * 86400);
  CHECK(ft.checkpoint_plan.source == CheckpointPlanSource::SpecAndDefaults);

  parse_fault_tolerance(
      load_yaml("job.yaml", "checkpointPlan: {nodeMtbf: 1h, checkpointCost: 0, restartCost: 5m}\n")
          .root,
      "faultTolerance", reader, &ft);
  CHECK(diags.all().empty());
  CHECK(ft.checkpoint_plan.node_mtbf_seconds == 3600);
  CHECK(ft.checkpoint_plan.checkpoint_cost_seconds == 0);
  CHECK(ft.checkpoint_plan.restart_cost_seconds == 300);
  CHECK(ft.checkpoint_plan.source == CheckpointPlanSource::Spec);
}

TEST_CASE("checkpointPlan: each bad field is a located error - huge numbers too") {
  Diagnostics diags;
  std::map<std::string, Location> locations;
  FieldReader reader(diags, locations);
  FaultTolerance ft;
  parse_fault_tolerance(load_yaml("job.yaml",
                                  "checkpointPlan:\n"
                                  "  nodeMtbf: 0\n"
                                  "  checkpointCost: 99999999999999999999999999d\n"
                                  "  restartCost: -5m\n"
                                  "  nodeMTBF: 1d\n")
                            .root,
                        "faultTolerance", reader, &ft);
  REQUIRE(diags.all().size() == 4);
  CHECK(diags.all()[0].path == "faultTolerance.checkpointPlan");
  CHECK(diags.all()[0].message == "unknown key \"nodeMTBF\" (did you mean \"nodeMtbf\"?)");
  CHECK(diags.all()[0].loc.line == 5);
  CHECK(diags.all()[1].path == "faultTolerance.checkpointPlan.nodeMtbf");
  CHECK(diags.all()[1].message == "expected a duration greater than 0, got 0");
  CHECK(diags.all()[1].loc.file == "job.yaml");
  CHECK(diags.all()[1].loc.line == 2);
  CHECK(diags.all()[1].loc.column == 13);
  CHECK(diags.all()[2].path == "faultTolerance.checkpointPlan.checkpointCost");
  CHECK(diags.all()[2].message ==
        "duration must be at most 365d, got \"99999999999999999999999999d\"");
  CHECK(diags.all()[2].loc.line == 3);
  CHECK(diags.all()[2].loc.column == 19);
  CHECK(diags.all()[3].path == "faultTolerance.checkpointPlan.restartCost");
  CHECK(diags.all()[3].message == "duration must not be negative, got \"-5m\"");
  CHECK(diags.all()[3].loc.line == 4);
  CHECK(diags.all()[3].loc.column == 16);
  // Nothing refused is kept: the defaults stand.
  CHECK(ft.checkpoint_plan.node_mtbf_seconds == 237 * 86400);
  CHECK(ft.checkpoint_plan.checkpoint_cost_seconds == 60);
  CHECK(ft.checkpoint_plan.source == CheckpointPlanSource::Defaults);
}

}  // namespace policy_parser_test
