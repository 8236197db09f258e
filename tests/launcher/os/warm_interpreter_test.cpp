#include "launcher/os/warm_interpreter.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

#include "launcher/launcher_harness.h"

namespace warm_interpreter_test {

using namespace pai::launcher;
using pai::testing::slurp;
using pai::testing::spit;
using pai::testing::TempDir;
using namespace std::chrono_literals;

namespace {

const char* kPython = "/usr/bin/python3";

std::vector<std::pair<std::string, std::string>> base_env(const TempDir& dir) {
  return {{"PATH", "/usr/bin:/bin"}, {"PYTHONPATH", dir.path()}};
}

// Waits until the interpreter is ready or failed.
WarmInterpreter::State settle(WarmInterpreter& warm) {
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (warm.poll() == WarmInterpreter::State::Importing &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(10ms);
  }
  return warm.state();
}

// The exit code (128+N for signal N) of our child `pid`, adopted already.
int wait_for(int pid) {
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

struct Output {
  explicit Output(const TempDir& dir, const std::string& name) : path(dir / name) {
    fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    REQUIRE(fd >= 0);
  }
  ~Output() { ::close(fd); }
  std::string text() const { return slurp(path); }
  std::string path;
  int fd = -1;
};

SpawnRequest request_for(const TempDir& dir, std::vector<std::string> argv, const Output& out) {
  SpawnRequest request;
  request.argv = std::move(argv);
  request.env = base_env(dir);
  request.env.emplace_back("GREETING", "hello");
  request.working_dir = dir.path();
  request.stdout_fd = out.fd;
  request.stderr_fd = out.fd;
  return request;
}

// The launcher adopts the ranks: so must a test that stands in for it.
void be_subreaper() { REQUIRE(prctl(PR_SET_CHILD_SUBREAPER, 1) == 0); }

}  // namespace

TEST_CASE("a warm rank runs its script as a fresh interpreter would") {
  be_subreaper();
  TempDir dir;
  spit(dir / "marker.py", "import time\nloaded_at = time.time()\n");
  spit(dir / "report.py",
       "import os, sys\n"
       "print('argv', sys.argv)\n"
       "print('name', __name__, __file__ == os.path.abspath('report.py'))\n"
       "print('env', os.environ['GREETING'], os.getenv('WARM_ONLY'))\n"
       "print('cwd', os.getcwd() == os.path.realpath('.'))\n"
       "print('path0', sys.path[0] == os.path.dirname(os.path.abspath(__file__)))\n"
       "print('warm', 'marker' in sys.modules)\n"
       "print('parent', os.getppid())\n"
       "print('group', os.getpgid(0) == os.getpid())\n"
       "print('fds', sorted(int(f) for f in os.listdir('/proc/self/fd')))\n"
       "print([l for l in open('/proc/self/status') if l.startswith('SigBlk')][0].strip())\n"
       "import pickle\n"
       "class Point: pass\n"
       "print('pickles', len(pickle.dumps(Point())) > 0)\n"
       "sys.exit(7)\n");
  auto env = base_env(dir);
  env.emplace_back("WARM_ONLY", "interpreter");
  WarmInterpreter warm(kPython, {"marker"}, env, dir.path(), 2);
  REQUIRE(settle(warm) == WarmInterpreter::State::Ready);

  Output out(dir, "out");
  std::string why;
  auto pid = warm.start(request_for(dir, {"python3", "report.py", "a b", "--flag"}, out), 5s, &why);
  INFO(why);
  REQUIRE(pid);
  CHECK(wait_for(*pid) == 7);
  const std::string text = out.text();
  INFO(text);
  CHECK(text.find("argv ['report.py', 'a b', '--flag']\n") != std::string::npos);
  CHECK(text.find("name __main__ True\n") != std::string::npos);
  CHECK(text.find("env hello None\n") != std::string::npos);  // its own env, not the warm one's
  CHECK(text.find("cwd True\n") != std::string::npos);
  CHECK(text.find("path0 True\n") != std::string::npos);
  CHECK(text.find("warm True\n") != std::string::npos);
  CHECK(text.find("parent " + std::to_string(getpid()) + "\n") != std::string::npos);
  CHECK(text.find("group True\n") != std::string::npos);
  CHECK(text.find("fds [0, 1, 2, 3]\n") != std::string::npos);  // 3: listdir's own
  CHECK(text.find("SigBlk:\t0000000000000000\n") != std::string::npos);
  CHECK(text.find("pickles True\n") != std::string::npos);

  // The interpreter stays and forks the next attempt too.
  Output again(dir, "again");
  pid = warm.start(request_for(dir, {"python3", "report.py"}, again), 5s, &why);
  REQUIRE(pid);
  CHECK(wait_for(*pid) == 7);
  CHECK(again.text().find("argv ['report.py']\n") != std::string::npos);
}

TEST_CASE("a warm rank that raises exits 1 with the traceback a fresh interpreter prints") {
  be_subreaper();
  TempDir dir;
  spit(dir / "boom.py", "def f():\n    raise ValueError('boom')\nf()\n");
  WarmInterpreter warm(kPython, {}, base_env(dir), dir.path(), 2);
  REQUIRE(settle(warm) == WarmInterpreter::State::Ready);
  Output out(dir, "out");
  std::string why;
  auto pid = warm.start(request_for(dir, {"python3", "boom.py"}, out), 5s, &why);
  REQUIRE(pid);
  CHECK(wait_for(*pid) == 1);
  const std::string text = out.text();
  INFO(text);
  CHECK(text.rfind("Traceback (most recent call last):\n  File \"" + dir.path() + "/boom.py\"",
                   0) == 0);
  CHECK(text.find("ValueError: boom\n") != std::string::npos);
  CHECK(text.find("<string>") == std::string::npos);
}

TEST_CASE("a warm rank runs a module with -m and -u, and a missing script exits 2") {
  be_subreaper();
  TempDir dir;
  ::mkdir((dir / "pkg").c_str(), 0755);
  spit(dir / "pkg/__init__.py", "");
  spit(dir / "pkg/job.py",
       "import sys\nsys.stdout.write('module %s %s\\n' % (__name__, sys.argv[1:]))\n"
       "import os\nos._exit(0)  # unflushed: only -u writes it\n");
  WarmInterpreter warm(kPython, {}, base_env(dir), dir.path(), 2);
  REQUIRE(settle(warm) == WarmInterpreter::State::Ready);
  Output out(dir, "out");
  std::string why;
  auto pid = warm.start(request_for(dir, {"python3", "-u", "-m", "pkg.job", "x"}, out), 5s, &why);
  REQUIRE(pid);
  CHECK(wait_for(*pid) == 0);
  CHECK(out.text() == "module __main__ ['x']\n");

  Output missing(dir, "missing");
  pid = warm.start(request_for(dir, {"python3", "nowhere.py"}, missing), 5s, &why);
  REQUIRE(pid);
  CHECK(wait_for(*pid) == 2);
  CHECK(missing.text().find("can't open file '" + dir.path() + "/nowhere.py'") !=
        std::string::npos);
}

TEST_CASE("a preload that fails or starts a thread fails the interpreter, naming the module") {
  TempDir dir;
  spit(dir / "threader.py",
       "import threading, time\n"
       "threading.Thread(target=time.sleep, args=(60,), daemon=True).start()\n");
  WarmInterpreter threads(kPython, {"json", "threader"}, base_env(dir), dir.path(), 2);
  WarmInterpreter missing(kPython, {"no_such_module"}, base_env(dir), dir.path(), 2);
  REQUIRE(settle(threads) == WarmInterpreter::State::Failed);
  CHECK(threads.failure() ==
        "after importing 'threader', 1 thread(s) besides the main one are running; leave it out "
        "of preload");
  REQUIRE(settle(missing) == WarmInterpreter::State::Failed);
  CHECK(missing.failure().find("importing 'no_such_module' failed: ModuleNotFoundError") == 0);

  Output out(dir, "out");
  std::string why;
  CHECK_FALSE(threads.start(request_for(dir, {"python3", "x.py"}, out), 5s, &why));
  CHECK(why == threads.failure());
}

TEST_CASE("a changed preloaded file or start-up variable makes the start cold") {
  be_subreaper();
  TempDir dir;
  spit(dir / "marker.py", "value = 1\n");
  spit(dir / "run.py", "pass\n");
  Output out(dir, "out");
  std::string why;
  {
    WarmInterpreter warm(kPython, {"marker"}, base_env(dir), dir.path(), 2);
    REQUIRE(settle(warm) == WarmInterpreter::State::Ready);
    spit(dir / "marker.py", "value = 22\n");
    CHECK_FALSE(warm.start(request_for(dir, {"python3", "run.py"}, out), 5s, &why));
    CHECK(why == dir.path() + "/marker.py changed since the warm interpreter imported it");
    CHECK(warm.state() == WarmInterpreter::State::Failed);
  }
  WarmInterpreter warm(kPython, {"marker"}, base_env(dir), dir.path(), 2);
  REQUIRE(settle(warm) == WarmInterpreter::State::Ready);
  SpawnRequest request = request_for(dir, {"python3", "run.py"}, out);
  request.env.emplace_back("PYTHONHASHSEED", "3");
  CHECK_FALSE(warm.start(request, 5s, &why));
  CHECK(why == "PYTHONHASHSEED differs from the warm interpreter's");
}

TEST_CASE("a request over 64 MiB starts cold - the interpreter serves the next one") {
  be_subreaper();
  TempDir dir;
  spit(dir / "marker.py", "value = 1\n");
  spit(dir / "run.py", "print('ran')\n");
  Output out(dir, "out");
  WarmInterpreter warm(kPython, {"marker"}, base_env(dir), dir.path(), 2);
  REQUIRE(settle(warm) == WarmInterpreter::State::Ready);
  SpawnRequest big = request_for(dir, {"python3", "run.py"}, out);
  big.env.emplace_back("BIG", std::string(std::size_t{65} << 20, 'x'));
  std::string why;
  CHECK_FALSE(warm.start(big, 5s, &why));
  CHECK(why == "its command and environment exceed the warm interpreter's 64 MiB");
  CHECK(warm.state() == WarmInterpreter::State::Ready);
  const auto pid = warm.start(request_for(dir, {"python3", "run.py"}, out), 5s, &why);
  REQUIRE(pid.has_value());
  CHECK(wait_for(*pid) == 0);
  CHECK(out.text() == "ran\n");
}

TEST_CASE("a dead, stopped or busy interpreter makes the start cold") {
  be_subreaper();
  TempDir dir;
  spit(dir / "run.py", "pass\n");
  spit(dir / "slow.py", "import time\ntime.sleep(30)\n");
  Output out(dir, "out");
  std::string why;

  WarmInterpreter killed(kPython, {}, base_env(dir), dir.path(), 2);
  REQUIRE(settle(killed) == WarmInterpreter::State::Ready);
  ::kill(killed.pid(), SIGKILL);
  CHECK(wait_for(killed.pid()) == 128 + SIGKILL);
  killed.exited("signal 9 (SIGKILL)");
  CHECK_FALSE(killed.start(request_for(dir, {"python3", "run.py"}, out), 5s, &why));
  CHECK(why == "its warm interpreter exited (signal 9 (SIGKILL))");

  WarmInterpreter stopped(kPython, {}, base_env(dir), dir.path(), 2);
  REQUIRE(settle(stopped) == WarmInterpreter::State::Ready);
  const int stopped_pid = stopped.pid();
  ::kill(stopped_pid, SIGSTOP);
  CHECK_FALSE(stopped.start(request_for(dir, {"python3", "run.py"}, out), 300ms, &why));
  CHECK(why == "its warm interpreter did not answer within 0.3 s");
  CHECK(wait_for(stopped_pid) == 128 + SIGKILL);  // killed for it
  stopped.exited("signal 9 (SIGKILL)");

  WarmInterpreter importing(kPython, {"slow"}, base_env(dir), dir.path(), 2);
  CHECK_FALSE(importing.start(request_for(dir, {"python3", "run.py"}, out), 5s, &why));
  CHECK(why.rfind("its warm interpreter is still importing (for ", 0) == 0);

  WarmInterpreter shell(kPython, {}, base_env(dir), dir.path(), 2);
  REQUIRE(settle(shell) == WarmInterpreter::State::Ready);
  CHECK_FALSE(shell.start(request_for(dir, {"sh", "-c", "true"}, out), 5s, &why));
  CHECK(why.find("does not start with a Python interpreter") != std::string::npos);
  CHECK(shell.state() == WarmInterpreter::State::Ready);  // it can still serve a Python rank
}

TEST_CASE("a warm rank and its interpreter die with the launcher") {
  TempDir dir;
  spit(dir / "wait.py", "import time\ntime.sleep(60)\n");
  int pids[2];
  REQUIRE(::pipe(pids) == 0);
  const pid_t launcher = ::fork();
  REQUIRE(launcher >= 0);
  if (launcher == 0) {
    // A launcher of its own: starts one warm rank, says its pids, and dies.
    ::close(pids[0]);
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    WarmInterpreter warm(kPython, {}, base_env(dir), dir.path(), 2);
    if (settle(warm) != WarmInterpreter::State::Ready) ::_exit(1);
    Output out(dir, "out");
    std::string why;
    auto pid = warm.start(request_for(dir, {"python3", "wait.py"}, out), 5s, &why);
    if (!pid) ::_exit(2);
    const int both[2] = {*pid, warm.pid()};
    if (::write(pids[1], both, sizeof both) != sizeof both) ::_exit(3);
    ::_exit(0);
  }
  ::close(pids[1]);
  int both[2] = {0, 0};
  const ssize_t got = ::read(pids[0], both, sizeof both);
  ::close(pids[0]);
  CHECK(wait_for(launcher) == 0);
  REQUIRE(got == sizeof both);
  for (int pid : both) {
    INFO("pid " << pid);
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    auto alive = [pid] {
      const std::string stat = slurp("/proc/" + std::to_string(pid) + "/stat");
      // Gone, or a zombie waiting for whoever inherited it.
      return !stat.empty() && stat.find(") Z ") == std::string::npos;
    };
    while (alive() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(10ms);
    }
    CHECK_FALSE(alive());
  }
}

// A stand-in for Python that talks nonsense on the channel (fd 3): whatever it says, the
// launcher fails the interpreter with a reason, and its ranks start cold.
TEST_CASE("an interpreter that talks nonsense is failed, never believed") {
  be_subreaper();
  TempDir dir;
  auto fake = [&](const std::string& name, const std::string& body) {
    const std::string path = dir / name;
    spit(path, "#!/bin/sh\n" + body);
    ::chmod(path.c_str(), 0755);
    return path;
  };
  Output out(dir, "out");
  std::string why;

  WarmInterpreter chatty(fake("chatty", "echo hello >&3; sleep 30\n"), {}, base_env(dir),
                         dir.path(), 2);
  REQUIRE(settle(chatty) == WarmInterpreter::State::Failed);
  CHECK(chatty.failure() == "its warm interpreter said something unexpected: hello");
  CHECK_FALSE(chatty.preload_failed());

  WarmInterpreter flood(fake("flood", "head -c 200000 /dev/zero | tr '\\0' x >&3 2>/dev/null; sleep 30\n"),
                        {}, base_env(dir), dir.path(), 2);
  REQUIRE(settle(flood) == WarmInterpreter::State::Failed);
  CHECK(flood.failure() == "its warm interpreter sent an unreadable answer");

  WarmInterpreter silent(fake("silent", "exit 0\n"), {}, base_env(dir), dir.path(), 2);
  REQUIRE(settle(silent) == WarmInterpreter::State::Failed);
  CHECK(silent.failure() == "its warm interpreter exited while importing");

  // Ready, then a pid that is no number: the rank starts cold.
  WarmInterpreter liar(fake("liar", "echo ready >&3; head -c 4 <&3 >/dev/null; "
                                    "echo 'pid 12abc' >&3; sleep 30\n"),
                       {}, base_env(dir), dir.path(), 2);
  REQUIRE(settle(liar) == WarmInterpreter::State::Ready);
  CHECK_FALSE(liar.start(request_for(dir, {"python3", "x.py"}, out), 5s, &why));
  CHECK(why == "its warm interpreter said something unexpected: pid 12abc");
  CHECK(liar.state() == WarmInterpreter::State::Failed);
}

// What an interpreter's imports started is in its process group: failed, it goes with the
// interpreter instead of living on with the log descriptors it inherited.
TEST_CASE("a failed interpreter takes what its imports started along") {
  be_subreaper();
  TempDir dir;
  const std::string script = dir / "spawner";
  spit(script,
       "#!/bin/sh\nsleep 30 &\necho $! > \"" + (dir / "helper") + "\"\necho nonsense >&3\nwait\n");
  ::chmod(script.c_str(), 0755);
  WarmInterpreter warm(script, {}, base_env(dir), dir.path(), 2);
  REQUIRE(settle(warm) == WarmInterpreter::State::Failed);
  const int helper = std::stoi(slurp(dir / "helper"));
  // Adopted by this subreaper once its shell is gone (until then waitpid says ECHILD):
  // reaped here when it was killed too.
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  int status = 0;
  pid_t reaped = 0;
  while (reaped != helper && std::chrono::steady_clock::now() < deadline) {
    reaped = ::waitpid(helper, &status, WNOHANG);
    if (reaped != helper) std::this_thread::sleep_for(20ms);
  }
  REQUIRE(reaped == helper);
  CHECK(WIFSIGNALED(status));
  if (WIFSIGNALED(status)) CHECK(WTERMSIG(status) == SIGKILL);
}

}  // namespace warm_interpreter_test
