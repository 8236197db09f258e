// pai-compile: the job-spec compiler. Everything it does is in the folders' libraries
// (docs/compiler-layers.md); the command line is compiler/commands/command_line.cpp.
#include "compiler/commands/command_line.h"

#ifdef PAI_JEMALLOC
// jemalloc's options, read by jemalloc when it starts (before main); the MALLOC_CONF
// environment variable still overrides them. Defined only where pai-compile links jemalloc
// (compiler/CMakeLists.txt).
//
// retain:false: jemalloc keeps no address space mapped ahead of need. With its default (true)
// it grows its mappings geometrically, and the Jsonnet evaluation's memory cap is an
// address-space limit (RLIMIT_AS): a spec that evaluated in 1 GiB on glibc's malloc failed at
// about three quarters of that. With false the same specs fit as on glibc (a little more
// does), at the same speed (bench/README.md).
extern "C" {
const char* malloc_conf = "retain:false";
}
#endif

int main(int argc, char** argv) { return pai::compile_main(argc, argv); }
