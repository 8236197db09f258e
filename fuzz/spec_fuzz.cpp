// libFuzzer harness over the compiler front end: load (YAML) -> parse -> check -> plan,
// then the plan's JSON round trip. Bad input must end in diagnostics or a LoadError;
// anything else (a crash, a sanitizer report, an escaping exception) is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "compiler/document/diagnostics.h"
#include "compiler/document/yaml_loader.h"
#include "compiler/plan/planner.h"
#include "compiler/spec/spec_parser.h"
#include "compiler/spec/spec_rules.h"
#include "libpai/plan_json.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // Larger inputs only slow the search down; the loader's size cap is tested elsewhere.
  if (size > 64 * 1024) return -1;
  const std::string text(reinterpret_cast<const char*>(data), size);
  pai::Document doc;
  try {
    doc = pai::load_yaml("fuzz.yaml", text);
  } catch (const pai::LoadError& e) {
    pai::Diagnostics diags;
    diags.add(e.diagnostic);
    diags.render_text({{"fuzz.yaml", text}});
    return 0;
  }
  pai::Diagnostics diags;
  const pai::JobSpec spec = pai::parse_spec(doc, diags);
  if (!diags.has_errors()) pai::check_spec(spec, diags);
  if (!diags.has_errors()) {
    const pai::Plan plan = pai::make_plan(spec, diags);
    if (!diags.has_errors()) {
      // A plan the compiler produced must load back with its token: a PlanError here is a bug.
      const pai::JobToken token{std::string(64, 'f'), "job.token"};
      const std::string json = pai::plan_to_json(plan, token.secret);
      pai::plan_from_json(json, "plan.json", token);
    }
  }
  diags.render_text({{"fuzz.yaml", doc.text}});
  diags.render_json();
  return 0;
}
