// What `pai-launch torchrun` finds out about the machine it runs on: the GPUs and CPUs torchrun
// would count for --nproc-per-node gpu|cpu|auto, free ports, run ids, and whether the
// rendezvous endpoint is this machine.
#pragma once

#include <map>
#include <string>

namespace pai::launcher {

/// This process's environment, by name.
std::map<std::string, std::string> process_environment();

/// The CUDA GPUs a process started here may use, as torch.cuda.device_count() counts them:
/// the entries of CUDA_VISIBLE_DEVICES before the first invalid one when it is set ("" and
/// "-1" hide every GPU), else the GPUs under `proc`/driver/nvidia/gpus.
int visible_gpus(const std::map<std::string, std::string>& env, const std::string& proc = "/proc");

/// The interpreter torchrun would run the script with, its own: that of the first `torchrun`
/// on `path_list` (a PATH) that is not this program (`self`, e.g. a link named torchrun to
/// pai-launch), read from its "#!" line ("/usr/bin/python3.11"; `#!/usr/bin/env python3`
/// gives "python3"). "" when there is none.
std::string torchrun_interpreter(const std::string& path_list, const std::string& self);

/// The online CPUs (os.cpu_count()), at least 1.
int online_cpus();

/// A TCP port free on this machine now (bound to port 0 and released).
int free_port();

/// A random UUID (version 4), as torchrun's --standalone makes its run id.
std::string random_uuid();

/// Whether `host` (a name or a numeric address) is this machine: localhost, a loopback
/// address, an address of a local interface, the host name, or a name that resolves to one of
/// those.
bool is_local_host(const std::string& host);

}  // namespace pai::launcher
