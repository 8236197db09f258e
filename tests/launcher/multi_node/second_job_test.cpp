// A second job on the same node (issue 37): two jobs compiled from the default spec under
// different names get ports of their own (the default range starts by the job's name,
// compiler/spec/port_range.h) and run side by side; when a job's port is taken all the same,
// the network check's error names the way out, the spec's portRange. Real pai-compile and
// pai-launch, on 127.194.0.1.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <memory>
#include <set>
#include <string>

#include "launcher/multi_node/cluster_harness.h"
#include "libpai/plan_json.h"

namespace second_job_test {

using namespace pai;
using namespace pai::testing;

namespace {

// A one-node job named `name` on 127.194.0.1 with the default port range (or `more` spec
// lines' portRange), two labelled ports and the network check (which checks they are free),
// compiled by pai-compile.
std::unique_ptr<Cluster> compiled_job(const TempDir& dir, const std::string& name,
                                      const std::string& command, const std::string& more = "") {
  spit(dir / "job.yaml",
       "apiVersion: pai/v1\nkind: Job\nname: " + name +
           "\nhosts:\n  - {name: node-1, address: 127.194.0.1}\n"
           "roles:\n  worker:\n    instances: 1\n    nprocPerNode: 1\n    ports: {sync: 2}\n"
           "    command: " +
           command +
           "\nfaultTolerance:\n  restart: {enabled: false}\n  gracePeriod: 1s\n"
           "sanityCheck:\n  checks: [network]\n" +
           more);
  const std::string out = dir / "out";
  const int status = std::system((PAI_BINARY_DIR "/compiler/pai-compile " + dir / "job.yaml" +
                                  " -o " + out + " > " + dir / "compile.log 2>&1")
                                     .c_str());
  INFO(slurp(dir / "compile.log"));
  REQUIRE(status == 0);
  return std::make_unique<Cluster>(
      load_plan_file(out + "/plan.json", JobToken{slurp(out + "/job.token"), "job.token"}));
}

// Every port the job listens on, on its one node.
std::set<int> ports_of(const Plan& plan) {
  std::set<int> ports = {plan.coordinator.port, plan.master.port};
  for (const Placement& p : plan.placements) {
    for (const auto& [label, list] : p.ports) ports.insert(list.begin(), list.end());
  }
  return ports;
}

}  // namespace

TEST_CASE("two jobs of the default spec under different names run side by side on one host") {
  TempDir a_dir, b_dir;
  auto a = compiled_job(a_dir, "second-job-a", "sleep 2");
  auto b = compiled_job(b_dir, "second-job-b", "sleep 2");
  const std::set<int> a_ports = ports_of(a->plan());
  const std::set<int> b_ports = ports_of(b->plan());
  INFO("job a: " << a->plan().port_range_min << "-, job b: " << b->plan().port_range_min << "-");
  CHECK(a_ports.size() == 4);
  for (int port : a_ports) CHECK(b_ports.count(port) == 0);
  // Both at once, each checking that its ports are free.
  a->start_all();
  b->start_all();
  const auto a_codes = a->wait_all(40);
  const auto b_codes = b->wait_all(40);
  INFO(a->transcript() << b->transcript());
  CHECK(a_codes.at("node-1") == 0);
  CHECK(b_codes.at("node-1") == 0);
  CHECK(leftover_processes("second-job-a").empty());
  CHECK(leftover_processes("second-job-b").empty());
}

TEST_CASE("a job whose port is taken fails its network check with the way out: portRange") {
  TempDir dir;
  auto job = compiled_job(dir, "second-job-taken", "true");
  // Another program holds the job's MASTER_PORT on its node's address.
  const int held = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(held >= 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(job->plan().master.port));
  inet_pton(AF_INET, "127.194.0.1", &address.sin_addr);
  REQUIRE(bind(held, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  REQUIRE(listen(held, 1) == 0);
  job->start_all();
  const auto codes = job->wait_all(40);
  ::close(held);
  const std::string transcript = job->transcript();
  INFO(transcript);
  CHECK(codes.at("node-1") != 0);
  const std::string range =
      std::to_string(job->plan().port_range_min) + "-" + std::to_string(job->plan().port_range_max);
  CHECK(transcript.find("port " + std::to_string(job->plan().master.port) + " is not free") !=
        std::string::npos);
  CHECK(transcript.find("this job's ports come from portRange " + range +
                        ": set portRange.min and portRange.max in the job spec") !=
        std::string::npos);
  CHECK(leftover_processes("second-job-taken").empty());
}

TEST_CASE(
    "two jobs started together on one portRange: one runs, the other's check names "
    "portRange") {
  // Both checks come before either job's ranks bind a port: probing alone passed both.
  TempDir a_dir, b_dir;
  const std::string range = "portRange: {min: 31100, max: 31199}\n";
  auto a = compiled_job(a_dir, "second-job-race-a", "sleep 3", range);
  auto b = compiled_job(b_dir, "second-job-race-b", "sleep 3", range);
  REQUIRE(ports_of(a->plan()) == ports_of(b->plan()));
  a->start_all();
  b->start_all();
  const int a_code = a->wait_all(40).at("node-1");
  const int b_code = b->wait_all(40).at("node-1");
  const std::string transcripts = a->transcript() + b->transcript();
  INFO(transcripts);
  CHECK(((a_code == 0) != (b_code == 0)));
  const Cluster& refused = a_code == 0 ? *b : *a;
  const std::string said = refused.transcript();
  CHECK(said.find("is not free: reserved by another pai-launch on this host (pid ") !=
        std::string::npos);
  CHECK(said.find("this job's ports come from portRange 31100-31199: set portRange.min and "
                  "portRange.max in the job spec") != std::string::npos);
  CHECK(leftover_processes("second-job-race-a").empty());
  CHECK(leftover_processes("second-job-race-b").empty());
}

}  // namespace second_job_test
