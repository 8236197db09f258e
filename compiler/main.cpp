// pai-compile: the job-spec compiler. Everything it does is in the folders' libraries
// (docs/compiler-layers.md); the command line is compiler/commands/command_line.cpp.
#include "compiler/commands/command_line.h"

int main(int argc, char** argv) { return pai::compile_main(argc, argv); }
