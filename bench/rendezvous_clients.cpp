// Stand-ins for many node launchers, for bench/rendezvous.sh. Each is a real protocol client
// (docs/protocol.md) with its own TCP connection bound to its host's address: the hello /
// challenge / auth handshake, `join` with no check results, heartbeats, and for `start` an
// immediate `exited` (code 0) + `stopped`, as a launcher whose command is `true` reports it.
// All of them are multiplexed on one Boost.Asio io_context in one thread, so that 1,023
// launchers fit on a 2-core machine beside the real coordinator.
//
//   rendezvous_clients --plan PLAN [--token-file F] [--first I] [--last J]
//                      [--heartbeat-interval-ms N] [--timeout-s S]
//
// plays the plan's hosts I..J (1-based, in the plan's order; default 2..all, node 1 being the
// real pai-launch that runs the coordinator) and prints one line of key=value figures:
// clients, assigned, finished, and the wall-clock (CLOCK_REALTIME, ns) times of the first
// connect, the last welcome and the last `assign`, to be compared with the coordinator's
// events.jsonl. Exit status 0 when every client was assigned and told `finish` 0.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <boost/asio.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "launcher/net/auth.h"
#include "launcher/net/frame.h"
#include "launcher/net/protocol.h"
#include "libpai/plan.h"
#include "libpai/plan_json.h"

namespace {

namespace asio = boost::asio;
namespace net = pai::net;
using asio::ip::tcp;

std::int64_t wall_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

struct Options {
  std::string plan_path;
  std::string token_file;
  int first = 2;
  int last = 0;  // 0 = the plan's last host
  int heartbeat_ms = 1000;
  int timeout_s = 120;
};

// One simulated launcher: a connection and where it is in the protocol.
struct Launcher {
  Launcher(asio::io_context& io, pai::Host h) : socket(io), host(std::move(h)) {}
  tcp::socket socket;
  pai::Host host;
  std::optional<net::ClientHandshake> handshake;
  net::FrameDecoder decoder;
  std::vector<char> buffer = std::vector<char>(16 * 1024);
  std::string outbox;   // sealed frames waiting for the write in flight
  std::string writing;  // the bytes of the write in flight
  bool write_pending = false;
  bool joined = false;
  bool assigned = false;
  bool done = false;   // finished, or failed; the connection is closed
  int exit_code = -1;  // from `finish`
};

class Swarm {
 public:
  Swarm(const pai::Plan& plan, std::string token, const Options& options)
      : plan_(plan), token_(std::move(token)), options_(options), heartbeat_(io_), deadline_(io_) {
    const int last = options.last == 0 ? static_cast<int>(plan.hosts.size()) : options.last;
    for (int k = options.first; k <= last; ++k) {
      launchers_.push_back(
          std::make_unique<Launcher>(io_, plan.hosts.at(static_cast<std::size_t>(k - 1))));
    }
    coordinator_ = tcp::endpoint(asio::ip::make_address(plan.coordinator.address),
                                 static_cast<unsigned short>(plan.coordinator.port));
  }

  int run() {
    first_connect_ns_ = wall_ns();
    // Every connect is started before the loop runs: the coordinator sees them all at once,
    // as it would when a thousand nodes start their launchers together.
    for (auto& l : launchers_) connect(*l);
    heartbeat_tick();
    deadline_.expires_after(std::chrono::seconds(options_.timeout_s));
    deadline_.async_wait([this](const boost::system::error_code& ec) {
      if (ec) return;
      for (auto& l : launchers_) {
        if (!l->done) fail(*l, "timed out after " + std::to_string(options_.timeout_s) + " s");
      }
    });
    io_.run();
    return report();
  }

 private:
  void connect(Launcher& l) {
    // From the node's own address, as its launcher would: the coordinator checks it.
    boost::system::error_code ec;
    const asio::ip::address local = asio::ip::make_address(l.host.address, ec);
    if (ec) return fail(l, "the address \"" + l.host.address + "\" is not numeric");
    l.socket.open(tcp::v4(), ec);
    if (!ec) l.socket.bind(tcp::endpoint(local, 0), ec);
    if (ec) return fail(l, "cannot bind to " + l.host.address + ": " + ec.message());
    l.socket.async_connect(coordinator_, [this, &l](const boost::system::error_code& e) {
      if (l.done) return;
      if (e) return fail(l, "cannot connect: " + e.message());
      boost::system::error_code ignored;
      l.socket.set_option(tcp::no_delay(true), ignored);
      l.handshake.emplace(token_, plan_.name, net::PeerClaim{"launcher", l.host.name});
      write(l, l.handshake->hello());
      read(l);
    });
  }

  void read(Launcher& l) {
    l.socket.async_read_some(
        asio::buffer(l.buffer), [this, &l](const boost::system::error_code& ec, std::size_t size) {
          if (l.done) return;
          if (ec) {
            return fail(l, ec == asio::error::eof ? "the coordinator closed the connection"
                                                  : "receive failed: " + ec.message());
          }
          try {
            l.decoder.feed(l.buffer.data(), size);
            net::Frame frame;
            while (!l.done && l.decoder.next(frame)) on_frame(l, frame);
          } catch (const net::ProtocolError& e) {
            return fail(l, e.what());
          }
          if (!l.done) read(l);
        });
  }

  void on_frame(Launcher& l, const net::Frame& frame) {
    if (!l.handshake->done()) {
      const std::string reply = l.handshake->on_frame(frame);
      if (!reply.empty()) write(l, reply);
      if (l.handshake->done()) {
        last_welcome_ns_ = wall_ns();
        l.joined = true;
        send(l, net::Join{l.host.name, "[]", static_cast<std::int64_t>(::getpid()), plan_.seal});
      }
      return;
    }
    on_message(l, net::parse_coordinator_to_node(l.handshake->channel().open(frame),
                                                 static_cast<int>(plan_.placements.size())));
  }

  // What a launcher whose command is `true` answers; anything else is a protocol error here.
  void on_message(Launcher& l, const net::CoordinatorToNode& message) {
    std::visit(net::Overloaded{
                   [](const net::Heartbeat&) {},
                   [](const net::Progress&) {},
                   [&](const net::Assign&) {
                     l.assigned = true;
                     last_assign_ns_ = wall_ns();
                     ++assigned_;
                   },
                   [&](const net::Start& start) {
                     send(l, net::Exited{start.instance, 0, {0, 0}, {false, "", "", ""}, false});
                     send(l, net::Stopped{start.instance});
                   },
                   // Its process already ended: the instance is stopped at once.
                   [&](const net::Stop& stop) { send(l, net::Stopped{stop.instance}); },
                   [&](const net::RunChecks&) { send(l, net::Checks{"[]"}); },
                   [&](const net::Finish& finish) {
                     l.exit_code = finish.exit_code;
                     if (l.exit_code != 0) {
                       std::cerr << "rendezvous_clients: " << l.host.name << ": finish "
                                 << l.exit_code << ": " << finish.reason << "\n";
                     }
                     close(l);
                   },
                   [&](const auto&) {
                     net::fail(message, "type",
                               "not expected by a launcher whose command is `true`");
                   },
               },
               message);
  }

  void send(Launcher& l, const net::NodeToCoordinator& message) {
    write(l, l.handshake->channel().seal(net::to_json(message)));
  }

  void write(Launcher& l, const std::string& bytes) {
    l.outbox += bytes;
    flush(l);
  }

  // One write in flight per connection (Asio's rule); what comes meanwhile waits in outbox.
  void flush(Launcher& l) {
    if (l.write_pending || l.outbox.empty()) return;
    l.writing.swap(l.outbox);
    l.outbox.clear();
    l.write_pending = true;
    asio::async_write(l.socket, asio::buffer(l.writing),
                      [this, &l](const boost::system::error_code& ec, std::size_t) {
                        l.write_pending = false;
                        if (l.done) return;
                        if (ec) return fail(l, "send failed: " + ec.message());
                        flush(l);
                      });
  }

  void heartbeat_tick() {
    for (auto& l : launchers_) {
      if (l->joined && !l->done) {
        send(*l, net::NodeHeartbeat{});
      }
    }
    heartbeat_.expires_after(std::chrono::milliseconds(options_.heartbeat_ms));
    heartbeat_.async_wait([this](const boost::system::error_code& ec) {
      if (!ec) heartbeat_tick();
    });
  }

  void fail(Launcher& l, const std::string& why) {
    // The first few failures say why; the count at the end says how many.
    if (++failed_ <= 10) std::cerr << "rendezvous_clients: " << l.host.name << ": " << why << "\n";
    close(l);
  }

  void close(Launcher& l) {
    l.done = true;
    boost::system::error_code ec;
    l.socket.close(ec);
    if (++done_ == launchers_.size()) {
      heartbeat_.cancel();
      deadline_.cancel();
    }
  }

  int report() const {
    std::size_t finished = 0;
    for (const auto& l : launchers_) finished += l->exit_code == 0 ? 1 : 0;
    std::printf(
        "clients=%zu assigned=%zu finished=%zu failed=%zu first_connect_ns=%lld "
        "last_welcome_ns=%lld last_assign_ns=%lld\n",
        launchers_.size(), assigned_, finished, failed_, static_cast<long long>(first_connect_ns_),
        static_cast<long long>(last_welcome_ns_), static_cast<long long>(last_assign_ns_));
    return assigned_ == launchers_.size() && finished == launchers_.size() ? 0 : 1;
  }

  const pai::Plan& plan_;
  std::string token_;
  Options options_;
  asio::io_context io_;
  asio::steady_timer heartbeat_;
  asio::steady_timer deadline_;
  tcp::endpoint coordinator_;
  std::vector<std::unique_ptr<Launcher>> launchers_;
  std::size_t assigned_ = 0;
  std::size_t failed_ = 0;
  std::size_t done_ = 0;
  std::int64_t first_connect_ns_ = 0;
  std::int64_t last_welcome_ns_ = 0;
  std::int64_t last_assign_ns_ = 0;
};

std::string read_token(const std::string& path) {
  std::ifstream in(path);
  std::string token;
  if (in && std::getline(in, token)) token.erase(token.find_last_not_of(" \t\r") + 1);
  if (token.empty()) throw std::runtime_error("cannot read the job token from " + path);
  return token;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  CLI::App app("Many simulated pai-launch node launchers joining one coordinator");
  app.add_option("--plan", options.plan_path, "plan.json written by pai-compile")->required();
  app.add_option("--token-file", options.token_file, "the job token (default: beside the plan)");
  app.add_option("--first", options.first, "first host to play, 1-based (default 2)")
      ->check(CLI::PositiveNumber);
  app.add_option("--last", options.last, "last host to play (default: the plan's last)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--heartbeat-interval-ms", options.heartbeat_ms, "heartbeat interval")
      ->check(CLI::PositiveNumber);
  app.add_option("--timeout-s", options.timeout_s, "give up after this long")
      ->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  try {
    if (options.token_file.empty()) {
      const auto slash = options.plan_path.find_last_of('/');
      options.token_file =
          (slash == std::string::npos ? std::string(".") : options.plan_path.substr(0, slash)) +
          "/job.token";
    }
    const std::string token = read_token(options.token_file);
    const pai::Plan plan =
        pai::load_plan_file(options.plan_path, pai::JobToken{token, options.token_file});
    const int hosts = static_cast<int>(plan.hosts.size());
    const int last = options.last == 0 ? hosts : options.last;
    if (options.first > last || last > hosts) {
      std::cerr << "rendezvous_clients: hosts " << options.first << ".." << last
                << " are not within the plan's 1.." << hosts << "\n";
      return 2;
    }
    Swarm swarm(plan, token, options);
    return swarm.run();
  } catch (const std::exception& e) {
    std::cerr << "rendezvous_clients: error: " << e.what() << "\n";
    return 2;
  }
}
