#include "libpai/env_script.h"

#include "libpai/shell_quote.h"

namespace pai {
namespace {

// Names come from a validated spec, but a comment must never be able to end early.
void append_comment_safe(std::string& out, const std::string& text) {
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    out += byte < 0x20 || byte == 0x7f ? '?' : c;
  }
}

// `<before>NAME=<quoted value><after>`.
void append_export(std::string& out, const std::string& name, const std::string& value,
                   const char* before, const char* after) {
  out += before;
  out += name;
  out += '=';
  append_shell_quoted(out, value);
  out += after;
}

// Each variable as `<before>NAME=<quoted value><after>`.
void append_exports(std::string& out, const EnvList& env, const char* before, const char* after) {
  for (const auto& [name, value] : env) append_export(out, name, value, before, after);
}

}  // namespace

EnvScriptRenderer::EnvScriptRenderer(const Plan& plan, const ProcessContext& ctx)
    : plan_(plan), ctx_(ctx), job_(job_env(plan)) {
  job_lines_.reserve(job_.size());
  job_index_.reserve(job_.size());
  for (std::size_t i = 0; i < job_.size(); ++i) {
    std::string line;
    append_export(line, job_[i].first, job_[i].second, "export ", "\n");
    job_lines_.push_back(std::move(line));
    // The first of a name, as overlay_env() finds it (job_env()'s names are unique).
    job_index_.emplace(job_[i].first, i);
  }
}

std::string EnvScriptRenderer::render(const Placement& placement) const {
  std::string out;
  render(placement, out);
  return out;
}

void EnvScriptRenderer::render(const Placement& placement, std::string& out) const {
  const std::string script =
      "env/" + placement.role + "-" + std::to_string(placement.index) + ".sh";
  // overlay_env(job, instance) without copying the job's variables: an instance variable
  // that the job has takes the job variable's place (the last one wins), the others follow
  // in their order.
  const EnvList instance = instance_env(plan_, placement, ctx_);
  std::vector<const std::string*> replaced(job_.size(), nullptr);
  std::vector<const std::pair<std::string, std::string>*> added;
  added.reserve(instance.size());
  for (const auto& variable : instance) {
    const auto it = job_index_.find(variable.first);
    if (it != job_index_.end()) {
      replaced[it->second] = &variable.second;
    } else {
      added.push_back(&variable);
    }
  }

  int nproc = 1;
  if (const Role* role = find_role(plan_, placement.role)) nproc = role->nproc_per_node;

  out.clear();
  out.reserve(64 * (job_.size() + added.size() + 4 * static_cast<std::size_t>(nproc)) + 256);
  out += "#!/bin/sh\n# ";
  append_comment_safe(out, script);
  out += ": the env contract of job ";
  append_comment_safe(out, plan_.name);
  out += ", role ";
  append_comment_safe(out, placement.role);
  out += ", instance ";
  out += std::to_string(placement.index);
  out += ".\n# Source it with LOCAL_RANK set (default 0): LOCAL_RANK=1 . ./";
  append_comment_safe(out, script);
  out += '\n';
  for (std::size_t i = 0; i < job_.size(); ++i) {
    if (replaced[i]) {
      append_export(out, job_[i].first, *replaced[i], "export ", "\n");
    } else {
      out += job_lines_[i];
    }
  }
  for (const auto* variable : added) {
    append_export(out, variable->first, variable->second, "export ", "\n");
  }
  out += "case \"${LOCAL_RANK:-0}\" in\n";
  for (int local = 0; local < nproc; ++local) {
    out += "  ";
    out += std::to_string(local);
    out += ") export";
    append_exports(out, rank_env(plan_, placement, local), " ", "");
    out += " ;;\n";
  }
  const std::string message = script + ": LOCAL_RANK must be 0.." + std::to_string(nproc - 1);
  out += "  *) echo ";
  append_shell_quoted(out, message);
  out += " >&2; return 1 2>/dev/null || exit 1 ;;\n";
  out += "esac\n";
}

std::string render_env_script(const Plan& plan, const Placement& placement,
                              const ProcessContext& ctx) {
  return EnvScriptRenderer(plan, ctx).render(placement);
}

}  // namespace pai
