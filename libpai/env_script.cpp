#include "libpai/env_script.h"

#include "libpai/env_overlay.h"
#include "libpai/shell_quote.h"

namespace pai {
namespace {

// Names come from a validated spec, but a comment must never be able to end early.
std::string comment_safe(const std::string& text) {
  std::string out = text;
  for (char& c : out) {
    auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) c = '?';
  }
  return out;
}

// Each variable as `<before>NAME=<quoted value><after>`.
void append_exports(std::string& out, const EnvList& env, const char* before, const char* after) {
  for (const auto& [name, value] : env) {
    out += before;
    out += name;
    out += '=';
    out += shell_quote(value);
    out += after;
  }
}

}  // namespace

std::string render_env_script(const Plan& plan, const Placement& placement,
                              const ProcessContext& ctx) {
  const std::string script =
      "env/" + placement.role + "-" + std::to_string(placement.index) + ".sh";
  EnvList env = job_env(plan);
  EnvList instance = instance_env(plan, placement, ctx);
  overlay_env(env, instance);

  int nproc = 1;
  if (const Role* role = find_role(plan, placement.role)) nproc = role->nproc_per_node;

  std::string out;
  out.reserve(64 * (env.size() + 4 * static_cast<std::size_t>(nproc)) + 256);
  out += "#!/bin/sh\n";
  out += "# " + comment_safe(script) + ": the env contract of job " + comment_safe(plan.name) +
         ", role " + comment_safe(placement.role) + ", instance " +
         std::to_string(placement.index) + ".\n";
  out += "# Source it with LOCAL_RANK set (default 0): LOCAL_RANK=1 . ./" + comment_safe(script) +
         "\n";
  append_exports(out, env, "export ", "\n");
  out += "case \"${LOCAL_RANK:-0}\" in\n";
  for (int local = 0; local < nproc; ++local) {
    out += "  " + std::to_string(local) + ") export";
    append_exports(out, rank_env(plan, placement, local), " ", "");
    out += " ;;\n";
  }
  const std::string message = script + ": LOCAL_RANK must be 0.." + std::to_string(nproc - 1);
  out += "  *) echo " + shell_quote(message) + " >&2; return 1 2>/dev/null || exit 1 ;;\n";
  out += "esac\n";
  return out;
}

}  // namespace pai
