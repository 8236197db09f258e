// pai-compile's command: options filled by CLI11 (command_line.h), run_compile() runs the
// pipeline: load -> parse/validate -> plan -> render, asking the target where targets differ.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "compiler/document/jsonnet_loader.h"
#include "libpai/plan.h"

namespace pai {

/// How diagnostics are reported (--format).
enum class DiagnosticsFormat {
  Text,   ///< for people, on stderr
  Json,   ///< a JSON array on stdout (Diagnostics::render_json)
  Sarif,  ///< a SARIF 2.1.0 log on stdout, for CI code scanning
};

struct CompileOptions {
  std::string spec;          ///< job.yaml / job.jsonnet / job.json
  std::string out_dir;       ///< -o
  bool force = false;        ///< --force: -o into a non-empty folder pai-compile did not write
  bool check_only = false;   ///< --check
  DiagnosticsFormat format = DiagnosticsFormat::Text;  ///< --format
  std::string hosts_file;    ///< --hosts
  std::string token_file;    ///< --token-file
  HostfileStyle hostfile_style = HostfileStyle::OpenMpi;  ///< --hostfile-style
  /// --target: where the job runs, a name of all_targets() (commands/targets.h): bare (the
  /// plan and its artifacts only), k8s (plus k8s/job.yaml) or slurm (hosts from the
  /// allocation, plus job.sbatch).
  std::string target = "bare";
  JsonnetOptions jsonnet;
};

/// Loads, validates, plans and renders. Text diagnostics and usage errors go to stderr.
/// With JSON or SARIF diagnostics stdout holds only their document (`[]` or a run without
/// results when there are none; nothing on exit 2) and the summary lines go to stderr.
/// Returns the exit code: 0 ok, 1 invalid spec, 2 usage or I/O error (a refused output folder
/// and a target that all_targets() lacks included).
int run_compile(const CompileOptions& options);

}  // namespace pai
