// Env scripts of MPI jobs set OMPI_MCA_orte_default_hostfile to the relative path
// "hostfile": the plan folder is meant to be copied to the nodes and may lie at another
// path there, and rendered files must not depend on where they were rendered. Source the
// script and run mpirun from the plan folder (the launcher itself always passes the
// absolute path of its own copy).
#include "compiler/render/artifacts.h"

#include <stdexcept>
#include <string>
#include <vector>

#include "compiler/render/atomic_file.h"
#include "compiler/render/launch_script.h"
#include "compiler/render/output_folder.h"
#include "compiler/render/token.h"
#include "libpai/env_contract.h"
#include "libpai/env_script.h"
#include "libpai/hostfile.h"
#include "libpai/plan_json.h"

namespace pai {
namespace {

// A name from the plan becomes a file name: it must not reach outside its folder.
void check_file_name(const std::string& name, const std::string& dir) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
      name.find('\0') != std::string::npos) {
    throw std::runtime_error("cannot write into '" + dir + "': role name '" + name +
                             "' is not usable as a file name");
  }
}

// The top-level names of everything pai-compile writes into an output folder, for every
// target: in an earlier output they are artifacts to replace (k8s/ of a --target k8s compile
// is stale after a bare one). logs/ is not among them: it holds the logs of runs.
const std::vector<std::string> kArtifactNames = {
    "plan.json", "roles", "hostfile", "env", "job.token", "launch.sh", "k8s", "job.sbatch"};

std::string normalized_dir(const std::string& dir) {
  if (dir.empty()) return ".";
  std::string out = dir;
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

// Everything that can be known wrong before writing, so that a refused run changes nothing.
void check_output(const Plan& plan, const std::string& out) {
  for (const Role& role : plan.roles) check_file_name(role.name, out + "/roles");
  for (const Placement& p : plan.placements) check_file_name(p.role, out + "/env");
}

// The files of a fresh folder need no temporary names: the folder is swapped in whole. That
// halves the metadata work for 10,000 env scripts.
void write_roles(const Plan& plan, const std::string& seal, const std::string& dir) {
  make_private_directory(dir);
  for (const Role& role : plan.roles) {
    write_new_file(dir + "/" + role.name + ".json", role_to_json(plan, role, seal),
                   FileAccess::Private);
  }
}

void write_env_scripts(const Plan& plan, const std::string& dir) {
  make_private_directory(dir);
  ProcessContext ctx;
  if (plan.framework == Framework::Mpi) ctx.hostfile = "hostfile";
  const EnvScriptRenderer renderer(plan, ctx);
  NewFileFolder folder(dir);
  std::string script;
  std::string name;
  for (const Placement& p : plan.placements) {
    name = p.role;
    name += '-';
    name += std::to_string(p.index);
    name += ".sh";
    renderer.render(p, script);
    folder.write(name, script, FileAccess::Private);
  }
}

}  // namespace

std::string write_artifacts(const Plan& plan, const ArtifactOptions& options) {
  // Read first: a bad --token-file must fail before anything is written, and a token file
  // inside the output folder must be read before the folder is replaced.
  const std::string token =
      options.token_file.empty() ? generate_token() : read_token_file(options.token_file);
  check_output(plan, normalized_dir(options.out_dir));
  OutputFolderOptions folder;
  folder.force = options.force;
  folder.artifact_names = kArtifactNames;
  return replace_output_folder(options.out_dir, folder, [&](const std::string& out) {
    // The plan is sealed with the job token (libpai/plan_seal.h): a launcher that has the
    // token refuses the plan once edited, and refuses it next to another compile's token.
    std::string seal;
    write_new_file(out + "/plan.json", plan_to_json(plan, token, &seal), FileAccess::Private);
    write_roles(plan, seal, out + "/roles");
    // The MPI launcher role runs mpirun; it holds no ranks.
    std::vector<std::string> exclude;
    if (plan.framework == Framework::Mpi) exclude.push_back("launcher");
    write_new_file(out + "/hostfile", render_hostfile(plan, options.hostfile_style, exclude),
                   FileAccess::Public);
    write_env_scripts(plan, out + "/env");
    write_token_file(out + "/job.token", token);
    write_new_file(out + "/launch.sh", render_launch_script(plan), FileAccess::Executable);
    if (options.target_files) options.target_files(out);
  });
}

}  // namespace pai
