#include "compiler/document/jsonnet_loader.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

namespace pai {
namespace jsonnet_loader_test {

namespace fs = std::filesystem;

/// A fresh folder under the system temp dir, removed with everything in it.
struct TempDir {
  fs::path path;
  TempDir() {
    std::random_device rd;
    path = fs::temp_directory_path() / ("pai-jsonnet-test-" + std::to_string(rd()));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  /// Writes `text` to `rel` (creating folders) and returns the full path as a string.
  std::string write(const std::string& rel, const std::string& text) const {
    const fs::path p = path / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
};

Diagnostic load_error(const std::string& file, const JsonnetOptions& options = {}) {
  try {
    load_jsonnet(file, options);
  } catch (const LoadError& e) {
    return e.diagnostic;
  }
  FAIL("load_jsonnet accepted input that it must reject");
  return {};
}

void check_error(const Diagnostic& d, const std::string& file, int line, int column,
                 const std::string& message) {
  CHECK(d.severity == Severity::Error);
  CHECK(d.loc.file == file);
  CHECK(d.loc.line == line);
  CHECK(d.loc.column == column);
  CHECK(d.message == message);
}

TEST_CASE("load_jsonnet turns the JSON result into nodes") {
  TempDir dir;
  const std::string file =
      dir.write("job.jsonnet",
                "local n = 4;\n"
                "{ name: 'job', count: n * 2, ratio: 1.5, small: 3e-4, whole: 2.0, big: 1e30,\n"
                "  neg: -7, yes: true, no: false, nothing: null, digits: '8',\n"
                "  list: [1, 'two', [3]], nested: { b: 1, a: 2 } }\n");
  const Document doc = load_jsonnet(file, {});
  CHECK(doc.file == file);
  CHECK(doc.text.rfind("local n = 4;", 0) == 0);
  const Node& r = doc.root;
  REQUIRE(r.is_mapping());
  CHECK(r.loc.file == file);
  CHECK(r.loc.line == 0);
  CHECK(r.loc.column == 0);

  CHECK(r.find("name")->scalar == "job");
  CHECK(r.find("name")->quoted);
  CHECK(r.find("digits")->scalar == "8");
  CHECK(r.find("digits")->quoted);
  CHECK(r.find("count")->scalar == "8");
  CHECK_FALSE(r.find("count")->quoted);
  CHECK(r.find("ratio")->scalar == "1.5");
  CHECK(r.find("small")->scalar == "0.00029999999999999997");
  CHECK(r.find("whole")->scalar == "2");
  CHECK(r.find("big")->scalar == "1000000000000000019884624838656");
  CHECK(r.find("neg")->scalar == "-7");
  CHECK(r.find("yes")->scalar == "true");
  CHECK_FALSE(r.find("yes")->quoted);
  CHECK(r.find("no")->scalar == "false");
  CHECK(r.find("nothing")->is_null());

  const Node* list = r.find("list");
  REQUIRE(list->is_sequence());
  REQUIRE(list->items.size() == 3);
  CHECK(list->items[1].scalar == "two");
  CHECK(list->items[2].is_sequence());
  CHECK(list->items[2].items[0].scalar == "3");
  CHECK(list->items[2].items[0].loc.file == file);

  const Node* nested = r.find("nested");
  REQUIRE(nested->entries.size() == 2);
  CHECK(nested->entries[0].first.scalar == "a");
  CHECK(nested->entries[0].first.quoted);
  CHECK(nested->entries[0].first.loc.file == file);
}

TEST_CASE("load_jsonnet passes ext and tla variables") {
  TempDir dir;
  const std::string file =
      dir.write("job.jsonnet",
                "function(nodes, debug) { name: std.extVar('name'), gpus: std.extVar('gpus') * 8,\n"
                "  nodes: nodes, debug: debug }\n");
  JsonnetOptions options;
  options.ext_str = {{"name", "llama"}};
  options.ext_code = {{"gpus", "2"}};
  options.tla_str = {{"nodes", "16"}};
  options.tla_code = {{"debug", "true"}};
  const Document doc = load_jsonnet(file, options);
  CHECK(doc.root.find("name")->scalar == "llama");
  CHECK(doc.root.find("gpus")->scalar == "16");
  CHECK(doc.root.find("nodes")->scalar == "16");
  CHECK(doc.root.find("nodes")->quoted);
  CHECK(doc.root.find("debug")->scalar == "true");
  CHECK_FALSE(doc.root.find("debug")->quoted);
}

TEST_CASE("load_jsonnet reports an undefined ext variable with its location") {
  TempDir dir;
  const std::string file = dir.write("job.jsonnet", "{\n  name: std.extVar('name'),\n}\n");
  check_error(load_error(file), file, 2, 9, "undefined external variable: name");
}

TEST_CASE("load_jsonnet imports pai/ from the template folder") {
  TempDir dir;
  dir.write("templates/pytorch.libsonnet",
            "local common = import 'common.libsonnet';\n"
            "{ ddp(n):: { framework: 'pytorch', instances: n, port: common.port } }\n");
  dir.write("templates/common.libsonnet", "{ port: 29500 }\n");
  const std::string file =
      dir.write("spec/job.jsonnet", "local pt = import 'pai/pytorch.libsonnet';\npt.ddp(4)\n");
  JsonnetOptions options;
  options.template_dir = (dir.path / "templates").string();
  const Document doc = load_jsonnet(file, options);
  CHECK(doc.root.find("framework")->scalar == "pytorch");
  CHECK(doc.root.find("instances")->scalar == "4");
  CHECK(doc.root.find("port")->scalar == "29500");
}

TEST_CASE("load_jsonnet imports from the spec folder - then -J dirs") {
  TempDir dir;
  dir.write("spec/lib/hosts.libsonnet", "['gpu-001', 'gpu-002']\n");
  dir.write("shared/fabric.libsonnet", "{ type: 'roce' }\n");
  const std::string file =
      dir.write("spec/job.jsonnet",
                "{ hosts: import 'lib/hosts.libsonnet', fabric: import 'fabric.libsonnet',\n"
                "  note: importstr 'lib/hosts.libsonnet' }\n");
  JsonnetOptions options;
  options.import_dirs = {(dir.path / "shared").string()};
  const Document doc = load_jsonnet(file, options);
  CHECK(doc.root.find("hosts")->items.size() == 2);
  CHECK(doc.root.find("fabric")->find("type")->scalar == "roce");
  CHECK(doc.root.find("note")->scalar == "['gpu-001', 'gpu-002']\n");
}

TEST_CASE("load_jsonnet refuses an import escaping the allowed folders") {
  TempDir dir;
  dir.write("secret.libsonnet", "{ token: 'x' }\n");
  const std::string file = dir.write("spec/job.jsonnet",
                                     "local s = import '../secret.libsonnet';\n"
                                     "{ token: s.token }\n");
  check_error(load_error(file), file, 1, 11,
              "import \"../secret.libsonnet\" escapes the allowed folders (spec folder, -J dirs, "
              "templates)");

  const std::string passwd = dir.write("spec/passwd.jsonnet", "import '../../etc/passwd'\n");
  check_error(load_error(passwd), passwd, 1, 1,
              "import \"../../etc/passwd\" escapes the allowed folders (spec folder, -J dirs, "
              "templates)");
}

TEST_CASE("load_jsonnet confines imports of a spec named relative to the working folder") {
  TempDir dir;
  dir.write("spec/lib.libsonnet", "{ ok: true }\n");
  dir.write("secret.libsonnet", "{}\n");
  dir.write("spec/job.jsonnet", "import 'lib.libsonnet'\n");
  dir.write("spec/bad.jsonnet", "import '../secret.libsonnet'\n");
  const fs::path cwd = fs::current_path();
  fs::current_path(dir.path / "spec");
  const Document doc = load_jsonnet("job.jsonnet", {});
  const Diagnostic d = load_error("bad.jsonnet");
  fs::current_path(cwd);
  CHECK(doc.root.find("ok")->scalar == "true");
  check_error(d, "bad.jsonnet", 1, 1,
              "import \"../secret.libsonnet\" escapes the allowed folders (spec folder, -J dirs, "
              "templates)");
}

TEST_CASE("load_jsonnet refuses an absolute import") {
  TempDir dir;
  const std::string lib = dir.write("spec/lib.libsonnet", "{}\n");
  const std::string file = dir.write("spec/job.jsonnet", "import '" + lib + "'\n");
  check_error(load_error(file), file, 1, 1,
              "absolute import \"" + lib +
                  "\" is not allowed; import relative to the spec folder, a -J dir or pai/");
}

TEST_CASE("load_jsonnet refuses a symlink pointing out of the spec folder") {
  TempDir dir;
  dir.write("outside.libsonnet", "{ leaked: true }\n");
  const std::string file = dir.write("spec/job.jsonnet", "import 'link.libsonnet'\n");
  fs::create_symlink(dir.path / "outside.libsonnet", dir.path / "spec/link.libsonnet");
  check_error(load_error(file), file, 1, 1,
              "import \"link.libsonnet\" escapes the allowed folders (spec folder, -J dirs, "
              "templates)");
}

TEST_CASE("load_jsonnet reports a missing import") {
  TempDir dir;
  const std::string file = dir.write("spec/job.jsonnet", "import 'nope.libsonnet'\n");
  check_error(load_error(file), file, 1, 1,
              "import \"nope.libsonnet\" not found in the spec folder, -J dirs or templates");
}

TEST_CASE("load_jsonnet stops an infinite recursion quickly") {
  TempDir dir;
  const std::string file = dir.write("job.jsonnet", "local f(x) = f(x) + 1;\n{ name: f(1) }\n");
  const auto start = std::chrono::steady_clock::now();
  const Diagnostic d = load_error(file);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
  check_error(d, file, 1, 14, "max stack frames exceeded.");
}

TEST_CASE("load_jsonnet names the spec's frame, not the standard library's, for a deep "
          "recursion") {
  TempDir dir;
  // Fails inside std.jsonnet (the `+` of a long non-tail recursion goes through it).
  const std::string file = dir.write(
      "job.jsonnet", "local f(n) = if n == 0 then 0 else 1 + f(n - 1);\n{ name: f(100000) }\n");
  check_error(load_error(file), file, 1, 17, "max stack frames exceeded.");
}

TEST_CASE("load_jsonnet caps memory at 2 GiB and time at 60 s unless told otherwise") {
  const JsonnetOptions defaults;
  CHECK(defaults.max_memory_bytes == std::int64_t{2} << 30);
  CHECK(defaults.timeout_seconds == 60);
}

TEST_CASE("load_jsonnet stops an evaluation that needs more memory than its cap") {
#ifdef PAI_SANITIZE
  WARN("skipped: AddressSanitizer builds apply no memory cap (RLIMIT_AS), only the time cap");
  return;
#else
  TempDir dir;
  // Today's failure: grows past 20 GiB.
  const std::string file = dir.write("job.jsonnet", "std.length(std.range(1, 1e9))\n");
  JsonnetOptions options;
  options.max_memory_bytes = std::int64_t{256} << 20;
  const auto start = std::chrono::steady_clock::now();
  const Diagnostic d = load_error(file, options);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(30));
  check_error(d, file, 0, 0,
              "Jsonnet evaluation needs more memory than its cap of 256Mi; if the spec really "
              "needs more, raise the cap with --jsonnet-max-memory");
#endif
}

TEST_CASE("load_jsonnet stops an evaluation that runs longer than its time cap") {
  TempDir dir;
  // A tail call in constant stack: no "max stack frames exceeded" ends it.
  const std::string file =
      dir.write("job.jsonnet", "local f(n) = f(n + 1) tailstrict;\n{ name: f(0) }\n");
  JsonnetOptions options;
  options.timeout_seconds = 2;
  const auto start = std::chrono::steady_clock::now();
  const Diagnostic d = load_error(file, options);
  const auto took = std::chrono::steady_clock::now() - start;
  CHECK(took >= std::chrono::seconds(2));
  CHECK(took < std::chrono::seconds(30));
  check_error(d, file, 0, 0,
              "Jsonnet evaluation did not finish within its cap of 2s; if the spec really needs "
              "longer, raise the cap with --jsonnet-timeout");
}

TEST_CASE("load_jsonnet passes Jsonnet's syntax error location through") {
  TempDir dir;
  const std::string file = dir.write("job.jsonnet", "{\n  name: 'x',\n  roles: ,\n}\n");
  check_error(load_error(file), file, 3, 10, "unexpected: \",\" while parsing terminal");
}

TEST_CASE("load_jsonnet passes a runtime error's first frame through") {
  TempDir dir;
  const std::string file = dir.write("job.jsonnet", "{\n  name: error 'no name given',\n}\n");
  check_error(load_error(file), file, 2, 9, "no name given");
}

TEST_CASE("load_jsonnet reads a location spanning lines") {
  TempDir dir;
  const std::string file = dir.write("job.jsonnet", "{\n  name: error\n    'multi',\n}\n");
  check_error(load_error(file), file, 2, 9, "multi");
}

TEST_CASE("load_jsonnet rejects unreadable and binary files") {
  TempDir dir;
  const std::string missing = (dir.path / "missing.jsonnet").string();
  check_error(load_error(missing), missing, 0, 0, "cannot read file: No such file or directory");
  const std::string binary = dir.write("bin.jsonnet", std::string("{}\0\x01", 4));
  check_error(load_error(binary), binary, 0, 0, "file contains a NUL byte; is it a binary file?");
}

TEST_CASE("load_jsonnet limits the nesting of its result") {
  TempDir dir;
  const std::string file = dir.write(
      "job.jsonnet", "local nest(n) = if n == 0 then {} else { a: nest(n - 1) };\nnest(100)\n");
  check_error(load_error(file), file, 0, 0, "nesting deeper than 64 levels");
}

}  // namespace jsonnet_loader_test
}  // namespace pai
