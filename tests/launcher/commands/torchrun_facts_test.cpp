#include "launcher/commands/torchrun_facts.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <regex>

#include "support/temp_dir.h"

namespace torchrun_facts_test {

using namespace pai::launcher;

TEST_CASE("visible GPUs: CUDA_VISIBLE_DEVICES up to its first invalid entry, else the driver's") {
  pai::testing::TempDir proc;
  for (const char* gpu : {"0000:17:00.0", "0000:65:00.0", "0000:ca:00.0"}) {
    std::filesystem::create_directories(proc / (std::string("driver/nvidia/gpus/") + gpu));
  }
  CHECK(visible_gpus({}, proc.path()) == 3);
  CHECK(visible_gpus({{"CUDA_VISIBLE_DEVICES", "0,1"}}, proc.path()) == 2);
  CHECK(visible_gpus({{"CUDA_VISIBLE_DEVICES", "2,-1,3"}}, proc.path()) == 1);
  CHECK(visible_gpus({{"CUDA_VISIBLE_DEVICES", ""}}, proc.path()) == 0);
  CHECK(visible_gpus({{"CUDA_VISIBLE_DEVICES", "GPU-5b8c,MIG-1a2b"}}, proc.path()) == 2);
  pai::testing::TempDir empty;
  CHECK(visible_gpus({}, empty.path()) == 0);
}

TEST_CASE("the machine's CPUs, a free port, a UUID, its own addresses") {
  CHECK(online_cpus() >= 1);
  const int port = free_port();
  CHECK(port > 0);
  CHECK(port < 65536);
  const std::string uuid = random_uuid();
  CHECK(std::regex_match(uuid, std::regex("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-"
                                          "[0-9a-f]{12}")));
  CHECK(random_uuid() != uuid);
  CHECK(is_local_host("localhost"));
  CHECK(is_local_host("127.0.0.1"));
  CHECK(is_local_host("127.3.0.2"));
  CHECK(is_local_host("::1"));
  CHECK_FALSE(is_local_host("192.0.2.123"));  // TEST-NET-1: no machine's address
  CHECK_FALSE(is_local_host("no-such-host.invalid"));
}

TEST_CASE("the interpreter of the torchrun this command stands for") {
  pai::testing::TempDir dir;
  std::filesystem::create_directories(dir / "link");
  std::filesystem::create_directories(dir / "venv");
  std::filesystem::create_directories(dir / "env");
  // A link named torchrun to this program first on PATH: skipped for the real one after it.
  std::filesystem::create_symlink("/proc/self/exe", dir / "link/torchrun");
  const auto script = [&](const std::string& folder, const std::string& first_line) {
    const std::string path = dir / (folder + "/torchrun");
    std::ofstream(path) << first_line << "\nimport sys\n";
    std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  };
  script("venv", "#!/opt/venv/bin/python3.11");
  script("env", "#!/usr/bin/env python3.12");
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  CHECK(torchrun_interpreter(dir / "link" + ":" + (dir / "venv"), self) ==
        "/opt/venv/bin/python3.11");
  CHECK(torchrun_interpreter(dir / "env" + ":" + (dir / "venv"), self) == "python3.12");
  CHECK(torchrun_interpreter(dir / "link", self).empty());
  CHECK(torchrun_interpreter("", self).empty());
}

TEST_CASE("the process environment") {
  ::setenv("PAI_TORCHRUN_FACTS_TEST", "a=b", 1);
  CHECK(process_environment().at("PAI_TORCHRUN_FACTS_TEST") == "a=b");
  ::unsetenv("PAI_TORCHRUN_FACTS_TEST");
}

}  // namespace torchrun_facts_test
