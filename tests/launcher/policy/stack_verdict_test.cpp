#include "launcher/policy/stack_verdict.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>

namespace stack_verdict_test {

using namespace pai::launcher;

namespace {

// A recorded stack of tests/fixtures/forensics. The native ones come from a 2-rank gloo DDP
// job (Debian's python3-torch) whose rank 1 slept outside collectives at step 3: rank 0 (pid
// 19399) waited in DDP's all-reduce, rank 1 (pid 19400) in time.sleep.
std::string fixture(const std::string& name) {
  std::ifstream in(PAI_SOURCE_DIR "/tests/fixtures/forensics/" + name, std::ios::binary);
  REQUIRE(in);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

constexpr int kWaitingPid = 19399;
constexpr int kSleepingPid = 19400;

}  // namespace

TEST_CASE("faulthandler stacks: a torch.distributed barrier is a collective - a sleep is not") {
  CHECK(judge_python_stack(fixture("python_barrier.txt")) ==
        StackVerdict{StackPlace::Collective,
                     "barrier (/usr/lib/python3/dist-packages/torch/distributed/"
                     "distributed_c10d.py:3145)"});
  CHECK(judge_python_stack(fixture("python_sleep.txt")) ==
        StackVerdict{StackPlace::Outside, "<module> (/tmp/fx/job.py:8)"});
  // DDP's gradient all-reduce is waited for under backward: Python alone cannot tell.
  CHECK(judge_python_stack(fixture("python_ddp_backward.txt")) ==
        StackVerdict{StackPlace::Outside,
                     "backward (/usr/lib/python3/dist-packages/torch/autograd/__init__.py:197)"});
}

TEST_CASE("a wait outside torch.distributed is not a collective - the current thread is named") {
  CHECK(judge_python_stack(fixture("python_thread_wait.txt")) ==
        StackVerdict{StackPlace::Outside, "wait (/usr/lib/python3.11/threading.py:320)"});
  // The same name in torch.distributed's files is one.
  CHECK(judge_python_stack("  File \"/x/torch/distributed/distributed_c10d.py\", line 9 in wait\n")
            .place == StackPlace::Collective);
}

TEST_CASE("py-spy dumps are read too - MainThread first") {
  CHECK(judge_python_stack(fixture("py_spy_all_reduce.txt")) ==
        StackVerdict{StackPlace::Collective,
                     "all_reduce (torch/distributed/distributed_c10d.py:1536)"});
  CHECK(judge_python_stack(fixture("py_spy_sleep.txt")) ==
        StackVerdict{StackPlace::Outside, "load_batch (train.py:31)"});
}

TEST_CASE("a rank's output around the dump is ignored - no frame is unknown") {
  CHECK(judge_python_stack("step 10 loss 0.3\nall_reduce (not a frame)\n").place ==
        StackPlace::Unknown);
  CHECK(judge_python_stack("") == StackVerdict{});
  const std::string mixed = "rank 1 step 9\n" + fixture("python_sleep.txt") + "rank 1 step 10";
  CHECK(judge_python_stack(mixed).place == StackPlace::Outside);
}

TEST_CASE("eu-stack: only the main thread counts - gloo's idle threads do not") {
  CHECK(judge_native_stack(fixture("eu_stack_ddp_waiting.txt"), kWaitingPid) ==
        StackVerdict{StackPlace::Collective, "c10d::Reducer::finalize_backward()"});
  // Rank 1 has gloo threads in gloo::transport::tcp::Loop::run too.
  CHECK(judge_native_stack(fixture("eu_stack_sleep.txt"), kSleepingPid) ==
        StackVerdict{StackPlace::Outside, "clock_nanosleep@GLIBC_2.2.5"});
  // Judged as another process's main thread, a gloo worker is found in rank 0's stacks.
  CHECK(judge_native_stack(fixture("eu_stack_ddp_waiting.txt"), 19436).frame ==
        "gloo::transport::tcp::UnboundBuffer::waitRecv(int*, std::chrono::duration<long, "
        "std::ratio<1l, 1000l> >)");
}

TEST_CASE("gdb: the main thread by its LWP - its symbols without arguments") {
  CHECK(judge_native_stack(fixture("gdb_ddp_waiting.txt"), kWaitingPid) ==
        StackVerdict{StackPlace::Collective, "c10d::Reducer::finalize_backward()"});
  // A pid gdb does not show (another pid namespace): thread 1 is the main thread.
  CHECK(judge_native_stack(fixture("gdb_ddp_waiting.txt"), 1).place == StackPlace::Collective);
  const std::string args_only =
      "Thread 1 (Thread 0x7f (LWP 50) \"python3\"):\n"
      "#0  0x00007f in clock_nanosleep (req=0x1 <gloo_like>) from /lib/libc.so.6\n";
  CHECK(judge_native_stack(args_only, 50) == StackVerdict{StackPlace::Outside, "clock_nanosleep"});
}

TEST_CASE("NCCL - MPI and mangled names are collectives - a failed tool is unknown") {
  CHECK(judge_native_stack("TID 7:\n#0  0x1 ncclAllReduce\n", 7).place == StackPlace::Collective);
  CHECK(judge_native_stack("TID 7:\n#0  0x1 PMPI_Allreduce\n", 7).place == StackPlace::Collective);
  CHECK(judge_native_stack("TID 7:\n#0  0x1 _ZN4c10d7Reducer17finalize_backwardEv\n", 7).place ==
        StackVerdict{StackPlace::Collective, ""}.place);
  CHECK(judge_native_stack("ptrace: Operation not permitted.\n", 7) == StackVerdict{});
  CHECK(judge_native_stack("eu-stack: dwfl_linux_proc_attach pid 7: No such process\n", 7) ==
        StackVerdict{});
}

TEST_CASE("a rank's verdict: collective from either - else what was read") {
  const StackVerdict py_out{StackPlace::Outside, "backward (x.py:1)"};
  const StackVerdict native_in{StackPlace::Collective, "c10d::Reducer::finalize_backward()"};
  CHECK(combine_verdicts(py_out, native_in) == native_in);
  CHECK(combine_verdicts(native_in, py_out) == native_in);
  CHECK(combine_verdicts(py_out, StackVerdict{}) == py_out);
  CHECK(combine_verdicts(StackVerdict{}, StackVerdict{StackPlace::Outside, "f"}).frame == "f");
  CHECK(combine_verdicts({}, {}) == StackVerdict{});
}

TEST_CASE("the culprits are the ranks outside while others wait") {
  const StackVerdict in{StackPlace::Collective, "all_reduce"};
  const StackVerdict out{StackPlace::Outside, "sleep"};
  CHECK(stack_culprits({{0, in}, {3, out}, {1, in}, {2, {}}}) == std::vector<int>{3});
  CHECK(stack_culprits({{5, out}, {0, in}, {2, out}}) == std::vector<int>{2, 5});
  CHECK(stack_culprits({{0, out}, {1, out}}).empty());
  CHECK(stack_culprits({{0, in}, {1, in}}).empty());
  CHECK(stack_culprits({{0, {}}, {1, out}}).empty());
  CHECK(stack_culprits({}).empty());
}

TEST_CASE("the evidence names the culprits - the waiting ranks and their frames") {
  const StackVerdict in{StackPlace::Collective, "c10d::Reducer::finalize_backward()"};
  const StackVerdict out{StackPlace::Outside, "<module> (train.py:8)"};
  const std::vector<RankStackVerdict> one{{2, in}, {1, out}, {0, in}, {3, {}}};
  CHECK(stack_evidence(one) ==
        "rank 1 is outside any collective (rank 1 at <module> (train.py:8)) while 2 ranks wait "
        "in one (rank 0 at c10d::Reducer::finalize_backward())");
  CHECK(ranks_at(one, StackPlace::Collective) == "0,2");
  CHECK(ranks_at(one, StackPlace::Outside) == "1");
  CHECK(ranks_at(one, StackPlace::Unknown) == "3");
  CHECK(stack_evidence({{4, out}, {0, {StackPlace::Collective, ""}}, {2, out}}) ==
        "ranks 2, 4 are outside any collective (rank 2 at <module> (train.py:8)) while 1 rank "
        "waits in one (rank 0)");
  CHECK(stack_evidence({{0, in}, {1, in}}).empty());
}

TEST_CASE("places read back from their names") {
  for (StackPlace p : {StackPlace::Unknown, StackPlace::Collective, StackPlace::Outside}) {
    CHECK(pai::enum_from_string<StackPlace>(pai::to_string(p)) == p);
  }
  CHECK(std::string(pai::to_string(StackPlace::Outside)) == "outside");
  CHECK_FALSE(pai::enum_from_string<StackPlace>("inside"));
}

}  // namespace stack_verdict_test
