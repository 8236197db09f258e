#include "compiler/openpai/dropped.h"

#include <algorithm>

namespace pai {

void DroppedFields::add(const Location& loc, std::string path, std::string reason) {
  fields_.push_back({loc, std::move(path), std::move(reason)});
}

void DroppedFields::report(Diagnostics& diags) const {
  if (fields_.empty()) return;
  std::vector<Field> fields = fields_;
  std::stable_sort(fields.begin(), fields.end(), [](const Field& a, const Field& b) {
    return a.loc.line != b.loc.line ? a.loc.line < b.loc.line : a.loc.column < b.loc.column;
  });
  std::string list;
  for (const Field& f : fields) {
    list += (list.empty() ? "" : "; ") + f.path + " (" + std::to_string(f.loc.line) + ":" +
            std::to_string(f.loc.column) + (f.reason.empty() ? "" : ", " + f.reason) + ")";
  }
  const std::string count = std::to_string(fields.size());
  diags.warning(fields.front().loc, "",
                count + (fields.size() == 1 ? " OpenPAI field is" : " OpenPAI fields are") +
                    " dropped, having no meaning in pai: " + list);
}

}  // namespace pai
