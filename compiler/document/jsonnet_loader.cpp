// libjsonnet's C API evaluates the spec; imports go through our callback so that they
// stay inside the allowed folders; the JSON result is read with nlohmann's SAX interface,
// which keeps each number's text as Jsonnet printed it.
#include "compiler/document/jsonnet_loader.h"

extern "C" {
#include <libjsonnet.h>
}

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "compiler/document/capped_child.h"
#include "compiler/document/field_reader.h"
#include "compiler/document/yaml_loader.h"
#include "libpai/duration.h"
#include "libpai/quantity.h"

namespace pai {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(Location loc, std::string message) {
  Diagnostic d;
  d.severity = Severity::Error;
  d.loc = std::move(loc);
  d.message = std::move(message);
  throw LoadError{std::move(d)};
}

/// Where imports may come from, and the reason the last import was refused.
struct ImportPolicy {
  JsonnetVm* vm = nullptr;
  std::vector<fs::path> roots;           ///< canonical: spec folder, -J dirs, templates
  std::vector<fs::path> import_dirs;     ///< canonical -J dirs, searched in order
  std::optional<fs::path> template_dir;  ///< canonical templates folder
  std::optional<std::string> refusal;    ///< our message for the import that failed
};

bool inside(const fs::path& path, const fs::path& root) {
  return std::mismatch(root.begin(), root.end(), path.begin(), path.end()).first == root.end();
}

fs::path canonical_or_self(const fs::path& p) {
  std::error_code ec;
  fs::path c = fs::weakly_canonical(fs::absolute(p, ec), ec);
  return ec ? fs::absolute(p).lexically_normal() : c;
}

char* jsonnet_string(JsonnetVm* vm, const std::string& s) {
  char* out = jsonnet_realloc(vm, nullptr, s.size() + 1);
  std::memcpy(out, s.c_str(), s.size() + 1);
  return out;
}

/// The first candidate path for `rel` imported from folder `base`, checked against the
/// allowed folders; sets policy.refusal and returns nullopt when the import is refused.
std::optional<fs::path> resolve_import(ImportPolicy& policy, const std::string& base,
                                       const std::string& rel) {
  const std::string quoted = "import " + quote(rel);
  if (fs::path(rel).is_absolute()) {
    policy.refusal = "absolute " + quoted +
                     " is not allowed; import relative to the spec folder, a -J dir or pai/";
    return std::nullopt;
  }
  std::vector<fs::path> candidates;
  if (policy.template_dir && rel.rfind("pai/", 0) == 0) {
    candidates.push_back(*policy.template_dir / rel.substr(4));
  } else {
    candidates.push_back(fs::path(base) / rel);
    for (const fs::path& dir : policy.import_dirs) candidates.push_back(dir / rel);
  }
  for (const fs::path& candidate : candidates) {
    const fs::path real = canonical_or_self(candidate);
    bool allowed = false;
    for (const fs::path& root : policy.roots) allowed = allowed || inside(real, root);
    if (!allowed) {
      policy.refusal = quoted + " escapes the allowed folders (spec folder, -J dirs, templates)";
      return std::nullopt;
    }
    std::error_code ec;
    if (fs::is_regular_file(real, ec)) return real;
  }
  policy.refusal = quoted + " not found in the spec folder, -J dirs or templates";
  return std::nullopt;
}

extern "C" char* import_callback(void* ctx, const char* base, const char* rel, char** found_here,
                                 int* success) {
  auto& policy = *static_cast<ImportPolicy*>(ctx);
  *success = 0;
  const std::optional<fs::path> path = resolve_import(policy, base, rel);
  if (!path) return jsonnet_string(policy.vm, *policy.refusal);
  std::ifstream in(*path, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  if (!in) {
    policy.refusal = "cannot read import " + quote(rel) + ": " + path->string();
    return jsonnet_string(policy.vm, *policy.refusal);
  }
  *found_here = jsonnet_string(policy.vm, path->string());
  *success = 1;
  return jsonnet_string(policy.vm, content.str());
}

/// A position Jsonnet wrote after a file name, and the offset just past it.
struct Position {
  int line = 0;
  int column = 0;
  size_t end = 0;
};

/// Parses ":L:C", ":L:C-C2" or ":(L:C)-(L2:C2)" (Jsonnet's location forms) at s[at].
std::optional<Position> position_at(const std::string& s, size_t at) {
  size_t i = at + 1;
  auto number = [&](int* out) {
    const size_t begin = i;
    while (i < s.size() && i - begin < 9 && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    if (i == begin) return false;
    *out = std::stoi(s.substr(begin, i - begin));
    return true;
  };
  auto skip = [&](const char* text) {
    if (s.compare(i, std::strlen(text), text) != 0) return false;
    i += std::strlen(text);
    return true;
  };
  Position p;
  int ignored = 0;
  const bool range = skip("(");
  if (!number(&p.line) || !skip(":") || !number(&p.column)) return std::nullopt;
  if (range) {
    if (!skip(")-(") || !number(&ignored) || !skip(":") || !number(&ignored) || !skip(")")) {
      return std::nullopt;
    }
  } else if (skip("-") && !number(&ignored)) {
    return std::nullopt;
  }
  p.end = i;
  return p;
}

/// The location "file:position" starting at s[from] and followed by `after`; sets *end
/// past `after`.
std::optional<Location> location_at(const std::string& s, size_t from, const std::string& after,
                                    size_t* end) {
  for (size_t colon = s.find(':', from); colon != std::string::npos;
       colon = s.find(':', colon + 1)) {
    const std::optional<Position> p = position_at(s, colon);
    if (p && s.compare(p->end, after.size(), after) == 0) {
      *end = p->end + after.size();
      return Location{s.substr(from, colon - from), p->line, p->column};
    }
  }
  return std::nullopt;
}

/// Turns Jsonnet's error text into a diagnostic: "STATIC ERROR: f:l:c: msg" or
/// "RUNTIME ERROR: msg" followed by a stack trace whose first frame outside std.jsonnet is the
/// location (the first frame when all are inside it).
Diagnostic jsonnet_diagnostic(const std::string& file, const std::string& error,
                              const std::optional<std::string>& refusal) {
  Diagnostic d;
  d.severity = Severity::Error;
  d.loc.file = file;
  std::istringstream lines(error);
  std::string first;
  std::getline(lines, first);
  const std::string static_error = "STATIC ERROR: ", runtime_error = "RUNTIME ERROR: ";
  size_t end = 0;
  if (first.rfind(static_error, 0) == 0) {
    if (auto loc = location_at(first, static_error.size(), ": ", &end)) {
      d.loc = *loc;
      d.message = first.substr(end);
      return d;
    }
  }
  d.message = first.rfind(runtime_error, 0) == 0 ? first.substr(runtime_error.size()) : first;
  if (refusal) d.message = *refusal;
  // The first frame of the spec's own files: a deep recursion through std.foldl, say, fails
  // inside Jsonnet's standard library, which the author cannot open.
  bool found = false;
  for (std::string frame; std::getline(lines, frame);) {
    if (frame.empty() || frame[0] != '\t') continue;
    if (auto loc = location_at(frame, 1, "\t", &end)) {
      if (!found) d.loc = *loc;
      found = true;
      if (loc->file != "std.jsonnet") {
        d.loc = *loc;
        break;
      }
    }
  }
  return d;
}

/// Builds the Node tree from nlohmann's SAX events over Jsonnet's output.
class JsonTreeBuilder : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit JsonTreeBuilder(const std::string& file) : file_(file) {}

  Node take_root() { return std::move(root_); }

  bool null() override { return add(Node::Kind::Null, "", false); }
  bool boolean(bool v) override { return add(Node::Kind::Scalar, v ? "true" : "false", false); }
  bool number_integer(number_integer_t v) override {
    return add(Node::Kind::Scalar, std::to_string(v), false);
  }
  bool number_unsigned(number_unsigned_t v) override {
    return add(Node::Kind::Scalar, std::to_string(v), false);
  }
  bool number_float(number_float_t, const string_t& text) override {
    return add(Node::Kind::Scalar, text, false);
  }
  bool string(string_t& v) override { return add(Node::Kind::Scalar, std::move(v), true); }
  bool binary(binary_t&) override { return false; }
  bool start_object(std::size_t) override { return open(Node::Kind::Mapping); }
  bool key(string_t& k) override {
    stack_.back().key = std::move(k);
    return true;
  }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(Node::Kind::Sequence); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    throw std::runtime_error("Jsonnet produced invalid JSON: " + std::string(e.what()));
  }

 private:
  struct Frame {
    Node node;
    std::string key;
  };

  Node make(Node::Kind kind, std::string text, bool quoted) const {
    Node n;
    n.kind = kind;
    n.loc.file = file_;
    n.scalar = std::move(text);
    n.quoted = quoted;
    return n;
  }

  bool add(Node::Kind kind, std::string text, bool quoted) {
    attach(make(kind, std::move(text), quoted));
    return true;
  }

  bool open(Node::Kind kind) {
    const int max_depth = YamlLimits{}.max_depth;  // JSON input gets YAML's nesting limit
    if (static_cast<int>(stack_.size()) >= max_depth) {
      fail(Location{file_, 0, 0}, "nesting deeper than " + std::to_string(max_depth) + " levels");
    }
    stack_.push_back(Frame{make(kind, "", false), ""});
    return true;
  }

  bool close() {
    Node n = std::move(stack_.back().node);
    stack_.pop_back();
    attach(std::move(n));
    return true;
  }

  void attach(Node n) {
    if (stack_.empty()) {
      root_ = std::move(n);
    } else if (stack_.back().node.kind == Node::Kind::Sequence) {
      stack_.back().node.items.push_back(std::move(n));
    } else {
      Frame& map = stack_.back();
      map.node.entries.emplace_back(make(Node::Kind::Scalar, std::move(map.key), true),
                                    std::move(n));
    }
  }

  const std::string& file_;
  std::vector<Frame> stack_;
  Node root_;
};

/// Owns a JsonnetVm for one evaluation.
struct Vm {
  JsonnetVm* vm = jsonnet_make();
  ~Vm() { jsonnet_destroy(vm); }
};

std::string read_spec(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  if (in) text << in.rdbuf();
  if (!in) {
    fail(Location{file, 0, 0}, "cannot read file: " + std::string(std::strerror(errno)));
  }
  return text.str();
}

// Runs in the capped child: evaluates `text` and encodes the outcome for the parent: "O" and
// the JSON text, or "E", then "R" and the import refusal and a NUL, or "N", then Jsonnet's
// error text.
std::string evaluate(const std::string& file, const std::string& text,
                     const JsonnetOptions& options) {
  Vm vm;
  ImportPolicy policy;
  policy.vm = vm.vm;
  policy.roots.push_back(canonical_or_self(fs::absolute(file).parent_path()));
  for (const std::string& dir : options.import_dirs) {
    policy.import_dirs.push_back(canonical_or_self(dir));
    policy.roots.push_back(policy.import_dirs.back());
  }
  if (!options.template_dir.empty()) {
    policy.template_dir = canonical_or_self(options.template_dir);
    policy.roots.push_back(*policy.template_dir);
  }

  jsonnet_max_stack(vm.vm, options.max_stack);
  jsonnet_import_callback(vm.vm, import_callback, &policy);
  for (const auto& [k, v] : options.ext_str) jsonnet_ext_var(vm.vm, k.c_str(), v.c_str());
  for (const auto& [k, v] : options.ext_code) jsonnet_ext_code(vm.vm, k.c_str(), v.c_str());
  for (const auto& [k, v] : options.tla_str) jsonnet_tla_var(vm.vm, k.c_str(), v.c_str());
  for (const auto& [k, v] : options.tla_code) jsonnet_tla_code(vm.vm, k.c_str(), v.c_str());

  int error = 0;
  char* out = jsonnet_evaluate_snippet(vm.vm, file.c_str(), text.c_str(), &error);
  std::string result = error ? "E" : "O";
  if (error) result += policy.refusal ? "R" + *policy.refusal + '\0' : std::string("N");
  result += out;
  jsonnet_realloc(vm.vm, out, 0);
  return result;
}

// The Jsonnet error the child sent back, as the diagnostic a direct evaluation would give.
Diagnostic decode_error(const std::string& file, const std::string& encoded) {
  std::optional<std::string> refusal;
  std::string error = encoded.substr(2);
  if (encoded.compare(0, 2, "ER") == 0) {
    const size_t nul = error.find('\0');
    refusal = error.substr(0, nul);
    error = nul == std::string::npos ? "" : error.substr(nul + 1);
  }
  return jsonnet_diagnostic(file, error, refusal);
}

}  // namespace

Document load_jsonnet(const std::string& file, const JsonnetOptions& options) {
  Document doc;
  doc.file = file;
  doc.text = read_spec(file);
  if (doc.text.find('\0') != std::string::npos) {
    fail(Location{file, 0, 0}, "file contains a NUL byte; is it a binary file?");
  }

  ChildCaps caps;
  caps.max_memory_bytes = options.max_memory_bytes;
  caps.timeout = std::chrono::seconds(options.timeout_seconds);
  const ChildResult child = run_capped(caps, [&] { return evaluate(file, doc.text, options); });
  const Location where{file, 0, 0};
  const std::string memory_cap = format_quantity(options.max_memory_bytes);
  switch (child.outcome) {
    case ChildOutcome::Done:
      break;
    case ChildOutcome::OutOfMemory:
      fail(where, "Jsonnet evaluation needs more memory than its cap of " + memory_cap +
                      "; if the spec really needs more, raise the cap with "
                      "--jsonnet-max-memory");
    case ChildOutcome::TimedOut:
      fail(where, "Jsonnet evaluation did not finish within its cap of " +
                      format_duration(options.timeout_seconds) +
                      "; if the spec really needs longer, raise the cap with --jsonnet-timeout");
    case ChildOutcome::Failed:
      fail(where, "Jsonnet evaluation failed: " + child.output +
                      "; if the spec needs more memory than the cap of " + memory_cap +
                      ", raise it with --jsonnet-max-memory");
  }
  if (child.output.rfind("E", 0) == 0) throw LoadError{decode_error(file, child.output)};

  JsonTreeBuilder builder(file);
  nlohmann::json::sax_parse(child.output.begin() + 1, child.output.end(), &builder);
  doc.root = builder.take_root();
  return doc;
}

}  // namespace pai
