#include "launcher/supervisor/failure_summary.h"

#include <catch2/catch.hpp>

namespace failure_summary_test {

using namespace pai::launcher;

TEST_CASE("the summary names the rank - the classification - the matched line and the log") {
  FailureReport r;
  r.job = "llama";
  r.reason =
      "worker-1 local rank 2: exit code 1: not retryable (\"CUDA out of memory\" in the log)";
  r.instance = "worker-1";
  r.rank = 10;
  r.local_rank = 2;
  r.status = "exit code 1";
  r.classification.reason = "exit code 1: not retryable (\"CUDA out of memory\" in the log)";
  r.classification.matched_line = "torch.cuda.OutOfMemoryError: CUDA out of memory.";
  r.last_lines = "step 3\ntorch.cuda.OutOfMemoryError: CUDA out of memory.";
  r.log_path = "/logs/worker-1/rank-10.attempt-0.log";
  CHECK(format_failure_summary(r) ==
        "pai-launch: job 'llama' failed: " + r.reason +
            "\n"
            "pai-launch:   root cause: rank 10 (worker-1 local rank 2), exit code 1\n"
            "pai-launch:   classification: exit code 1: not retryable (\"CUDA out of memory\" in "
            "the log)\n"
            "pai-launch:   matched line: torch.cuda.OutOfMemoryError: CUDA out of memory.\n"
            "pai-launch:   last lines of its log:\n"
            "pai-launch:   | step 3\n"
            "pai-launch:   | torch.cuda.OutOfMemoryError: CUDA out of memory.\n"
            "pai-launch:   full log: /logs/worker-1/rank-10.attempt-0.log\n");
}

TEST_CASE("an error file's exception and traceback stand for the end of the log") {
  FailureReport r;
  r.job = "ddp";
  r.reason = "default-0 local rank 1: exit code 1";
  r.instance = "default-0";
  r.rank = 1;
  r.local_rank = 1;
  r.status = "exit code 1";
  r.last_lines = "noise\nmore noise";
  r.log_path = "/logs/default-0/rank-1.attempt-0.log";
  r.error_message = "ValueError: bad batch 7";
  std::string traceback = "Traceback (most recent call last):\n";
  for (int i = 0; i < 20; ++i) traceback += "  frame " + std::to_string(i) + "\n";
  r.error_traceback = traceback + "ValueError: bad batch 7\n";
  const std::string summary = format_failure_summary(r);
  INFO(summary);
  CHECK(summary.find("pai-launch:   error: ValueError: bad batch 7\n") != std::string::npos);
  CHECK(summary.find("noise") == std::string::npos);
  // The last kSummaryLogLines lines of the traceback.
  CHECK(summary.find("|   frame 5\n") == std::string::npos);
  CHECK(summary.find("pai-launch:   traceback from its error file:\n"
                     "pai-launch:   |   frame 6\n") != std::string::npos);
  CHECK(summary.find("pai-launch:   |   frame 19\n"
                     "pai-launch:   | ValueError: bad batch 7\n"
                     "pai-launch:   full log: /logs/default-0/rank-1.attempt-0.log\n") !=
        std::string::npos);
}

TEST_CASE("a stop by signal has no root-cause rank") {
  FailureReport r;
  r.job = "j";
  r.reason = "stopped: pai-launch received SIGTERM";
  CHECK(format_failure_summary(r) ==
        "pai-launch: job 'j' failed: stopped: pai-launch received SIGTERM\n");
}

TEST_CASE("an empty log says so") {
  FailureReport r;
  r.job = "j";
  r.reason = "hang";
  r.instance = "worker-0";
  r.log_path = "/l";
  CHECK(format_failure_summary(r) ==
        "pai-launch: job 'j' failed: hang\npai-launch:   root cause: worker-0\n"
        "pai-launch:   its log is empty\npai-launch:   full log: /l\n");
}

TEST_CASE("a hang's summary names the culprit of the stacks after the root cause") {
  FailureReport r;
  r.job = "j";
  r.reason =
      "worker-0: hang: no output and no progress for 60s: retryable, but maxRestarts (0) "
      "is exhausted";
  r.instance = "worker-0";
  r.culprit =
      "rank 1 is outside any collective (rank 1 at <module> (t.py:8)) while 1 rank "
      "waits in one (rank 0 at all_reduce (t.py:3)); stacks in /l/forensics/attempt-0\x1b[2J";
  CHECK(format_failure_summary(r) ==
        "pai-launch: job 'j' failed: " + r.reason +
            "\n"
            "pai-launch:   root cause: worker-0\n"
            "pai-launch:   culprit from the stacks: rank 1 is outside any collective (rank 1 at "
            "<module> (t.py:8)) while 1 rank waits in one (rank 0 at all_reduce (t.py:3)); "
            "stacks in /l/forensics/attempt-0\\x1b[2J\n");
}

}  // namespace failure_summary_test
