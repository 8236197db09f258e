// OpenPAI's <% %> templates in commands -> pai text.
//
// OpenPAI renders `<% $parameters.x %>` and `<% $secrets.x %>` from the job, and
// `<% $data.f %>`, `<% $script.f %>`, `<% $output.f %>` from the prerequisite the task role
// names in its `data`, `script` and `output` fields (`f` a field of that prerequisite,
// `uri[0]` an item of a list). Parameters and secrets become pai's `${parameters.x}`; the
// prerequisites' fields are written in.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "compiler/document/diagnostics.h"
#include "compiler/document/document.h"
#include "compiler/document/field_reader.h"

namespace pai {

/// What the templates of one task role can name.
struct TemplateScope {
  const std::map<std::string, Location>* parameters = nullptr;  ///< by name
  const std::map<std::string, Location>* secrets = nullptr;     ///< by name
  /// "data", "script", "output" -> the prerequisite (a mapping) the role names.
  std::map<std::string, const Node*> prerequisites;
  std::string role;  ///< the task role's OpenPAI name, for messages
};

/// `item`'s text with its templates rendered as above. A template naming nothing the scope
/// has is an error located at the template; its text is kept. Secret values never appear in
/// a diagnostic.
std::string render_openpai_templates(const Node& item, const std::string& path,
                                     const TemplateScope& scope, FieldReader& reader,
                                     Diagnostics& diags);

/// " (did you mean \"x\"? defined: a, b)" for `name` among `defined`, or " (<none>)" when
/// `defined` is empty.
std::string defined_names_hint(const std::string& name, const std::vector<std::string>& defined,
                               const std::string& none);

}  // namespace pai
