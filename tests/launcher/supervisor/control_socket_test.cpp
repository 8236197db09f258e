#include "launcher/supervisor/control_socket.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cstring>
#include <thread>

#include "launcher/launcher_harness.h"

namespace control_socket_test {

using namespace pai::launcher;
using pai::testing::TempDir;

namespace {

std::string parse_error(const std::string& line) {
  std::string error;
  CHECK_FALSE(parse_control_line(line, &error));
  return error;
}

// Runs the server's loop until `client` returns, then yields its result.
template <class Client>
auto serve_while(EventLoop& loop, Client client) {
  std::atomic<bool> done{false};
  decltype(client()) result{};
  std::thread t([&] {
    result = client();
    done = true;
  });
  while (!done) loop.wait_once(20);
  t.join();
  return result;
}

int connect_to(const std::string& path) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strcpy(addr.sun_path, path.c_str());
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  return fd;
}

std::string read_reply(int fd) {
  std::string reply;
  char c;
  while (::recv(fd, &c, 1, 0) == 1 && c != '\n') reply += c;
  return reply;
}

}  // namespace

TEST_CASE("requests parse - bad ones explain themselves") {
  std::string error;
  auto notify = parse_control_line("notify loss is NaN\r", &error);
  REQUIRE(notify);
  CHECK(std::get<NotifyRequest>(*notify).text == "loss is NaN");
  CHECK(std::get<ProgressRequest>(*parse_control_line("progress 1200", &error)).step == 1200);
  CHECK(std::get<HangIntervalRequest>(*parse_control_line("hang-interval 2h", &error)).seconds ==
        7200);
  CHECK(std::get<HangIntervalRequest>(*parse_control_line("hang-interval 90", &error)).seconds ==
        90);
  CHECK(
      std::get<HangIntervalRequest>(*parse_control_line("hang-interval default", &error)).seconds ==
      0);

  CHECK(parse_error("notify") == "notify needs a message");
  CHECK(parse_error("progress -1") == "progress needs a step number >= 0, got '-1'");
  CHECK(parse_error("progress 12abc") == "progress needs a step number >= 0, got '12abc'");
  CHECK(parse_error("hang-interval 0") ==
        "hang-interval needs a duration from 1s to 365d (90, 90s, 30m, 2h), 'default' or 'off', "
        "got '0'");
  // The audit's repro: a huge interval used to be accepted and then reported a hang at once.
  CHECK(parse_error("hang-interval 1000000000000000000") ==
        "hang-interval needs a duration from 1s to 365d (90, 90s, 30m, 2h), 'default' or 'off', got "
        "'1000000000000000000'");
  CHECK(parse_error("hang-interval 366d") ==
        "hang-interval needs a duration from 1s to 365d (90, 90s, 30m, 2h), 'default' or 'off', got "
        "'366d'");
  CHECK(std::get<HangIntervalRequest>(*parse_control_line("hang-interval 365d", &error)).seconds ==
        365 * 86400);
  CHECK(parse_error("\x01\xfegarbage") ==
        "unknown request '??garbage' (expected notify, progress, hang-interval, "
        "exit-hang-interval, retryable-error, checkpoint-begin, checkpoint-resumed, "
        "checkpoint-done, checkpoint-failed or checkpoint-advice)");
  CHECK(std::holds_alternative<CheckpointAdviceRequest>(
      *parse_control_line("checkpoint-advice", &error)));
  CHECK(!parse_control_line("checkpoint-advice now", &error));
  CHECK(error == "checkpoint-advice takes no argument, got 'now'");
  CHECK(std::get<HangIntervalRequest>(*parse_control_line("hang-interval off", &error)).seconds ==
        -1);
  CHECK(std::get<ExitHangIntervalRequest>(*parse_control_line("exit-hang-interval 5m", &error))
            .seconds == 300);
  CHECK(std::get<ExitHangIntervalRequest>(*parse_control_line("exit-hang-interval default",
                                                              &error))
            .seconds == 0);
  CHECK(parse_error("exit-hang-interval off") ==
        "exit-hang-interval needs a duration from 1s to 365d (90, 90s, 30m, 2h), 'default', got "
        "'off'");
  CHECK(std::get<RetryableErrorRequest>(*parse_control_line("retryable-error connect timeout",
                                                            &error))
            .text == "connect timeout");
  CHECK(parse_error("retryable-error") == "retryable-error needs the text to look for");
  const auto begin = std::get<CheckpointRequest>(*parse_control_line("checkpoint-begin 40", &error));
  CHECK(begin.phase == CheckpointRequest::Phase::Begin);
  CHECK(begin.step == 40);
  const auto resumed =
      std::get<CheckpointRequest>(*parse_control_line("checkpoint-resumed 40", &error));
  CHECK(resumed.phase == CheckpointRequest::Phase::Resumed);
  CHECK(resumed.step == 40);
  CHECK(resumed.text.empty());
  CHECK(parse_error("checkpoint-resumed 40 /out") ==
        "checkpoint-resumed needs a step number >= 0, got '40 /out'");
  const auto done = std::get<CheckpointRequest>(
      *parse_control_line("checkpoint-done 40 /out/checkpoints/step-40", &error));
  CHECK(done.phase == CheckpointRequest::Phase::Done);
  CHECK(done.text == "/out/checkpoints/step-40");
  const auto failed = std::get<CheckpointRequest>(
      *parse_control_line("checkpoint-failed 40 No space left on device", &error));
  CHECK(failed.phase == CheckpointRequest::Phase::Failed);
  CHECK(failed.text == "No space left on device");
  CHECK(parse_error("checkpoint-begin -3") ==
        "checkpoint-begin needs a step number >= 0, got '-3'");
  CHECK(parse_error("checkpoint-done 40") ==
        "checkpoint-done needs a step number >= 0 and the checkpoint's path, got '40'");
  CHECK(parse_error("checkpoint-failed x y") ==
        "checkpoint-failed needs a step number >= 0 and why it failed, got 'x y'");
}

TEST_CASE("the server answers each line and survives garbage and 1 MiB lines") {
  TempDir dir;
  EventLoop loop;
  std::vector<std::string> seen;
  std::vector<int> peers;
  ControlServer server(dir / "c.sock", loop, [&](const ControlRequest& r, int peer) {
    if (const auto* n = std::get_if<NotifyRequest>(&r)) seen.push_back(n->text);
    peers.push_back(peer);
    if (std::holds_alternative<CheckpointAdviceRequest>(r)) {
      return ControlReply{true, "interval=60 request=2"};
    }
    return ControlReply{};
  });

  auto replies = serve_while(loop, [&] {
    std::vector<std::string> out;
    int fd = connect_to(server.path());
    const std::string two = "notify a\nbogus\n";
    ::send(fd, two.data(), two.size(), MSG_NOSIGNAL);
    out.push_back(read_reply(fd));
    out.push_back(read_reply(fd));
    ::close(fd);
    return out;
  });
  REQUIRE(replies.size() == 2);
  CHECK(replies[0] == "ok");
  CHECK(replies[1] ==
        "error unknown request 'bogus' (expected notify, progress, hang-interval, "
        "exit-hang-interval, retryable-error, checkpoint-begin, checkpoint-resumed, "
        "checkpoint-done, checkpoint-failed or checkpoint-advice)");
  CHECK(seen == std::vector<std::string>{"a"});
  // A request that asks for something gets its answer after "ok ".
  CHECK(serve_while(loop, [&] {
          return send_control_request(server.path(), "checkpoint-advice", 2000);
        }) == "ok interval=60 request=2");
  peers.pop_back();

  auto flood = serve_while(loop, [&] {
    int fd = connect_to(server.path());
    const std::string big(1 << 20, 'x');
    ::send(fd, big.data(), big.size(), MSG_NOSIGNAL);  // the server hangs up part way
    std::string reply = read_reply(fd);
    ::close(fd);
    return reply;
  });
  CHECK(flood == "error line too long (limit 4096 bytes)");

  CHECK(serve_while(loop, [&] { return send_control_request(server.path(), "notify b", 2000); }) ==
        "ok");
  CHECK(seen == std::vector<std::string>{"a", "b"});
  CHECK(peers == std::vector<int>{::getpid(), ::getpid()});

  // The handler learns which process sent a request (SO_PEERCRED): here a child's.
  const int child = serve_while(loop, [&] {
    const pid_t pid = ::fork();
    if (pid == 0) {
      try {
        send_control_request(server.path(), "notify c", 2000);
      } catch (...) {
        ::_exit(1);
      }
      ::_exit(0);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? pid : -1;
  });
  REQUIRE(child > 0);
  CHECK(seen.back() == "c");
  CHECK(peers.back() == child);
}

TEST_CASE("a stale socket is replaced - a live one is refused") {
  TempDir dir;
  EventLoop loop;
  const std::string path = dir / "c.sock";
  auto handler = [](const ControlRequest&, int) { return ControlReply{}; };
  {
    int stale = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strcpy(addr.sun_path, path.c_str());
    REQUIRE(::bind(stale, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    ::close(stale);  // the file stays, nobody listens
  }
  ControlServer server(path, loop, handler);
  try {
    ControlServer second(path, loop, handler);
    FAIL("a second server started");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()) == "another pai-launch serves the control socket " + path);
  }
}

TEST_CASE("the client reports an unreachable socket") {
  try {
    send_control_request("/nonexistent/c.sock", "progress 1", 500);
    FAIL("no exception");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()) ==
          "cannot connect to control socket /nonexistent/c.sock: No such file or directory");
  }
}

}  // namespace control_socket_test
