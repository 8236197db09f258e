#include "launcher/commands/coordinator_address.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <tuple>

#include "libpai/bounded_file.h"
#include "libpai/plan_json.h"

namespace pai::launcher {

namespace {

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

std::string this_host() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "unknown-host";
  return name;
}

// A job token is 64 hex digits (pai-compile's job.token); a bigger file is not a token.
constexpr std::size_t kMaxTokenFileBytes = 4096;

const char* const kHowToName =
    "pass --plan plan.json, or --coordinator ADDRESS:PORT --token-file FILE --job NAME "
    "(inside a job, PAI_COORDINATOR, PAI_TOKEN_FILE and PAI_JOB_NAME name it)";

JobTarget from_plan(const JobLocator& locator) {
  if (!locator.coordinator.empty() || !locator.job.empty()) {
    throw LocateError("--plan names the job and its coordinator: do not combine it with " +
                      std::string(locator.coordinator.empty() ? "--job" : "--coordinator"));
  }
  const std::optional<JobToken> token = find_job_token(locator.plan_path, locator.token_file);
  Plan plan;
  try {
    plan = load_plan_file(locator.plan_path, token);
  } catch (const PlanError& e) {
    throw LocateError(e.what());
  }
  JobTarget target;
  target.job = plan.name;
  target.address = plan.coordinator.address;
  target.port = plan.coordinator.port;
  // A plan with an unkeyed seal loads without a token; its job still needs one.
  target.token = token ? token->secret : read_job_token(token_beside(locator.plan_path));
  target.log_dir = default_log_dir(plan, locator.plan_path);
  return target;
}

}  // namespace

std::string default_log_dir(const Plan& plan, const std::string& plan_path) {
  if (!plan.output.empty()) return plan.output + "/logs";
  std::filesystem::path dir = std::filesystem::path(plan_path).parent_path();
  return (dir.empty() ? std::filesystem::path(".") : dir).string() + "/logs";
}

std::string JobTarget::endpoint() const {
  const bool v6 = address.find(':') != std::string::npos;
  return (v6 ? "[" + address + "]" : address) + ":" + std::to_string(port);
}

std::pair<std::string, int> parse_endpoint(const std::string& text, const std::string& what) {
  auto bad = [&](const std::string& why) -> LocateError {
    return LocateError(what + " \"" + text + "\": " + why);
  };
  std::string address;
  std::string port;
  if (!text.empty() && text.front() == '[') {
    const std::size_t close = text.find(']');
    if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      throw bad("expected [ADDRESS]:PORT");
    }
    address = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else {
    const std::size_t colon = text.rfind(':');
    if (colon == std::string::npos || text.find(':') != colon) {
      throw bad("expected ADDRESS:PORT (an IPv6 address in brackets)");
    }
    address = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  if (address.empty()) throw bad("the address is empty");
  if (port.empty() || port.size() > 5 ||
      port.find_first_not_of("0123456789") != std::string::npos || std::stoi(port) < 1 ||
      std::stoi(port) > 65535) {
    throw bad("the port must be a number from 1 to 65535");
  }
  return {address, std::stoi(port)};
}

std::string read_job_token(const std::string& path) {
  std::string text;
  try {
    text = read_bounded_regular_file(path, kMaxTokenFileBytes, "the job token");
  } catch (const BoundedFileError& e) {
    throw LocateError("cannot read the job token from " + path + ": " + e.reason());
  }
  std::string token = text.substr(0, text.find('\n'));
  // A file written by hand or by `echo` may end a line with CR or blanks.
  token.erase(token.find_last_not_of(" \t\r") + 1);
  if (token.empty()) {
    throw LocateError("cannot read the job token from " + path + ": it is empty");
  }
  // Not an error: the user may have reasons (a shared, trusted group), and refusing would
  // stop a job over a file mode. But whoever can read the token can control the job.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && (st.st_mode & (S_IRGRP | S_IROTH)) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    std::cerr << "pai-launch: warning: the job token " << path
              << " is readable by group or others (mode " << mode
              << "), who can then control the job; chmod 600 " << path << "\n";
  }
  return token;
}

std::string token_beside(const std::string& plan_path) {
  return (std::filesystem::path(plan_path).parent_path() / "job.token").string();
}

std::optional<JobToken> find_job_token(const std::string& plan_path,
                                       const std::string& token_file) {
  if (!token_file.empty()) return JobToken{read_job_token(token_file), token_file};
  const std::string beside = token_beside(plan_path);
  std::error_code ec;
  if (!std::filesystem::exists(beside, ec)) return std::nullopt;
  return JobToken{read_job_token(beside), beside};
}

// locate_job without --log-dir.
static JobTarget locate_coordinator(const JobLocator& locator);

JobTarget locate_job(const JobLocator& locator) {
  JobTarget target = locate_coordinator(locator);
  if (!locator.log_dir.empty()) target.log_dir = locator.log_dir;
  return target;
}

static JobTarget locate_coordinator(const JobLocator& locator) {
  if (!locator.plan_path.empty()) return from_plan(locator);
  JobTarget target;
  std::string token_file;
  if (!locator.coordinator.empty()) {
    if (locator.token_file.empty() || locator.job.empty()) {
      throw LocateError(std::string("--coordinator needs ") +
                        (locator.token_file.empty() ? "--token-file" : "--job") + " too");
    }
    std::tie(target.address, target.port) = parse_endpoint(locator.coordinator, "--coordinator");
    target.job = locator.job;
    token_file = locator.token_file;
  } else {
    const std::string coordinator = env("PAI_COORDINATOR");
    if (coordinator.empty()) throw LocateError(std::string("which job? ") + kHowToName);
    std::tie(target.address, target.port) = parse_endpoint(coordinator, "PAI_COORDINATOR");
    // Flags still override what the environment says.
    target.job = !locator.job.empty() ? locator.job : env("PAI_JOB_NAME");
    token_file = !locator.token_file.empty() ? locator.token_file : env("PAI_TOKEN_FILE");
    if (target.job.empty()) {
      throw LocateError("PAI_COORDINATOR is set but PAI_JOB_NAME is not: pass --job NAME");
    }
    if (token_file.empty()) {
      throw LocateError("PAI_COORDINATOR is set but PAI_TOKEN_FILE is not: pass --token-file FILE");
    }
  }
  target.token = read_job_token(token_file);
  return target;
}

std::unique_ptr<net::Client> connect_control(const JobTarget& target) {
  net::ClientOptions options;
  options.address = target.address;
  options.port = target.port;
  options.token = target.token;
  options.job = target.job;
  options.claim = net::PeerClaim{"control", this_host()};
  try {
    return std::make_unique<net::Client>(options);
  } catch (const net::ConnectionError& e) {
    const std::string what = e.what();
    // Nothing listening is the usual case of a job that is over or not started: say so. A
    // rejected handshake (wrong token or job name) speaks for itself.
    if (what.find(": cannot connect:") != std::string::npos ||
        what.find(": cannot resolve") != std::string::npos) {
      throw net::ConnectionError(what + "; is the job running? the coordinator of job " +
                                 target.job + " is expected at " + target.endpoint());
    }
    throw;
  }
}

}  // namespace pai::launcher
