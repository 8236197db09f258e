#include "launcher/supervisor/injected_fault.h"

#include <catch2/catch.hpp>
#include <csignal>
#include <stdexcept>
#include <string>
#include <vector>

namespace injected_fault_test {

using pai::DrillFault;
using pai::launcher::InjectedFault;
using Clock = InjectedFault::Clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

// The signals a fault sent, as "pid:SIG".
struct Sent {
  std::vector<std::string> signals;
  InjectedFault::Send send() {
    return [this](int pid, int sig) {
      const char* name = sig == SIGKILL   ? "KILL"
                         : sig == SIGSTOP ? "STOP"
                         : sig == SIGCONT ? "CONT"
                                          : "?";
      signals.push_back(std::to_string(pid) + ":" + name);
    };
  }
};

TEST_CASE("rank-kill sends SIGKILL once and is over at once") {
  Sent sent;
  const Clock::time_point t0{};
  InjectedFault fault(DrillFault::RankKill, 42, 0, t0, sent.send());
  CHECK(sent.signals == std::vector<std::string>{"42:KILL"});
  CHECK(fault.over());
  CHECK(fault.next_deadline() == std::nullopt);
  CHECK_FALSE(fault.on_deadline(t0 + seconds(100)));
  fault.revert();
  CHECK(sent.signals.size() == 1);  // nothing to undo
}

TEST_CASE("rank-hang stops the process for its seconds, then continues it") {
  Sent sent;
  const Clock::time_point t0{};
  InjectedFault fault(DrillFault::RankHang, 7, 30, t0, sent.send());
  CHECK(sent.signals == std::vector<std::string>{"7:STOP"});
  CHECK_FALSE(fault.over());
  REQUIRE(fault.next_deadline() == t0 + seconds(30));
  CHECK_FALSE(fault.on_deadline(t0 + seconds(29)));  // early wake-ups do nothing
  CHECK(sent.signals.size() == 1);
  CHECK(fault.on_deadline(t0 + seconds(30)));
  CHECK(sent.signals == std::vector<std::string>{"7:STOP", "7:CONT"});
  CHECK(fault.over());
  CHECK(fault.next_deadline() == std::nullopt);
}

TEST_CASE("slow-rank stops the process 75 ms of every 100 ms until its seconds pass") {
  Sent sent;
  const Clock::time_point t0{};
  InjectedFault fault(DrillFault::SlowRank, 9, 1, t0, sent.send());
  auto t = t0;
  int stops = 1;
  int conts = 0;
  milliseconds stopped{0};
  while (!fault.over()) {
    const auto next = fault.next_deadline();
    REQUIRE(next);
    REQUIRE(*next > t);
    if (sent.signals.back() == "9:STOP")
      stopped += std::chrono::duration_cast<milliseconds>(*next - t);
    t = *next;
    const std::size_t before = sent.signals.size();
    fault.on_deadline(t);
    if (sent.signals.size() == before) continue;
    stops += sent.signals.back() == "9:STOP";
    conts += sent.signals.back() == "9:CONT";
  }
  CHECK(t == t0 + seconds(1));
  CHECK(sent.signals.back() == "9:CONT");  // never left stopped
  CHECK(stops == 10);
  CHECK(conts == 10);
  CHECK(stopped == milliseconds(750));  // a quarter of the CPU left
}

TEST_CASE("a fault reverted early continues a stopped process once, and its destructor after") {
  Sent sent;
  const Clock::time_point t0{};
  {
    InjectedFault fault(DrillFault::RankHang, 5, 60, t0, sent.send());
    fault.revert();
    CHECK(fault.over());
    fault.revert();
  }
  CHECK(sent.signals == std::vector<std::string>{"5:STOP", "5:CONT"});
  {
    InjectedFault fault(DrillFault::RankHang, 6, 60, t0, sent.send());
  }  // destroyed while going on: continued
  CHECK(sent.signals.back() == "6:CONT");
}

TEST_CASE("a fault whose process is gone ends without a signal - its pid may be another's") {
  Sent sent;
  const Clock::time_point t0{};
  {
    InjectedFault fault(DrillFault::RankHang, 8, 60, t0, sent.send());
    fault.forget();
    CHECK(fault.over());
    CHECK_FALSE(fault.on_deadline(t0 + seconds(60)));
  }
  CHECK(sent.signals == std::vector<std::string>{"8:STOP"});
}

TEST_CASE("a slow-rank reverted while its process runs sends nothing more") {
  Sent sent;
  const Clock::time_point t0{};
  InjectedFault fault(DrillFault::SlowRank, 3, 10, t0, sent.send());
  fault.on_deadline(t0 + milliseconds(75));  // continued
  REQUIRE(sent.signals.back() == "3:CONT");
  fault.revert();
  CHECK(sent.signals.size() == 2);
  CHECK(fault.over());
}

// The deadlines a collective-hang gave, as seconds after t0 (-1: cleared).
struct Held {
  Clock::time_point t0{};
  std::vector<long long> until;
  InjectedFault::Sustain hold() {
    return [this](Clock::time_point t) {
      until.push_back(
          t == Clock::time_point{} ? -1 : std::chrono::duration_cast<seconds>(t - t0).count());
    };
  }
};

TEST_CASE("collective-hang gives the rank its deadline, sends no signal and clears it when over") {
  Sent sent;
  Held held;
  held.t0 = Clock::time_point{} + seconds(1000);
  InjectedFault fault(DrillFault::CollectiveHang, 11, 20, held.t0, sent.send(), held.hold());
  CHECK(held.until == std::vector<long long>{20});
  CHECK_FALSE(fault.over());
  REQUIRE(fault.next_deadline() == held.t0 + seconds(20));
  CHECK_FALSE(fault.on_deadline(held.t0 + seconds(19)));
  CHECK(fault.on_deadline(held.t0 + seconds(20)));
  CHECK(held.until == std::vector<long long>{20, -1});
  CHECK(fault.over());
  fault.revert();
  CHECK(held.until.size() == 2);  // cleared once
  CHECK(sent.signals.empty());
}

TEST_CASE("collective-hang reverted early - destroyed or forgotten clears its deadline once") {
  Held held;
  held.t0 = Clock::time_point{} + seconds(1000);
  Sent sent;
  {
    InjectedFault fault(DrillFault::CollectiveHang, 12, 60, held.t0, sent.send(), held.hold());
    fault.revert();
    CHECK(fault.over());
  }
  CHECK(held.until == std::vector<long long>{60, -1});
  { InjectedFault fault(DrillFault::CollectiveHang, 13, 30, held.t0, sent.send(), held.hold()); }
  CHECK(held.until == std::vector<long long>{60, -1, 30, -1});
  {
    InjectedFault fault(DrillFault::CollectiveHang, 14, 30, held.t0, sent.send(), held.hold());
    fault.forget();  // the rank is gone: a ring left behind holds nothing
    CHECK(fault.over());
  }
  CHECK(held.until == std::vector<long long>{60, -1, 30, -1, 30, -1});
  CHECK(sent.signals.empty());
}

TEST_CASE("a collective-hang without a hold to set holds nothing and ends at its seconds") {
  Sent sent;
  const Clock::time_point t0{};
  InjectedFault fault(DrillFault::CollectiveHang, 15, 5, t0, sent.send());
  CHECK_FALSE(fault.over());
  CHECK(fault.on_deadline(t0 + seconds(5)));
  CHECK(sent.signals.empty());
}

TEST_CASE(
    "slow-gpu puts its burn on until its seconds pass and takes it off - also when its rank is "
    "gone") {
  Sent sent;
  Held burn;
  burn.t0 = Clock::time_point{} + seconds(50);
  {
    InjectedFault fault(DrillFault::SlowGpu, 21, 15, burn.t0, sent.send(), burn.hold());
    CHECK(burn.until == std::vector<long long>{15});
    CHECK(fault.next_deadline() == burn.t0 + seconds(15));
    CHECK(fault.on_deadline(burn.t0 + seconds(15)));
  }
  CHECK(burn.until == std::vector<long long>{15, -1});
  {
    InjectedFault fault(DrillFault::SlowGpu, 22, 15, burn.t0, sent.send(), burn.hold());
    fault.forget();  // the rank exited: the burn on its GPU would go on without it
  }
  CHECK(burn.until == std::vector<long long>{15, -1, 15, -1});
  CHECK(sent.signals.empty());
}

TEST_CASE("a slow-gpu whose burn cannot start is not constructed and sends nothing") {
  Sent sent;
  int calls = 0;
  auto failing = [&calls](Clock::time_point) {
    ++calls;
    throw std::runtime_error("no burner");
  };
  CHECK_THROWS_WITH(
      InjectedFault(DrillFault::SlowGpu, 23, 5, Clock::time_point{}, sent.send(), failing),
      "no burner");
  CHECK(calls == 1);  // not called again to take off what never went on
  CHECK(sent.signals.empty());
}

TEST_CASE("a bounded fault of 0 seconds lasts one second, not none") {
  Sent sent;
  const Clock::time_point t0{};
  InjectedFault fault(DrillFault::RankHang, 4, 0, t0, sent.send());
  CHECK(fault.next_deadline() == t0 + seconds(1));
}

}  // namespace injected_fault_test
