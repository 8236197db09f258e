#include "compiler/spec/slurm_parser.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <optional>

#include "compiler/document/yaml_loader.h"
#include "libpai/plan_json.h"
#include "support/plan_fixture.h"

namespace slurm_parser_test {

using namespace pai;

namespace {

// The job the section is parsed against: an image, a mount at /data, output /runs/x.
Plan job_with_image() {
  Plan job;
  job.name = "x";
  job.image = "nvcr.io#nvidia/pytorch:25.01-py3";
  job.mounts = {Mount{"data", "/mnt/data", "/data", true}};
  job.output = "/runs/x";
  return job;
}

struct Parsed {
  Slurm s;
  Diagnostics diags;
  std::map<std::string, Location> locations;
};

Parsed parse(const std::string& yaml, const Plan& job = job_with_image()) {
  Parsed p;
  FieldReader reader(p.diags, p.locations);
  parse_slurm(load_yaml("job.yaml", yaml).root, "slurm", job, reader, &p.s);
  return p;
}

std::vector<std::string> errors(const Parsed& p) {
  std::vector<std::string> out;
  for (const Diagnostic& d : p.diags.all()) out.push_back(d.path + ": " + d.message);
  return out;
}

}  // namespace

TEST_CASE("slurm section: an empty section keeps every default") {
  const Parsed p = parse("{}\n");
  CHECK(p.diags.all().empty());
  CHECK(p.s == Slurm{});
}

TEST_CASE("slurm section: every field") {
  const Parsed p = parse(
      "account: ml-research\n"
      "partition: gpu,gpu-spot\n"
      "qos: high\n"
      "reservation: llm_run.1\n"
      "segment: 16\n"
      "requeue: 5\n"
      "mpi: pmix_v5\n"
      "container:\n"
      "  image: /lustre/images/pytorch.sqsh\n"
      "  mounts: [/lustre/ckpt:/ckpt, \"./cache:/root/.cache:rw+rprivate\", tmpfs:/scratch]\n"
      "  workdir: /workspace\n"
      "  writable: false\n"
      "  mountHome: true\n"
      "  name: llm\n");
  CHECK(errors(p).empty());
  CHECK(p.s.account == "ml-research");
  CHECK(p.s.partition == "gpu,gpu-spot");
  CHECK(p.s.qos == "high");
  CHECK(p.s.reservation == "llm_run.1");
  CHECK(p.s.segment == 16);
  CHECK(p.s.requeue == 5);
  CHECK(p.s.mpi == "pmix_v5");
  const SlurmContainer& c = p.s.container;
  CHECK(c.image == "/lustre/images/pytorch.sqsh");
  CHECK(c.mounts == std::vector<std::string>{"/lustre/ckpt:/ckpt",
                                             "./cache:/root/.cache:rw+rprivate", "tmpfs:/scratch"});
  CHECK(c.workdir == "/workspace");
  CHECK(c.writable == Switch::Off);
  CHECK(c.mount_home == Switch::On);
  CHECK(c.name == "llm");
  CHECK(p.locations.at("slurm.container.mounts[2]").line == 10);
}

TEST_CASE("slurm section: the container's image is the spec's unless it names one") {
  CHECK(parse("container: {}\n").s.container.image == "nvcr.io#nvidia/pytorch:25.01-py3");
  Plan no_image = job_with_image();
  no_image.image.clear();
  const Parsed p = parse("container: {writable: true}\n", no_image);
  CHECK(errors(p) == std::vector<std::string>{"slurm.container: the container needs an image: "
                                              "give slurm.container.image or the spec's image"});
  CHECK(p.s.container.image.empty());
  CHECK(errors(parse("container: {image: \"a b\"}\n")) ==
        std::vector<std::string>{
            "slurm.container.image: expected an image, [USER@][REGISTRY#]IMAGE[:TAG] or the path "
            "of a squashfs file, got \"a b\""});
}

TEST_CASE("slurm section: container mounts follow pyxis' SRC:DST[:FLAGS]") {
  const Parsed p = parse(
      "container:\n"
      "  mounts:\n"
      "    - /a:/b\n"
      "    - /a\n"
      "    - host:/b2\n"
      "    - /a:b\n"
      "    - /a:/c:RO\n"
      "    - /a:/d,/e:/f\n"
      "    - /a:/g:ro+\n"
      "    - /x:/data\n"
      "    - /y:/runs/x:ro\n"
      "    - /z:/b\n"
      "    - 7\n");
  const std::string expected =
      "expected a mount SRC:DST[:FLAGS] (SRC a path, tmpfs or umount; DST a path; FLAGS such as "
      "ro or ro+rprivate; no ','), got ";
  CHECK(errors(p) ==
        std::vector<std::string>{
            "slurm.container.mounts[1]: " + expected + "\"/a\"",
            "slurm.container.mounts[2]: " + expected + "\"host:/b2\"",
            "slurm.container.mounts[3]: " + expected + "\"/a:b\"",
            "slurm.container.mounts[4]: " + expected + "\"/a:/c:RO\"",
            "slurm.container.mounts[5]: " + expected + "\"/a:/d,/e:/f\"",
            "slurm.container.mounts[6]: " + expected + "\"/a:/g:ro+\"",
            "slurm.container.mounts[7]: mount target \"/data\" is already mounted by mounts[0]",
            "slurm.container.mounts[8]: mount target \"/runs/x\" is already mounted by output",
            "slurm.container.mounts[9]: mount target \"/b\" is already mounted by "
            "slurm.container.mounts[0]",
            "slurm.container.mounts[10]: " + expected + "7"});
  CHECK(p.s.container.mounts == std::vector<std::string>{"/a:/b"});
}

TEST_CASE("slurm section: names, segment, the requeue chain and the MPI plugin are checked") {
  CHECK(errors(parse("account: \"ml research\"\npartition: \"gpu,\"\nqos: a/b\n"
                     "reservation: \",r\"\n")) ==
        std::vector<std::string>{
            "slurm.account: expected an account name (letters, digits, '_', '.' and '-'), got "
            "\"ml research\"",
            "slurm.partition: expected a partition name (letters, digits, '_', '.' and '-'; "
            "several separated by ','), got \"gpu,\"",
            "slurm.qos: expected a QOS name (letters, digits, '_', '.' and '-'), got \"a/b\"",
            "slurm.reservation: expected a reservation name (letters, digits, '_', '.' and '-'; "
            "several separated by ','), got \",r\""});
  CHECK(errors(parse("segment: 0\n")) ==
        std::vector<std::string>{"slurm.segment: expected an integer between 1 and 65535, got 0"});
  CHECK(errors(parse("requeue: -1\n")) ==
        std::vector<std::string>{"slurm.requeue: expected an integer between 0 and 1000, got -1"});
  CHECK(
      errors(parse("requeue: 1001\n")) ==
      std::vector<std::string>{"slurm.requeue: expected an integer between 0 and 1000, got 1001"});
  CHECK(errors(parse("requeue: 0\n")).empty());
  CHECK(errors(parse("mpi: pmx\n")) ==
        std::vector<std::string>{"slurm.mpi: expected one of pmix, pmix_v3, pmix_v4, pmix_v5, "
                                 "pmi2, cray_shasta, none, got \"pmx\" (did you mean \"pmix\"?)"});
  CHECK(parse("mpi: none\n").s.mpi == "none");
  CHECK(errors(parse("container: {writable: yes, name: \"a:b\"}\n")) ==
        std::vector<std::string>{
            "slurm.container.writable: expected true or false, got \"yes\"",
            "slurm.container.name: expected a container name (letters, digits, '_', '.' and '-'), "
            "got \"a:b\""});
}

TEST_CASE("slurm section: unknown keys are errors with a suggestion") {
  CHECK(
      errors(parse("acount: a\nimage: x\n")) ==
      std::vector<std::string>{"slurm: unknown key \"acount\" (did you mean \"account\"?)",
                               "slurm: unknown key \"image\" (did you mean \"container.image\"?)"});
  CHECK(errors(parse("container: {mount: [/a:/b]}\n")) ==
        std::vector<std::string>{
            "slurm.container: unknown key \"mount\" (did you mean \"mounts\"?)"});
}

TEST_CASE("slurm section: the settings reach plan.json and come back, absent when unset") {
  Plan plan = testing::make_test_plan();
  CHECK_FALSE(nlohmann::json::parse(plan_to_json_unkeyed(plan)).contains("slurm"));
  const Parsed p = parse(
      "account: a\npartition: p\nqos: q\nreservation: r\nsegment: 4\nrequeue: 2\nmpi: pmi2\n"
      "container: {mounts: [/a:/b], workdir: /w, writable: true, mountHome: false, name: n}\n");
  REQUIRE(errors(p).empty());
  plan.slurm = p.s;
  const std::string text = plan_to_json_unkeyed(plan);
  CHECK(nlohmann::json::parse(text)["slurm"]["container"]["writable"] == "on");
  CHECK(plan_from_json(text, "plan.json", std::nullopt).slurm == plan.slurm);
  // Only what is set is written.
  plan.slurm = parse("segment: 2\n").s;
  const nlohmann::json only = nlohmann::json::parse(plan_to_json_unkeyed(plan))["slurm"];
  CHECK(only == nlohmann::json{{"segment", 2}});
}

TEST_CASE("pyxis mounts: source, destination and flags as pyxis parses them") {
  std::string target;
  CHECK(is_pyxis_mount("/a:/b", &target));
  CHECK(target == "/b");
  CHECK(is_pyxis_mount("./rel:./dst:ro+x-create=dir", &target));
  CHECK(target == "./dst");
  CHECK(is_pyxis_mount("umount:/proc/driver", &target));
  CHECK_FALSE(is_pyxis_mount("", &target));
  CHECK_FALSE(is_pyxis_mount(":/b", &target));
  CHECK_FALSE(is_pyxis_mount("/a:", &target));
  CHECK_FALSE(is_pyxis_mount("/a:/b:", &target));
  CHECK_FALSE(is_pyxis_mount("/a:/b:ro:x", &target));
}

}  // namespace slurm_parser_test
