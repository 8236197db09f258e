// pai-launch: the per-node launcher. Everything it does is in the folders' libraries
// (docs/launcher-layers.md); the command line is launcher/commands/command_line.cpp.
#include "launcher/commands/command_line.h"

int main(int argc, char** argv) { return pai::launcher::launch_main(argc, argv); }
