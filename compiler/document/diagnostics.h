// Located diagnostics, collected and reported all at once, compiler style.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "compiler/document/document.h"

namespace pai {

enum class Severity { Error, Warning, Note };

/// One finding about user input. `path` is the field path ("roles.worker.instances",
/// "hosts[2].address"), empty when the finding is not about one field.
struct Diagnostic {
  Severity severity = Severity::Error;
  Location loc;
  std::string path;
  std::string message;
};

/// All findings of one compilation, in the order they were made.
class Diagnostics {
 public:
  void error(const Location& loc, std::string path, std::string message);
  void warning(const Location& loc, std::string path, std::string message);
  void add(Diagnostic d);

  bool has_errors() const { return errors_ > 0; }
  int error_count() const { return errors_; }
  const std::vector<Diagnostic>& all() const { return list_; }

  /// Diagnostics sorted by (file, line, column) stably, as text:
  ///   job.yaml:12:7: error: roles.worker.instances: expected a positive integer, got "two"
  ///      12 |     instances: two
  ///         |                ^
  /// The source line and caret come from `sources` (file -> text) when the location has a
  /// line. Ends with a count line ("2 errors, 1 warning") when there is anything.
  std::string render_text(const std::map<std::string, std::string>& sources) const;

  /// As a JSON array of {file, line, column, path, severity, message}, same order; `[]`
  /// when there are none. Positions are 1-based: a finding without a line (about the whole
  /// file) gets line 1 and column 1, one with a line but no column gets column 1.
  std::string render_json() const;

  /// As a SARIF 2.1.0 log (for CI code scanning: GitHub, GitLab) of one run of `tool`
  /// version `version`: one result per finding, same order and positions as render_json(),
  /// ruleId "pai-compile/<severity>", the field path in the result's properties. The files
  /// are URI references as given (relative paths stay relative), percent-encoded.
  std::string render_sarif(const std::string& tool, const std::string& version) const;

 private:
  std::vector<Diagnostic> list_;
  int errors_ = 0;
};

/// Thrown by loaders for input that cannot be loaded at all (not UTF-8, YAML syntax,
/// Jsonnet evaluation error); carries the located diagnostic.
struct LoadError {
  Diagnostic diagnostic;
};

}  // namespace pai
