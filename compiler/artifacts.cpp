// Env scripts of MPI jobs set OMPI_MCA_orte_default_hostfile to the relative path
// "hostfile": the plan folder is meant to be copied to the nodes and may lie at another
// path there, and rendered files must not depend on where they were rendered. Source the
// script and run mpirun from the plan folder (the launcher itself always passes the
// absolute path of its own copy).
#include "compiler/artifacts.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "compiler/atomic_file.h"
#include "compiler/launch_script.h"
#include "compiler/token.h"
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

// `parent/name` must be a folder we may replace whole, or absent. Replacing a symbolic link
// would surprise whoever made it; a file of that name is not ours to delete.
void check_replaceable(const std::string& dir) {
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) return;
  if (S_ISLNK(st.st_mode)) {
    throw std::runtime_error("cannot create directory '" + dir +
                             "': it is a symbolic link; remove it first");
  }
  if (!S_ISDIR(st.st_mode)) {
    throw std::runtime_error("cannot create directory '" + dir + "': Not a directory");
  }
}

// For file systems that cannot exchange (NFS): two renames, with a moment without `dir`.
// 0 or the errno of the failure, after which `dir` is as it was.
int swap_by_renames(const std::string& staging, const std::string& dir, const std::string& old) {
  remove_tree(old);
  if (::rename(dir.c_str(), old.c_str()) != 0) return errno;
  if (::rename(staging.c_str(), dir.c_str()) != 0) {
    const int err = errno;
    ::rename(old.c_str(), dir.c_str());
    return err;
  }
  remove_tree(old);
  return 0;
}

// Builds the new content of `parent/name` in a fresh sibling folder through `fill`, then
// swaps it in with one renameat2(RENAME_EXCHANGE) and deletes the old folder. Readers see
// the whole old folder or the whole new one; entries of an earlier, bigger plan (env
// scripts of instances that no longer exist) go with the old folder; and files in a fresh
// folder need no temporary name each, which halves the metadata work for 10,000 scripts.
template <typename Fill>
void replace_directory(const std::string& parent, const std::string& name, Fill fill) {
  const std::string dir = parent + "/" + name;
  check_replaceable(dir);
  const std::string pid = std::to_string(::getpid());
  const std::string staging = parent + "/." + name + ".new-" + pid;
  remove_tree(staging);  // left behind by a crashed run of a process that had our pid
  make_directories(staging);
  try {
    fill(staging);
  } catch (...) {
    remove_tree(staging);
    throw;
  }
  if (::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, dir.c_str(), RENAME_EXCHANGE) == 0) {
    remove_tree(staging);
    return;
  }
  int err = errno;
  if (err == ENOENT) {  // the first compile into this folder
    if (::rename(staging.c_str(), dir.c_str()) == 0) return;
    err = errno;
  } else if (err == EINVAL || err == ENOSYS || err == ENOTSUP) {
    err = swap_by_renames(staging, dir, parent + "/." + name + ".old-" + pid);
    if (err == 0) return;
  }
  remove_tree(staging);
  throw std::runtime_error("cannot replace directory '" + dir + "': " + std::strerror(err));
}

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
  check_replaceable(out + "/roles");
  check_replaceable(out + "/env");
}

void write_roles(const Plan& plan, const std::string& seal, const std::string& dir) {
  for (const Role& role : plan.roles) {
    write_new_file(dir + "/" + role.name + ".json", role_to_json(plan, role, seal),
                   FileAccess::Public);
  }
}

void write_env_scripts(const Plan& plan, const std::string& dir) {
  ProcessContext ctx;
  if (plan.framework == Framework::Mpi) ctx.hostfile = "hostfile";
  std::string path = dir + "/";
  const std::size_t base = path.size();
  for (const Placement& p : plan.placements) {
    path.resize(base);
    path += p.role;
    path += '-';
    path += std::to_string(p.index);
    path += ".sh";
    write_new_file(path, render_env_script(plan, p, ctx), FileAccess::Public);
  }
}

}  // namespace

void write_artifacts(const Plan& plan, const ArtifactOptions& options) {
  // Read first: a bad --token-file must fail before anything is written.
  const std::string token =
      options.token_file.empty() ? generate_token() : read_token_file(options.token_file);
  const std::string out = normalized_dir(options.out_dir);
  check_output(plan, out);
  make_directories(out);

  // The plan is sealed with the job token (libpai/plan_seal.h): a launcher that has the token
  // refuses the plan once edited, and refuses it next to another compile's token.
  write_file_atomic(out + "/plan.json", plan_to_json(plan, token), FileAccess::Public);
  const std::string seal = plan_seal(plan, token);
  replace_directory(out, "roles", [&](const std::string& dir) { write_roles(plan, seal, dir); });
  // The MPI launcher role runs mpirun; it holds no ranks.
  std::vector<std::string> exclude;
  if (plan.framework == Framework::Mpi) exclude.push_back("launcher");
  write_file_atomic(out + "/hostfile", render_hostfile(plan, options.hostfile_style, exclude),
                    FileAccess::Public);
  replace_directory(out, "env", [&](const std::string& dir) { write_env_scripts(plan, dir); });
  write_token_file(out + "/job.token", token);
  write_file_atomic(out + "/launch.sh", render_launch_script(plan), FileAccess::Executable);
}

}  // namespace pai
