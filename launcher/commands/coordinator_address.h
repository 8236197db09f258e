// Finding a running job's coordinator for the control commands (`pai-launch status|stop|
// start|run|kill|logs` and `pai-launch rsh`): from a plan, from explicit flags, or from the
// environment every process of a multi-node job gets (PAI_COORDINATOR, PAI_TOKEN_FILE,
// PAI_JOB_NAME), and connecting to it as a "control" peer.
#pragma once

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "launcher/net/client.h"
#include "libpai/plan.h"
#include "libpai/plan_seal.h"

namespace pai::launcher {

/// How the user named the job: the flags shared by the control commands. Empty = not given.
struct JobLocator {
  std::string plan_path;    ///< --plan: the coordinator from the plan, job.token beside it
  std::string coordinator;  ///< --coordinator ADDRESS:PORT (needs token_file and job)
  std::string token_file;   ///< --token-file
  std::string job;          ///< --job NAME
  std::string log_dir;      ///< --log-dir (status, logs): where the job's logs are
};

/// A job the control commands can reach.
struct JobTarget {
  std::string job = {};
  std::string address = {};
  int port = 0;
  std::string token = {};  ///< the job token's text
  /// The job's log folder: --log-dir, else the plan's (default_log_dir); "" when neither
  /// says (a job named by --coordinator or its environment).
  std::string log_dir = {};
  /// "ADDRESS:PORT" ("[ADDRESS]:PORT" for IPv6), for messages.
  std::string endpoint() const;
};

/// The job cannot be located: conflicting or missing flags, an unreadable plan or token.
/// A usage error (exit code 2); what() is the complete message.
class LocateError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The log folder of the job `plan` (loaded from `plan_path`) when the launcher is given no
/// --log-dir: `<output>/logs`, else `logs/` next to the plan.
std::string default_log_dir(const Plan& plan, const std::string& plan_path);

/// Resolves `locator`, in this order: --plan (with --token-file, else job.token next to the
/// plan); --coordinator with --token-file and --job; PAI_COORDINATOR, PAI_TOKEN_FILE and
/// PAI_JOB_NAME from the environment (inside a job). --plan excludes --coordinator and --job.
/// Reads the token. Throws LocateError.
JobTarget locate_job(const JobLocator& locator);

/// "ADDRESS:PORT" or "[V6ADDRESS]:PORT" split; LocateError naming `what` (the flag or
/// variable it came from) when malformed or the port is not in 1..65535.
std::pair<std::string, int> parse_endpoint(const std::string& text, const std::string& what);

/// The first line of a job token file without trailing whitespace (as pai-compile reads a
/// --token-file, so both derive the same plan seal key), which must be a regular file of at
/// most 4 KiB; LocateError "cannot read the job token from PATH: WHY" (missing, not a regular
/// file, too big, empty). A token file readable by group or others is read all the same, with
/// a one-line warning on stderr.
std::string read_job_token(const std::string& path);

/// job.token in the folder of the plan at `plan_path`, where pai-compile writes it.
std::string token_beside(const std::string& plan_path);

/// The job token that verifies the plan at `plan_path` (libpai/plan_seal.h): read from
/// `token_file` when one is given, else from token_beside(plan_path) when that exists; nullopt
/// when neither. Throws LocateError when the token file cannot be read.
std::optional<JobToken> find_job_token(const std::string& plan_path, const std::string& token_file);

/// Connects and authenticates as peer "control" (the claim's node is this host's name).
/// Throws net::ConnectionError; when nothing answers, its what() adds "is the job running?
/// the coordinator of job JOB is expected at ADDRESS:PORT".
std::unique_ptr<net::Client> connect_control(const JobTarget& target);

}  // namespace pai::launcher
