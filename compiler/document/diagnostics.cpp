#include "compiler/document/diagnostics.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <utility>

#include "libpai/utf8.h"

namespace pai {

namespace {

const char* severity_name(Severity s) {
  switch (s) {
    case Severity::Error:
      return "error";
    case Severity::Warning:
      return "warning";
    case Severity::Note:
      return "note";
  }
  return "error";
}

// 1-based (line, column) of a finding as tools expect them: a finding about the whole file
// points at its start, one about a line at that line's start.
std::pair<int, int> position(const Diagnostic& d) {
  const bool located = d.loc.line > 0;
  return {located ? d.loc.line : 1, located && d.loc.column > 0 ? d.loc.column : 1};
}

// A file path as a URI reference: unreserved characters and '/' as they are, the rest
// percent-encoded.
std::string uri_reference(const std::string& path) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : path) {
    if (std::isalnum(c) != 0 || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

std::vector<const Diagnostic*> sorted(const std::vector<Diagnostic>& list) {
  std::vector<const Diagnostic*> out;
  out.reserve(list.size());
  for (const Diagnostic& d : list) out.push_back(&d);
  std::stable_sort(out.begin(), out.end(), [](const Diagnostic* a, const Diagnostic* b) {
    if (a->loc.file != b->loc.file) return a->loc.file < b->loc.file;
    if (a->loc.line != b->loc.line) return a->loc.line < b->loc.line;
    return a->loc.column < b->loc.column;
  });
  return out;
}

// The 1-based line `line` of `text` without its line break, or nullopt-like false.
bool source_line(const std::string& text, int line, std::string* out) {
  size_t begin = 0;
  for (int i = 1; i < line; ++i) {
    begin = text.find('\n', begin);
    if (begin == std::string::npos) return false;
    ++begin;
  }
  if (begin > text.size() || (begin == text.size() && line > 1)) return false;
  size_t end = text.find('\n', begin);
  if (end == std::string::npos) end = text.size();
  if (end > begin && text[end - 1] == '\r') --end;
  *out = text.substr(begin, end - begin);
  return true;
}

// Characters of a source line shown around the caret; longer lines (minified JSON, a
// hostile one-line file) are cut to a window with "..." on the cut sides.
constexpr size_t kMaxShownChars = 100;

// The source line as it can be shown on a terminal, and the caret line's padding for
// byte column `column`: tabs stay tabs so the caret lines up however wide they render;
// invalid bytes and control characters become U+FFFD so they cannot garble the output.
void printable_line(const std::string& line, int column, std::string* shown,
                    std::string* pad) {
  static const char kReplacement[] = "\xef\xbf\xbd";
  const size_t caret = column > 0 ? static_cast<size_t>(column - 1) : 0;
  struct Char {
    std::string shown;
    char pad;
  };
  std::vector<Char> chars;
  size_t caret_char = 0;
  size_t i = 0;
  while (i < line.size()) {
    if (i < caret) caret_char = chars.size() + 1;
    const size_t n = utf8_sequence_length(line, i);
    const auto c = static_cast<unsigned char>(line[i]);
    if (n == 0 || (c < 0x20 && c != '\t') || c == 0x7f) {
      chars.push_back({kReplacement, ' '});
      i += n == 0 ? 1 : n;
    } else {
      chars.push_back({line.substr(i, n), c == '\t' ? '\t' : ' '});
      i += n;
    }
  }
  size_t first = 0, last = chars.size();
  if (chars.size() > kMaxShownChars) {
    first = caret_char > kMaxShownChars / 2 ? caret_char - kMaxShownChars / 2 : 0;
    last = std::min(chars.size(), first + kMaxShownChars);
  }
  if (first > 0) {
    shown->append("...");
    pad->append("   ");
  }
  for (size_t k = first; k < last; ++k) {
    shown->append(chars[k].shown);
    if (k < caret_char) pad->push_back(chars[k].pad);
  }
  if (last < chars.size()) shown->append("...");
  // A column past the end of the line (an error at end of input) still gets its caret.
  if (caret > line.size()) pad->append(caret - line.size(), ' ');
}

std::string plural(int n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

}  // namespace

void Diagnostics::error(const Location& loc, std::string path, std::string message) {
  add({Severity::Error, loc, std::move(path), std::move(message)});
}

void Diagnostics::warning(const Location& loc, std::string path, std::string message) {
  add({Severity::Warning, loc, std::move(path), std::move(message)});
}

void Diagnostics::add(Diagnostic d) {
  if (d.severity == Severity::Error) ++errors_;
  list_.push_back(std::move(d));
}

std::string Diagnostics::render_text(const std::map<std::string, std::string>& sources) const {
  std::string out;
  int warnings = 0;
  for (const Diagnostic* d : sorted(list_)) {
    if (d->severity == Severity::Warning) ++warnings;
    std::string where = d->loc.file;
    if (d->loc.line > 0) {
      where += ":" + std::to_string(d->loc.line);
      if (d->loc.column > 0) where += ":" + std::to_string(d->loc.column);
    }
    if (!where.empty()) out += where + ": ";
    out += severity_name(d->severity);
    out += ": ";
    if (!d->path.empty()) out += d->path + ": ";
    out += d->message;
    out += '\n';

    const auto source = sources.find(d->loc.file);
    std::string line;
    if (d->loc.line <= 0 || source == sources.end() ||
        !source_line(source->second, d->loc.line, &line)) {
      continue;
    }
    std::string shown, pad;
    printable_line(line, d->loc.column, &shown, &pad);
    char number[32];
    std::snprintf(number, sizeof number, "%5d", d->loc.line);
    out += std::string(number) + " | " + shown + "\n";
    if (d->loc.column > 0) out += "      | " + pad + "^\n";
  }
  if (errors_ > 0 || warnings > 0) {
    if (errors_ > 0) out += plural(errors_, "error");
    if (errors_ > 0 && warnings > 0) out += ", ";
    if (warnings > 0) out += plural(warnings, "warning");
    out += '\n';
  }
  return out;
}

std::string Diagnostics::render_json() const {
  nlohmann::json array = nlohmann::json::array();
  for (const Diagnostic* d : sorted(list_)) {
    const auto [line, column] = position(*d);
    array.push_back({{"file", d->loc.file},
                     {"line", line},
                     {"column", column},
                     {"path", d->path},
                     {"severity", severity_name(d->severity)},
                     {"message", d->message}});
  }
  // Messages may quote bytes from a non-UTF-8 file; replace them rather than throw.
  return array.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string Diagnostics::render_sarif(const std::string& tool, const std::string& version) const {
  nlohmann::json rules = nlohmann::json::array();
  for (Severity s : {Severity::Error, Severity::Warning, Severity::Note}) {
    const std::string name = severity_name(s);
    rules.push_back({{"id", tool + "/" + name},
                     {"shortDescription", {{"text", "job spec " + name}}},
                     {"defaultConfiguration", {{"level", name}}}});
  }
  nlohmann::json results = nlohmann::json::array();
  for (const Diagnostic* d : sorted(list_)) {
    const auto [line, column] = position(*d);
    const std::string level = severity_name(d->severity);
    nlohmann::json result = {
        {"ruleId", tool + "/" + level},
        {"level", level},
        {"message", {{"text", d->path.empty() ? d->message : d->path + ": " + d->message}}},
        {"locations",
         nlohmann::json::array(
             {{{"physicalLocation",
                {{"artifactLocation", {{"uri", uri_reference(d->loc.file)}}},
                 {"region", {{"startLine", line}, {"startColumn", column}}}}}}})}};
    if (!d->path.empty()) result["properties"] = {{"path", d->path}};
    results.push_back(std::move(result));
  }
  const nlohmann::json log = {
      {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
      {"version", "2.1.0"},
      {"runs", nlohmann::json::array({{{"tool",
                                        {{"driver",
                                          {{"name", tool},
                                           {"version", version},
                                           {"rules", std::move(rules)}}}}},
                                       {"results", std::move(results)}}})}};
  return log.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace pai
