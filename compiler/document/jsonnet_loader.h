// Jsonnet -> document tree. The only file that includes libjsonnet.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "compiler/document/diagnostics.h"
#include "compiler/document/document.h"

namespace pai {

struct JsonnetOptions {
  std::vector<std::pair<std::string, std::string>> ext_str, ext_code, tla_str, tla_code;
  /// -J DIR: extra import directories (also allowed as import roots).
  std::vector<std::string> import_dirs;
  /// The installed templates/ folder; imported as 'pai/<file>'.
  std::string template_dir;
  unsigned max_stack = 500;
  /// --jsonnet-max-memory: the evaluation's memory cap in bytes (see ChildCaps: in builds with
  /// PAI_SANITIZE only the time cap applies).
  std::int64_t max_memory_bytes = std::int64_t{2} << 30;
  /// --jsonnet-timeout: the evaluation's time cap in seconds.
  std::int64_t timeout_seconds = 60;
};

/// Evaluates the Jsonnet file `file` and turns its JSON result into a Document (nodes carry
/// the file but no line/column). Imports are confined to the spec's folder, `import_dirs`
/// and `template_dir`; anything else (absolute paths, ../ escapes, symlinks out) is refused.
/// Jsonnet's own errors are passed through as a LoadError with Jsonnet's file:line:col.
/// libjsonnet has no limits of its own: it runs in a child process (capped_child.h) under
/// max_memory_bytes and timeout_seconds, and going past either is a LoadError naming the file,
/// the cap and the flag that raises it.
Document load_jsonnet(const std::string& file, const JsonnetOptions& options);

}  // namespace pai
