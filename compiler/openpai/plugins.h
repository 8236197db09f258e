// OpenPAI's `extras`: the runtime plugins pai can serve, the rest dropped.
//
// `teamwise_storage` storages become mounts at OpenPAI's mount point /mnt/<name>; the `ssh`
// plugin (`jobssh`) becomes pai's remote shell agent, so that a task role's `mpirun -H
// worker-0,worker-1` reaches the other instances without ssh; the `cmd` plugin's commands run
// before and after the task roles' commands (cmd_plugin.h).
#pragma once

#include <vector>

#include "compiler/document/diagnostics.h"
#include "compiler/document/document.h"
#include "compiler/document/field_reader.h"
#include "compiler/openpai/cmd_plugin.h"
#include "compiler/openpai/dropped.h"

namespace pai {

/// What the runtime plugins of a job file ask for.
struct RuntimePlugins {
  Node mounts;                ///< a sequence of pai mounts (teamwise_storage)
  bool remote_shell = false;  ///< the ssh plugin with jobssh
  std::vector<CmdPlugin> commands;  ///< the cmd plugins, in file order
};

/// Reads the `extras` mapping `node`: runtime plugins translated (a located warning for each
/// storage, which the hosts must mount), every other field into `dropped`.
RuntimePlugins translate_openpai_extras(const Node& node, FieldReader& reader, Diagnostics& diags,
                                        DroppedFields& dropped);

}  // namespace pai
