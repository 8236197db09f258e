#include "compiler/commands/command_line.h"

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>
#include <map>
#include <optional>

#include "compiler/commands/compile_command.h"
#include "compiler/commands/targets.h"
#include "libpai/duration.h"
#include "libpai/quantity.h"

namespace {

// NAME=VALUE, or NAME alone to take the value from the environment (as the jsonnet CLI).
std::pair<std::string, std::string> binding(const std::string& flag, const std::string& arg) {
  const size_t eq = arg.find('=');
  if (eq == 0) throw CLI::ValidationError(flag, "expected NAME=VALUE, got \"" + arg + "\"");
  if (eq != std::string::npos) return {arg.substr(0, eq), arg.substr(eq + 1)};
  const char* value = std::getenv(arg.c_str());
  if (!value) {
    throw CLI::ValidationError(flag, "expected NAME=VALUE, got \"" + arg +
                                         "\" (and no environment variable " + arg + " is set)");
  }
  return {arg, value};
}

// A cap from the command line, read by `parse` (parse_quantity, parse_duration); more than 0.
std::int64_t positive(const std::string& flag, const std::string& arg,
                      std::optional<std::int64_t> (*parse)(std::string_view, std::string*)) {
  std::string error;
  const std::optional<std::int64_t> value = parse(arg, &error);
  if (!value) throw CLI::ValidationError(flag, "\"" + arg + "\": " + error);
  if (*value <= 0) throw CLI::ValidationError(flag, "\"" + arg + "\": must be more than 0");
  return *value;
}

}  // namespace

namespace pai {

int compile_main(int argc, char** argv) {
  pai::CompileOptions options;
  CLI::App app{"pai-compile: validate a job spec and render its launch plan", "pai-compile"};
  app.set_version_flag("--version", "pai-compile " PAI_VERSION);
  app.add_option("SPEC", options.spec, "job spec: .yaml, .yml, .json or .jsonnet")->required();
  app.add_option("-o,--out", options.out_dir, "output folder (required unless --check)");
  app.add_flag("--force", options.force,
               "write into a non-empty -o folder that pai-compile did not write");
  app.add_flag("--check", options.check_only, "validate only: render nothing, exit 0 or 1");
  const std::map<std::string, pai::DiagnosticsFormat> formats = {
      {"text", pai::DiagnosticsFormat::Text},
      {"json", pai::DiagnosticsFormat::Json},
      {"sarif", pai::DiagnosticsFormat::Sarif}};
  std::string format = "text";
  app.add_option("--format", format,
                 "diagnostics: text (stderr), json or sarif (stdout, for CI code scanning)")
      ->check(CLI::IsMember({"text", "json", "sarif"}));
  app.add_option("--hosts", options.hosts_file,
                 "inventory (YAML list or MPI hostfile) replacing the spec's hosts");
  app.add_option("--token-file", options.token_file, "reuse this job token instead of a new one");
  const std::map<std::string, pai::HostfileStyle> styles = {
      {"openmpi", pai::HostfileStyle::OpenMpi}, {"mpich", pai::HostfileStyle::Mpich}};
  app.add_option("--hostfile-style", options.hostfile_style, "hostfile lines: openmpi or mpich")
      ->transform(CLI::CheckedTransformer(styles, CLI::ignore_case));
  // A target by its name or by its place in all_targets(), as CLI11 has always shown them.
  std::map<std::string, std::size_t> targets;
  for (std::size_t i = 0; i < pai::all_targets().size(); ++i) {
    targets.emplace(pai::all_targets()[i]->name(), i);
  }
  std::size_t target = 0;
  app.add_option("--target", target,
                 "where the job runs: bare (default), k8s (adds k8s/job.yaml) or slurm "
                 "(hosts from the allocation, adds job.sbatch)")
      ->transform(CLI::CheckedTransformer(targets, CLI::ignore_case))
      ->type_name("ENUM");
  std::vector<std::string> ext_str, ext_code, tla_str, tla_code;
  app.add_option("--ext-str", ext_str, "Jsonnet external variable NAME=VALUE (string)");
  app.add_option("--ext-code", ext_code, "Jsonnet external variable NAME=CODE");
  app.add_option("--tla-str", tla_str, "Jsonnet top-level argument NAME=VALUE (string)");
  app.add_option("--tla-code", tla_code, "Jsonnet top-level argument NAME=CODE");
  app.add_option("-J,--jpath", options.jsonnet.import_dirs, "extra Jsonnet import folder");
  app.add_option("--template-dir", options.jsonnet.template_dir,
                 "pai's Jsonnet templates (imported as pai/...); default $PAI_TEMPLATE_DIR, "
                 "then the installed ones");
  std::string jsonnet_memory = pai::format_quantity(options.jsonnet.max_memory_bytes);
  std::string jsonnet_timeout = pai::format_duration(options.jsonnet.timeout_seconds);
  app.add_option("--jsonnet-max-memory", jsonnet_memory,
                 "memory cap of the Jsonnet evaluation (512Mi, 4Gi, ...)")
      ->capture_default_str();
  app.add_option("--jsonnet-timeout", jsonnet_timeout,
                 "time cap of the Jsonnet evaluation (90s, 5m, ...)")
      ->capture_default_str();
  try {
    app.parse(argc, argv);
    options.jsonnet.max_memory_bytes =
        positive("--jsonnet-max-memory", jsonnet_memory, pai::parse_quantity);
    options.jsonnet.timeout_seconds =
        positive("--jsonnet-timeout", jsonnet_timeout, pai::parse_duration);
    for (const auto& [flag, args, out] :
         {std::tuple{"--ext-str", &ext_str, &options.jsonnet.ext_str},
          {"--ext-code", &ext_code, &options.jsonnet.ext_code},
          {"--tla-str", &tla_str, &options.jsonnet.tla_str},
          {"--tla-code", &tla_code, &options.jsonnet.tla_code}}) {
      for (const std::string& arg : *args) out->push_back(binding(flag, arg));
    }
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  options.format = formats.at(format);
  options.target = pai::all_targets()[target]->name();
  return pai::run_compile(options);
}

}  // namespace pai
