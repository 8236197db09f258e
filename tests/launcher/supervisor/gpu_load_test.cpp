// GpuLoad with shell scripts standing in for `pai-launch drill-burn` (its GPU index is $0, its
// seconds $1): when it burns, how it ends, what is left of it.
#include "launcher/supervisor/gpu_load.h"

#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <csignal>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "launcher/os/process.h"

namespace gpu_load_test {

using pai::launcher::EventLoop;
using pai::launcher::GpuLoad;
using pai::launcher::SpawnError;

std::vector<std::string> script(const std::string& text) { return {"/bin/sh", "-c", text}; }

// Runs the loop until `done` holds or 10 s pass; returns whether it held.
bool pump(EventLoop& loop, const std::function<bool()>& done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    loop.wait_once(50);
  }
  return true;
}

// Waits for `pid` and returns its wait status.
int reap(int pid) {
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  return status;
}

TEST_CASE("a GPU load says once that its burner burns and kills it when it ends") {
  EventLoop loop;
  int said = 0;
  auto load = std::make_unique<GpuLoad>(
      loop, script("echo \"burning GPU $0 (fake) for $1 s\"; echo more; exec sleep 100"), 3, 17,
      std::vector<std::pair<std::string, std::string>>{{"PATH", "/usr/bin:/bin"}}, [&] { ++said; });
  const int pid = load->pid();
  REQUIRE(pid > 0);
  CHECK(load->gpu() == 3);
  REQUIRE(pump(loop, [&] { return load->burning(); }));
  loop.wait_once(200);  // "more" read: not said again
  CHECK(said == 1);
  CHECK(load->described() == "GPU 3 (fake)");
  CHECK(load->ending().empty());
  load.reset();  // the fault ends
  const int status = reap(pid);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);
}

TEST_CASE("a burner that fails before it burns is never said to burn and its ending says why") {
  EventLoop loop;
  int said = 0;
  GpuLoad load(
      loop, script("echo \"pai-launch drill-burn: no GPU $0 on this node (1 GPUs)\" >&2; exit 1"),
      3, 5, {{"PATH", "/usr/bin:/bin"}}, [&] { ++said; });
  load.exited(reap(load.pid()));
  CHECK(load.pid() == 0);
  CHECK_FALSE(load.burning());
  CHECK(load.described() == "GPU 3");
  CHECK(said == 0);
  CHECK(load.ending() == "exit code 1: pai-launch drill-burn: no GPU 3 on this node (1 GPUs)");
}

TEST_CASE("a burner killed by a signal says so without output") {
  EventLoop loop;
  GpuLoad load(loop, script("kill -9 $$"), 0, 5, {{"PATH", "/usr/bin:/bin"}}, [] {});
  load.exited(reap(load.pid()));
  CHECK(load.ending() == "signal 9 (SIGKILL)");
}

TEST_CASE("a burner that cannot be started throws and starts nothing") {
  EventLoop loop;
  CHECK_THROWS_AS(GpuLoad(loop, {"/nonexistent/pai-launch", "drill-burn"}, 0, 5,
                          {{"PATH", "/usr/bin:/bin"}}, [] {}),
                  SpawnError);
}

TEST_CASE(
    "a burner flooding its output before its line is still seen to burn - its output capped") {
  EventLoop loop;
  int said = 0;
  auto load = std::make_unique<GpuLoad>(
      loop,
      script("head -c 1000000 /dev/zero | tr '\\0' x; echo; echo \"burning GPU $0\"; "
             "head -c 100000 /dev/zero | tr '\\0' y; echo; echo last words; exit 4"),
      1, 5, std::vector<std::pair<std::string, std::string>>{{"PATH", "/usr/bin:/bin"}},
      [&] { ++said; });
  REQUIRE(pump(loop, [&] { return load->burning(); }));
  CHECK(said == 1);
  // Read on while it writes the rest: a burner is never left blocked on a full pipe.
  const int pid = load->pid();
  int status = 0;
  REQUIRE(pump(loop, [&] { return ::waitpid(pid, &status, WNOHANG) == pid; }));
  load->exited(status);
  CHECK(load->ending() == "exit code 4: last words");
}

}  // namespace gpu_load_test
