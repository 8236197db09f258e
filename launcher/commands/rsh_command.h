// `pai-launch rsh`: the remote shell agent of a job's `mpirun` (OMPI_MCA_plm_rsh_agent, design
// §5, §8), so Open MPI starts its daemons on the other nodes through the job's coordinator
// instead of ssh. Called like ssh: `pai-launch rsh [ssh options] HOST COMMAND...`; COMMAND
// runs with /bin/sh -c on the node HOST names, with this process's stdin, stdout and stderr,
// and its exit code becomes this process's.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "launcher/commands/coordinator_address.h"
#include "launcher/net/protocol.h"

namespace pai::launcher {

/// Exit code of rsh's own failures (usage, no coordinator, unknown host), as ssh's.
inline constexpr int kRshFailure = 255;

/// What `pai-launch rsh` was asked.
struct RshRequest {
  JobLocator locator;     ///< --plan/--coordinator/--token-file/--job; else the environment
  std::string host;       ///< a node name or address ("user@" removed)
  std::string command;    ///< the command words joined with spaces, as ssh joins them
  bool no_stdin = false;  ///< -n: the command's stdin is empty
  bool help = false;      ///< --help / -h
};

/// Malformed arguments; what() says which.
class RshUsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Parses the arguments after "rsh". Options end at HOST (or "--"); everything after HOST is
/// the command. ssh and rsh options Open MPI or a user may pass are accepted and ignored
/// (-l USER, -p PORT, -o OPTION, -x, -T, -4, ...), except -n, which empties the command's
/// stdin. Throws RshUsageError for an unknown option, an option without its argument, or a
/// missing HOST or COMMAND.
RshRequest parse_rsh_arguments(const std::vector<std::string>& args);

/// The node `host` means among the nodes of a `status` reply: the node of that name, else
/// the one node with that address (hostfiles hold addresses), else the node running instance
/// INDEX of role ROLE when `host` is "ROLE-INDEX" (OpenPAI's ssh plugin's name of an
/// instance). Throws RshUsageError when none or several match.
std::string resolve_rsh_host(const net::StatusReply& status, const std::string& host);

/// Runs `pai-launch rsh ARGS...` with stdin `in_fd`, stdout `out_fd`, stderr `err_fd`.
/// Returns the remote command's exit code, or kRshFailure (with a message on `err_fd`) when
/// it cannot run it.
int rsh_command(const std::vector<std::string>& args, int in_fd = 0, int out_fd = 1,
                int err_fd = 2);

}  // namespace pai::launcher
