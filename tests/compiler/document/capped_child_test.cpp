// run_capped: work in a child, its result through a pipe, the memory and time caps enforced.
#include "compiler/document/capped_child.h"

#include <signal.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace capped_child_test {

using pai::ChildCaps;
using pai::ChildOutcome;
using pai::run_capped;

namespace {

ChildCaps caps(std::int64_t memory, std::chrono::milliseconds timeout) {
  ChildCaps c;
  c.max_memory_bytes = memory;
  c.timeout = timeout;
  return c;
}

}  // namespace

TEST_CASE("run_capped returns what the work returned - bigger than a pipe holds") {
  std::string big(8 << 20, '\0');
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 13);
  const auto result = run_capped(caps(0, std::chrono::seconds(30)), [&] { return big; });
  CHECK(result.outcome == ChildOutcome::Done);
  CHECK(result.output == big);
  const auto empty = run_capped(caps(0, std::chrono::seconds(30)), [] { return std::string(); });
  CHECK(empty.outcome == ChildOutcome::Done);
  CHECK(empty.output.empty());
}

TEST_CASE("run_capped reports what the work threw") {
  const auto result = run_capped(caps(0, std::chrono::seconds(30)),
                                 []() -> std::string { throw std::runtime_error("no luck"); });
  CHECK(result.outcome == ChildOutcome::Failed);
  CHECK(result.output == "no luck");
}

TEST_CASE("run_capped reports a child killed by a signal") {
  const auto result = run_capped(caps(0, std::chrono::seconds(30)), []() -> std::string {
    ::raise(SIGKILL);
    return "unreachable";
  });
  CHECK(result.outcome == ChildOutcome::Failed);
  CHECK(result.output == "it was killed by signal 9 (Killed)");
}

TEST_CASE("run_capped kills work that runs past its time cap") {
  const auto start = std::chrono::steady_clock::now();
  const auto result = run_capped(caps(0, std::chrono::milliseconds(300)), []() -> std::string {
    volatile unsigned long spin = 0;
    for (;;) spin = spin + 1;
  });
  const auto took = std::chrono::steady_clock::now() - start;
  CHECK(result.outcome == ChildOutcome::TimedOut);
  CHECK(result.output.empty());
  CHECK(took >= std::chrono::milliseconds(300));
  CHECK(took < std::chrono::seconds(10));
}

TEST_CASE("run_capped ends work that allocates past its memory cap") {
#ifdef PAI_SANITIZE
  WARN("skipped: AddressSanitizer builds apply no memory cap (RLIMIT_AS), only the time cap");
  return;
#else
  const auto result = run_capped(caps(std::int64_t{256} << 20, std::chrono::seconds(60)), [] {
    std::vector<std::unique_ptr<char[]> > blocks;
    for (int i = 0; i < 1024; ++i) blocks.emplace_back(new char[1 << 20]);
    return "allocated " + std::to_string(blocks.size()) + " MiB";
  });
  CHECK(result.outcome == ChildOutcome::OutOfMemory);
  CHECK(result.output.empty());
  // Without the cap, the same kind of work gets past 256 MiB (untouched memory: cheap).
  const auto uncapped = run_capped(caps(0, std::chrono::seconds(60)), [] {
    std::vector<std::unique_ptr<char[]> > blocks;
    for (int i = 0; i < 384; ++i) blocks.emplace_back(new char[1 << 20]);
    return "allocated " + std::to_string(blocks.size()) + " MiB";
  });
  CHECK(uncapped.outcome == ChildOutcome::Done);
  CHECK(uncapped.output == "allocated 384 MiB");
#endif
}

}  // namespace capped_child_test
