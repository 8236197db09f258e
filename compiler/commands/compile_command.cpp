#include "compiler/commands/compile_command.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <stdexcept>
#include <string_view>

#include "compiler/commands/targets.h"
#include "compiler/document/diagnostics.h"
#include "compiler/document/yaml_loader.h"
#include "compiler/openpai/protocol.h"
#include "compiler/plan/checkpoint_planner.h"
#include "compiler/plan/planner.h"
#include "compiler/render/artifacts.h"
#include "compiler/spec/inventory.h"
#include "compiler/spec/spec_parser.h"
#include "compiler/spec/spec_rules.h"
#include "libpai/bounded_file.h"

namespace pai {

namespace {

namespace fs = std::filesystem;

// Environment and usage failures: reported as "pai-compile: error: ..." with exit 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The largest --hosts file: as large as a spec may be.
constexpr std::size_t kMaxHostsFileBytes = YamlLimits{}.max_bytes;

// Reads at most `limit` bytes of `path`, so an enormous file is cut off early and then
// rejected by the loader's size check instead of filling memory.
std::string read_file(const std::string& path, size_t limit) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw UsageError("cannot read " + path + ": " + std::strerror(errno));
  std::string text;
  char buffer[65536];
  while (text.size() < limit) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      throw UsageError("cannot read " + path + ": " + std::strerror(err));
    }
    if (n == 0) break;
    text.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return text;
}

enum class SpecFormat { Yaml, Jsonnet };

SpecFormat spec_format(const std::string& spec) {
  const std::string ext = fs::path(spec).extension().string();
  if (ext == ".yaml" || ext == ".yml" || ext == ".json") return SpecFormat::Yaml;
  if (ext == ".jsonnet" || ext == ".libsonnet") return SpecFormat::Jsonnet;
  throw UsageError("cannot tell the format of " + spec +
                   " from its name: use .yaml, .yml, .json or .jsonnet");
}

std::string default_template_dir() {
  if (const char* env = std::getenv("PAI_TEMPLATE_DIR"); env && *env) return env;
  std::error_code ec;
  if (fs::is_directory(PAI_TEMPLATE_DIR, ec)) return PAI_TEMPLATE_DIR;
  return PAI_SOURCE_TEMPLATE_DIR;
}

// Diagnostics may point into files other than the spec (Jsonnet imports, --hosts); load
// those so that their source lines can be shown too.
void add_sources(const Diagnostics& diags, std::map<std::string, std::string>& sources) {
  for (const Diagnostic& d : diags.all()) {
    if (d.loc.line <= 0 || d.loc.file.empty() || sources.count(d.loc.file)) continue;
    try {
      sources[d.loc.file] = read_file(d.loc.file, YamlLimits{}.max_bytes);
    } catch (const UsageError&) {
      sources[d.loc.file] = "";
    }
  }
}

// JSON and SARIF are for programs, so they are the command's output (stdout), empty ones
// included; text is for people, next to other messages on stderr.
void print_diagnostics(const Diagnostics& diags, DiagnosticsFormat format,
                       std::map<std::string, std::string>& sources) {
  if (format == DiagnosticsFormat::Json) {
    std::cout << diags.render_json();
    return;
  }
  if (format == DiagnosticsFormat::Sarif) {
    std::cout << diags.render_sarif("pai-compile", PAI_VERSION);
    return;
  }
  add_sources(diags, sources);
  std::cerr << diags.render_text(sources);
}

std::string plural(size_t n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

std::string plan_summary(const Plan& plan) {
  std::vector<std::string> hosts;
  for (const Placement& p : plan.placements) hosts.push_back(p.host.name);
  std::sort(hosts.begin(), hosts.end());
  hosts.erase(std::unique(hosts.begin(), hosts.end()), hosts.end());
  std::string s = plan.name + ": " + plural(plan.roles.size(), "role") + ", " +
                  plural(plan.placements.size(), "instance") + " on " +
                  plural(hosts.size(), "host");
  if (!plan.spares.empty()) s += " (+" + plural(plan.spares.size(), "spare") + ")";
  return s + ", world size " + std::to_string(plan.world_size);
}

// The regular files under `dir` as fs::recursive_directory_iterator counts them (a link to
// a file counts, a link to a folder is not entered), with readdir's file types instead of a
// path object per entry: env/ of a 10,000-node job is counted in a tenth of the time. A
// folder that cannot be opened is left to the iterator, which reports it as before.
size_t count_files(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) {
    size_t files = 0;
    for (const auto& f : fs::recursive_directory_iterator(dir)) files += f.is_regular_file();
    return files;
  }
  size_t files = 0;
  while (const struct dirent* e = ::readdir(d)) {
    const std::string_view name = e->d_name;
    if (name == "." || name == "..") continue;
    if (e->d_type == DT_REG) {
      ++files;
    } else if (e->d_type == DT_DIR) {
      files += count_files(dir + "/" + e->d_name);
    } else if (e->d_type == DT_LNK || e->d_type == DT_UNKNOWN) {
      const std::string path = dir + "/" + e->d_name;
      std::error_code ec;
      if (e->d_type == DT_UNKNOWN && fs::is_directory(fs::symlink_status(path, ec))) {
        files += count_files(path);
      } else {
        files += fs::is_regular_file(fs::status(path, ec));
      }
    }
  }
  ::closedir(d);
  return files;
}

// What the output folder holds, one level deep: big folders (env/ of a 10,000-node job)
// are counted rather than listed.
std::string output_listing(const std::string& out_dir) {
  std::vector<std::string> entries;
  for (const fs::directory_entry& entry : fs::directory_iterator(out_dir)) {
    std::string name = entry.path().filename().string();
    if (entry.is_directory()) {
      name += "/ (" + plural(count_files(entry.path().string()), "file") + ")";
    }
    entries.push_back(std::move(name));
  }
  std::sort(entries.begin(), entries.end());
  std::string listing;
  for (const std::string& e : entries) listing += (listing.empty() ? "" : ", ") + e;
  return listing;
}

int compile(const CompileOptions& options) {
  if (options.spec.empty()) throw UsageError("no spec file given");
  if (!options.check_only && options.out_dir.empty()) {
    throw UsageError("-o/--out DIR is required (or use --check to validate only)");
  }
  const Target* target = find_target(options.target);
  if (!target) throw UsageError("unknown target \"" + options.target + "\"");
  const SpecFormat format = spec_format(options.spec);
  std::map<std::string, std::string> sources;
  Diagnostics diags;
  Document doc;
  const std::string text = read_file(options.spec, YamlLimits{}.max_bytes + 1);
  sources[options.spec] = text;
  try {
    if (format == SpecFormat::Yaml) {
      doc = load_yaml(options.spec, text);
    } else {
      JsonnetOptions jsonnet = options.jsonnet;
      if (jsonnet.template_dir.empty()) jsonnet.template_dir = default_template_dir();
      doc = load_jsonnet(options.spec, jsonnet);
    }
  } catch (const LoadError& e) {
    diags.add(e.diagnostic);
    print_diagnostics(diags, options.format, sources);
    return 1;
  }
  // An OpenPAI job file becomes the equivalent pai/v1 spec; what cannot be translated
  // would only add follow-on errors from the spec parser.
  const bool openpai = is_openpai_protocol(doc);
  if (openpai) {
    doc = translate_openpai(doc, diags);
    if (diags.has_errors()) {
      print_diagnostics(diags, options.format, sources);
      return 1;
    }
  }

  JobSpec spec = parse_spec(doc, diags, openpai ? RoleOrder::AsWritten : RoleOrder::ByName);
  // The spec holds all that later stages need. Freed now, the document's memory (a
  // 10,000-node spec's tree is the biggest thing on the heap) is reused by planning and
  // rendering instead of them faulting in new pages.
  doc = Document();
  bool inventory_ok = true;
  if (!options.hosts_file.empty()) {
    std::string hosts_text;
    try {
      hosts_text =
          read_bounded_regular_file(options.hosts_file, kMaxHostsFileBytes, "--hosts file");
    } catch (const BoundedFileError& e) {
      throw UsageError(e.what());
    }
    sources[options.hosts_file] = hosts_text;
    const int before = diags.error_count();
    std::vector<Host> hosts = load_inventory(options.hosts_file, hosts_text, diags);
    inventory_ok = diags.error_count() == before;
    spec.job.hosts = std::move(hosts);
    // Later diagnostics about hosts must point at the inventory, not at the spec's list.
    auto it = spec.locations.lower_bound("hosts");
    while (it != spec.locations.end() && it->first.rfind("hosts", 0) == 0) {
      it = spec.locations.erase(it);
    }
    spec.locations["hosts"] = Location{options.hosts_file, 0, 0};
  }
  // A target that brings its own inventory (Slurm: the allocation) makes the spec's and
  // --hosts' moot, broken or not.
  if (target->replace_inventory(spec, diags)) inventory_ok = true;
  // A broken inventory would only add follow-on errors about hosts.
  if (inventory_ok) check_spec(spec, diags);
  if (diags.has_errors()) {
    print_diagnostics(diags, options.format, sources);
    return 1;
  }
  Plan plan = make_plan(spec, diags);
  if (!diags.has_errors()) target->check_plan(plan, spec, diags);
  if (options.format != DiagnosticsFormat::Text || !diags.all().empty()) {
    print_diagnostics(diags, options.format, sources);
  }
  if (diags.has_errors()) return 1;

  // With JSON or SARIF diagnostics stdout holds that document alone; the summary goes to
  // stderr.
  std::ostream& summary = options.format == DiagnosticsFormat::Text ? std::cout : std::cerr;
  if (options.check_only) {
    summary << options.spec << ": ok (" << plan_summary(plan) << ")\n"
            << checkpoint_plan_line(plan.fault_tolerance.checkpoint_plan, plan.nodes) << "\n";
    return 0;
  }
  target->adapt_plan(plan);
  ArtifactOptions artifacts;
  artifacts.out_dir = options.out_dir;
  artifacts.token_file = options.token_file;
  artifacts.hostfile_style = options.hostfile_style;
  artifacts.force = options.force;
  artifacts.target_files = [&](const std::string& dir) {
    target->write_files(plan, dir, options.out_dir);
  };
  const std::string written = write_artifacts(plan, artifacts);
  summary << plan_summary(plan) << "\n"
          << checkpoint_plan_line(plan.fault_tolerance.checkpoint_plan, plan.nodes) << "\n"
          << "wrote " << options.out_dir << ": " << output_listing(written) << "\n";
  return 0;
}

}  // namespace

int run_compile(const CompileOptions& options) {
  try {
    return compile(options);
  } catch (const std::exception& e) {
    std::cerr << "pai-compile: error: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace pai
