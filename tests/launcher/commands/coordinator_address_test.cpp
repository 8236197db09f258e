#include "launcher/commands/coordinator_address.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <iostream>
#include <sstream>

#include "launcher/fake_coordinator.h"
#include "libpai/plan_json.h"
#include "support/plan_fixture.h"
#include "support/temp_dir.h"

namespace coordinator_address_test {

using pai::launcher::JobLocator;
using pai::launcher::locate_job;
using pai::launcher::LocateError;
using pai::testing::TempDir;

namespace {

void clear_job_env() {
  unsetenv("PAI_COORDINATOR");
  unsetenv("PAI_TOKEN_FILE");
  unsetenv("PAI_JOB_NAME");
}

// What locate_job() throws; fails the test when it throws nothing.
std::string locate_error(const JobLocator& locator) {
  try {
    locate_job(locator);
  } catch (const LocateError& e) {
    return e.what();
  }
  FAIL("locate_job succeeded where it should have failed");
  return {};
}

}  // namespace

TEST_CASE("locate_job takes the coordinator from the plan and job.token beside it") {
  clear_job_env();
  TempDir dir;
  const pai::Plan plan = pai::testing::make_test_plan();
  pai::testing::spit(dir / "plan.json", pai::plan_to_json(plan, "secret-1"));
  // As a file written by hand may end: blanks and CR go, as pai-compile drops them.
  pai::testing::spit(dir / "job.token", "secret-1 \r\n");
  const auto target = locate_job(JobLocator{dir / "plan.json", "", "", "", ""});
  CHECK(target.job == "test-job");
  CHECK(target.address == plan.coordinator.address);
  CHECK(target.port == plan.coordinator.port);
  CHECK(target.token == "secret-1");
  CHECK(target.endpoint() ==
        plan.coordinator.address + ":" + std::to_string(plan.coordinator.port));

  // --token-file wins over job.token, and must be the token the plan is sealed with.
  pai::testing::spit(dir / "other.token", "secret-2\n");
  CHECK(locate_error(JobLocator{dir / "plan.json", "", dir / "other.token", "", ""}) ==
        dir / "plan.json" + ": the plan's seal does not verify with the job token " +
            dir / "other.token" +
            ": the plan was edited after pai-compile wrote it, or compiled with another token; "
            "recompile with pai-compile");
  pai::testing::spit(dir / "plan.json", pai::plan_to_json(plan, "secret-2"));
  CHECK(locate_job(JobLocator{dir / "plan.json", "", dir / "other.token", "", ""}).token ==
        "secret-2");
  CHECK(locate_error(JobLocator{dir / "plan.json", "10.0.0.1:1", "", "", ""}) ==
        "--plan names the job and its coordinator: do not combine it with --coordinator");
  CHECK(locate_error(JobLocator{dir / "plan.json", "", "", "x", ""}) ==
        "--plan names the job and its coordinator: do not combine it with --job");
  CHECK(locate_error(JobLocator{dir / "missing.json", "", "", "", ""}).find(dir / "missing.json") !=
        std::string::npos);
  std::filesystem::remove(dir / "job.token");
  CHECK(locate_error(JobLocator{dir / "plan.json", "", "", "", ""}) ==
        dir / "plan.json" +
            ": the plan is sealed with its job token, which was not found: keep job.token next "
            "to plan.json or pass --token-file");
  // A plan without a token loads, but the job cannot be reached without one.
  pai::testing::spit(dir / "plan.json", pai::plan_to_json_unkeyed(plan));
  CHECK(locate_error(JobLocator{dir / "plan.json", "", "", "", ""}) ==
        "cannot read the job token from " + dir / "job.token" + ": No such file or directory");
}

TEST_CASE("locate_job takes explicit flags and else the environment of a job") {
  clear_job_env();
  TempDir dir;
  pai::testing::spit(dir / "job.token", "tok\n");
  auto target = locate_job(JobLocator{"", "[::1]:29400", dir / "job.token", "train", ""});
  CHECK(target.address == "::1");
  CHECK(target.port == 29400);
  CHECK(target.job == "train");
  CHECK(target.endpoint() == "[::1]:29400");
  CHECK(locate_error(JobLocator{"", "10.0.0.1:29400", "", "train", ""}) ==
        "--coordinator needs --token-file too");
  CHECK(locate_error(JobLocator{"", "10.0.0.1:29400", dir / "job.token", "", ""}) ==
        "--coordinator needs --job too");

  CHECK(locate_error(JobLocator{}) ==
        "which job? pass --plan plan.json, or --coordinator ADDRESS:PORT --token-file FILE --job "
        "NAME (inside a job, PAI_COORDINATOR, PAI_TOKEN_FILE and PAI_JOB_NAME name it)");
  setenv("PAI_COORDINATOR", "127.0.0.5:20001", 1);
  CHECK(locate_error(JobLocator{}) ==
        "PAI_COORDINATOR is set but PAI_JOB_NAME is not: pass --job NAME");
  setenv("PAI_JOB_NAME", "demo", 1);
  CHECK(locate_error(JobLocator{}) ==
        "PAI_COORDINATOR is set but PAI_TOKEN_FILE is not: pass --token-file FILE");
  setenv("PAI_TOKEN_FILE", (dir / "job.token").c_str(), 1);
  target = locate_job(JobLocator{});
  CHECK(target.endpoint() == "127.0.0.5:20001");
  CHECK(target.job == "demo");
  CHECK(target.token == "tok");
  // A flag wins over the environment.
  CHECK(locate_job(JobLocator{"", "", "", "other", ""}).job == "other");
  pai::testing::spit(dir / "empty.token", "");
  setenv("PAI_TOKEN_FILE", (dir / "empty.token").c_str(), 1);
  CHECK(locate_error(JobLocator{}) ==
        "cannot read the job token from " + dir / "empty.token" + ": it is empty");
  clear_job_env();
}

TEST_CASE("read_job_token takes a regular file of at most 4 KiB") {
  using pai::launcher::read_job_token;
  TempDir dir;
  // Today's failure: /dev/zero was read until memory ran out.
  CHECK(locate_error(JobLocator{"", "10.0.0.1:29400", "/dev/zero", "train", ""}) ==
        "cannot read the job token from /dev/zero: it is a character device, not a regular file");
  REQUIRE(::mkfifo((dir / "fifo").c_str(), 0600) == 0);
  CHECK(locate_error(JobLocator{"", "10.0.0.1:29400", dir / "fifo", "train", ""}) ==
        "cannot read the job token from " + dir / "fifo" + ": it is a FIFO, not a regular file");
  pai::testing::spit(dir / "big.token", std::string(4097, 'a'));
  CHECK(locate_error(JobLocator{"", "10.0.0.1:29400", dir / "big.token", "train", ""}) ==
        "cannot read the job token from " + dir / "big.token" +
            ": it is larger than 4KiB, the limit");
  pai::testing::spit(dir / "full.token", std::string(4095, 'a') + "\n");
  ::chmod((dir / "full.token").c_str(), 0600);
  CHECK(read_job_token(dir / "full.token") == std::string(4095, 'a'));
}

TEST_CASE("read_job_token warns about a token file readable by group or others") {
  using pai::launcher::read_job_token;
  TempDir dir;
  const std::string path = dir / "job.token";
  pai::testing::spit(path, "tok\n");
  // What read_job_token() says on stderr.
  const auto warning = [&] {
    std::ostringstream err;
    std::streambuf* old = std::cerr.rdbuf(err.rdbuf());
    std::string token;
    try {
      token = read_job_token(path);
    } catch (...) {
      std::cerr.rdbuf(old);
      throw;
    }
    std::cerr.rdbuf(old);
    CHECK(token == "tok");
    return err.str();
  };
  REQUIRE(::chmod(path.c_str(), 0600) == 0);
  CHECK(warning().empty());
  REQUIRE(::chmod(path.c_str(), 0640) == 0);
  CHECK(warning() == "pai-launch: warning: the job token " + path +
                         " is readable by group or others (mode 0640), who can then control the "
                         "job; chmod 600 " +
                         path + "\n");
  REQUIRE(::chmod(path.c_str(), 0604) == 0);
  CHECK(warning() == "pai-launch: warning: the job token " + path +
                         " is readable by group or others (mode 0604), who can then control the "
                         "job; chmod 600 " +
                         path + "\n");
}

TEST_CASE("parse_endpoint rejects what is not ADDRESS:PORT") {
  using pai::launcher::parse_endpoint;
  CHECK(parse_endpoint("gpu-001:29400", "x") == std::pair<std::string, int>{"gpu-001", 29400});
  CHECK(parse_endpoint("[fe80::1]:1", "x") == std::pair<std::string, int>{"fe80::1", 1});
  auto error = [](const std::string& text) {
    try {
      parse_endpoint(text, "--coordinator");
    } catch (const LocateError& e) {
      return std::string(e.what());
    }
    FAIL("parse_endpoint accepted " << text);
    return std::string();
  };
  CHECK(error("10.0.0.1") ==
        "--coordinator \"10.0.0.1\": expected ADDRESS:PORT (an IPv6 address in brackets)");
  CHECK(error("::1:80") ==
        "--coordinator \"::1:80\": expected ADDRESS:PORT (an IPv6 address in brackets)");
  CHECK(error("[::1]80") == "--coordinator \"[::1]80\": expected [ADDRESS]:PORT");
  CHECK(error(":80") == "--coordinator \":80\": the address is empty");
  CHECK(error("host:0") == "--coordinator \"host:0\": the port must be a number from 1 to 65535");
  CHECK(error("host:65536") ==
        "--coordinator \"host:65536\": the port must be a number from 1 to 65535");
  CHECK(error("host:http") ==
        "--coordinator \"host:http\": the port must be a number from 1 to 65535");
}

TEST_CASE("connect_control says where the coordinator was expected when nothing answers") {
  pai::launcher::JobTarget target{"demo", "127.0.0.1", pai::testing::closed_port(), "tok"};
  try {
    pai::launcher::connect_control(target);
    FAIL("connected to a closed port");
  } catch (const pai::net::ConnectionError& e) {
    CHECK(std::string(e.what()) ==
          target.endpoint() +
              ": cannot connect: Connection refused; is the job running? the "
              "coordinator of job demo is expected at " +
              target.endpoint());
  }
}

TEST_CASE("connect_control authenticates as a control peer named after this host") {
  char host[256] = {};
  REQUIRE(::gethostname(host, sizeof host - 1) == 0);
  pai::testing::FakeCoordinator coordinator("demo", "tok", [](pai::testing::FakePeer&) {});
  pai::launcher::JobTarget target{"demo", "127.0.0.1", coordinator.port(), "tok"};
  auto client = pai::launcher::connect_control(target);
  const auto claim = coordinator.finish();
  CHECK(claim.peer == "control");
  CHECK(claim.node == host);

  // A wrong token is reported as the handshake's failure, without the "is it running" hint.
  pai::testing::FakeCoordinator other("demo", "other-token", [](pai::testing::FakePeer&) {});
  target.port = other.port();
  try {
    pai::launcher::connect_control(target);
    FAIL("authenticated with a wrong token");
  } catch (const pai::net::ConnectionError& e) {
    CHECK(std::string(e.what()).find("is the job running") == std::string::npos);
    CHECK(std::string(e.what()).find("handshake failed") != std::string::npos);
  }
  CHECK_THROWS(other.finish());
}

}  // namespace coordinator_address_test
