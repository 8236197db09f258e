#include "launcher/policy/failure_classifier.h"

#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <string>

namespace failure_classifier_test {

using pai::RestartPolicy;
using pai::launcher::classify_failure;
using pai::launcher::classify_hang;
using pai::launcher::describe;
using pai::launcher::ExitStatus;

namespace {
const std::vector<std::string> kNoExtra;
}

TEST_CASE("ExitStatus decodes wait statuses and describes them") {
  ExitStatus exited = ExitStatus::from_wait_status(3 << 8);
  CHECK(exited.code == 3);
  CHECK(exited.signal == 0);
  CHECK(describe(exited) == "exit code 3");
  CHECK(exited.shell_code() == 3);

  ExitStatus killed = ExitStatus::from_wait_status(SIGKILL);
  CHECK(killed.signal == SIGKILL);
  CHECK(describe(killed) == "signal 9 (SIGKILL)");
  CHECK(killed.shell_code() == 137);
  CHECK_FALSE(killed.success());
  CHECK(ExitStatus::from_wait_status(0).success());
  CHECK(describe(ExitStatus{0, 40}) == "signal 40");
}

TEST_CASE("a built-in retryable pattern in the log makes a failure retryable") {
  std::string log = "step 10\n[rank1] NCCL error: unhandled system error\nTraceback\n";
  auto c = classify_failure(ExitStatus{1, 0}, log, RestartPolicy::ExitCodeAndErrorMsg, kNoExtra);
  CHECK(c.retryable);
  CHECK(c.matched_pattern == "NCCL error");
  CHECK(c.matched_line == "[rank1] NCCL error: unhandled system error");
  CHECK(c.signature == "pattern:NCCL error");
  CHECK(c.reason == "exit code 1: retryable (\"NCCL error\" in the log)");
}

TEST_CASE("gloo's peer-death error is retryable: the rank died of another's failure") {
  // A rank whose peer died in a collective fails with this; classified as not retryable, it
  // would fail the job before the peer's own (retryable) failure is even reported.
  const std::string log =
      "RuntimeError: [./gloo/transport/tcp/pair.cc:598] Connection closed by peer "
      "[127.0.0.1]:4530\n";
  auto c = classify_failure(ExitStatus{1, 0}, log, RestartPolicy::ExitCodeAndErrorMsg, kNoExtra);
  CHECK(c.retryable);
  CHECK(c.matched_pattern == "Connection closed by peer");
}

TEST_CASE("patterns match case-insensitively and the most recent line wins") {
  std::string log = "Connection reset by peer\nsocket: ADDRESS ALREADY IN USE\r\n";
  auto c = classify_failure(ExitStatus{1, 0}, log, RestartPolicy::ExitCodeAndErrorMsg, kNoExtra);
  CHECK(c.retryable);
  CHECK(c.matched_pattern == "Address already in use");
  CHECK(c.matched_line == "socket: ADDRESS ALREADY IN USE");
}

TEST_CASE("the job's retryableErrors are added to the built-in list") {
  std::string log = "error: flaky storage backend\n";
  auto plain =
      classify_failure(ExitStatus{2, 0}, log, RestartPolicy::ExitCodeAndErrorMsg, kNoExtra);
  CHECK_FALSE(plain.retryable);
  CHECK(plain.reason == "exit code 2: not retryable (no retryable error in the log)");
  auto extra = classify_failure(ExitStatus{2, 0}, log, RestartPolicy::ExitCodeAndErrorMsg,
                                {"flaky storage"});
  CHECK(extra.retryable);
  CHECK(extra.matched_pattern == "flaky storage");
}

TEST_CASE("CUDA illegal memory access and CUDA OOM are not retryable even next to NCCL errors") {
  for (std::string fatal : {"RuntimeError: CUDA error: an illegal memory access was encountered",
                            "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate"}) {
    std::string log = "NCCL error: remote process exited\n" + fatal + "\n";
    auto c = classify_failure(ExitStatus{1, 0}, log, RestartPolicy::ExitCodeAndErrorMsg, kNoExtra);
    CHECK_FALSE(c.retryable);
    CHECK(c.matched_line == fatal);
  }
}

TEST_CASE("only the last 64 KiB of the log are scanned") {
  std::string log = "NCCL error early\n" + std::string(pai::launcher::kLogTailBytes, 'x') + "\n";
  auto c = classify_failure(ExitStatus{1, 0}, log, RestartPolicy::ExitCodeAndErrorMsg, kNoExtra);
  CHECK_FALSE(c.retryable);
  CHECK(c.matched_pattern.empty());
}

TEST_CASE("SIGKILL and SIGTERM from outside are retryable - also as a shell's 128+N") {
  for (auto policy : {RestartPolicy::ExitCode, RestartPolicy::ExitCodeAndErrorMsg}) {
    CHECK(classify_failure(ExitStatus{0, SIGKILL}, "", policy, kNoExtra).retryable);
    CHECK(classify_failure(ExitStatus{0, SIGTERM}, "", policy, kNoExtra).retryable);
    CHECK(classify_failure(ExitStatus{137, 0}, "", policy, kNoExtra).retryable);
    CHECK(classify_failure(ExitStatus{143, 0}, "", policy, kNoExtra).retryable);
  }
  auto c = classify_failure(ExitStatus{0, SIGKILL}, "", RestartPolicy::ExitCode, kNoExtra);
  CHECK(c.reason == "signal 9 (SIGKILL): retryable (killed from outside)");
  CHECK(c.signature == "signal:9");
}

TEST_CASE("SIGSEGV and SIGABRT follow the policy") {
  ExitStatus segv{0, SIGSEGV};
  CHECK_FALSE(classify_failure(segv, "", RestartPolicy::ExitCode, kNoExtra).retryable);
  CHECK_FALSE(classify_failure(segv, "", RestartPolicy::ExitCodeAndErrorMsg, kNoExtra).retryable);
  CHECK(classify_failure(segv, "", RestartPolicy::OnFailure, kNoExtra).retryable);
  CHECK_FALSE(classify_failure(segv, "", RestartPolicy::Never, kNoExtra).retryable);
  ExitStatus abrt{0, SIGABRT};
  auto nccl_abort = classify_failure(abrt, "NCCL communicator was aborted on rank 3\n",
                                     RestartPolicy::ExitCodeAndErrorMsg, kNoExtra);
  CHECK(nccl_abort.retryable);
  CHECK_FALSE(
      classify_failure(abrt, "NCCL communicator was aborted\n", RestartPolicy::ExitCode, kNoExtra)
          .retryable);
}

TEST_CASE("policy never retries nothing - onFailure everything but exec failures") {
  auto never =
      classify_failure(ExitStatus{0, SIGKILL}, "NCCL error\n", RestartPolicy::Never, kNoExtra);
  CHECK_FALSE(never.retryable);
  CHECK(never.reason == "signal 9 (SIGKILL): not retryable (policy never)");
  CHECK(classify_failure(ExitStatus{1, 0}, "", RestartPolicy::OnFailure, kNoExtra).retryable);
  auto missing = classify_failure(ExitStatus{127, 0}, "", RestartPolicy::OnFailure, kNoExtra);
  CHECK_FALSE(missing.retryable);
  CHECK(missing.reason == "exit code 127 (command not found): not retryable");
  CHECK_FALSE(
      classify_failure(ExitStatus{126, 0}, "", RestartPolicy::OnFailure, kNoExtra).retryable);
}

TEST_CASE("hangs are retryable unless the policy is never") {
  auto hang = classify_hang(RestartPolicy::ExitCode, 2, false);
  CHECK(hang.retryable);
  CHECK(hang.signature == "hang");
  CHECK(hang.reason == "hang: no output and no progress for 2s: retryable");
  auto exiting = classify_hang(RestartPolicy::Never, 5, true);
  CHECK_FALSE(exiting.retryable);
  CHECK(exiting.reason ==
        "hang: ranks still running 5s after the first one exited: not retryable (policy never)");
}

TEST_CASE("an OOM kill is named and not retried") {
  const auto c = classify_oom_kill(ExitStatus{0, SIGKILL});
  CHECK(c.reason == "signal 9 (SIGKILL): killed by the OOM killer: not retryable");
  CHECK_FALSE(c.retryable);
  CHECK(c.signature == "oom");
}

}  // namespace failure_classifier_test
