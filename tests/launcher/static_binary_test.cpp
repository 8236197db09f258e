// pai-launch is copied to every node: it must need nothing but glibc at run time.
#include <catch2/catch.hpp>
#include <cstdio>
#include <set>
#include <string>

#include "launcher/launcher_harness.h"

namespace static_binary_test {

TEST_CASE("pai-launch links only glibc dynamically") {
  std::set<std::string> glibc = {"libc.so.6",       "libm.so.6",  "ld-linux-x86-64.so.2",
                                 "libpthread.so.0", "libdl.so.2", "librt.so.1"};
#ifdef PAI_SANITIZE
  // The ASan/UBSan runtimes are shared libraries; release builds must not need them. Nor
  // yaml-cpp, which an unoptimized sanitizer build links: its inline functions are emitted
  // out of line, and one of them pulls the spec's inventory reader (and the YAML loader it
  // calls) out of the compiler's libraries that `pai-launch torchrun` plans with; optimized,
  // nothing references them and --as-needed drops the library.
  glibc.insert({"libasan.so.8", "libubsan.so.1", "libyaml-cpp.so.0.7"});
#endif
  FILE* pipe = popen(("readelf -d " + pai::testing::kLauncher + " 2>&1").c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string output;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) output.append(buf, n);
  REQUIRE(pclose(pipe) == 0);
  int needed = 0;
  for (std::size_t at = 0; (at = output.find("Shared library: [", at)) != std::string::npos;) {
    at += 17;
    const std::string lib = output.substr(at, output.find(']', at) - at);
    INFO("NEEDED " << lib);
    CHECK(glibc.count(lib) == 1);
    ++needed;
  }
  CHECK(needed >= 1);
}

}  // namespace static_binary_test
