// pai-compile's command line: its flags, read by CLI11 into CompileOptions for run_compile().
#pragma once

namespace pai {

/// Parses argv and compiles; returns the process's exit code (run_compile()'s; 2 for a usage
/// error, 0 for --help and --version).
int compile_main(int argc, char** argv);

}  // namespace pai
