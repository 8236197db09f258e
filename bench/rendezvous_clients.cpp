// Stand-ins for many node launchers, for bench/rendezvous.sh and bench/telemetry_load.sh. Each
// is a real protocol client (docs/protocol.md) with its own TCP connection bound to its host's
// address: the hello / challenge / auth handshake (connecting again, as a launcher does, when
// the connection fails before the welcome), `join` with no check results, heartbeats, and for
// `start` an immediate `exited` (code 0) per rank + `stopped`, as a launcher whose command is
// `true` reports it. With --heartbeat-seconds N the instance runs N seconds instead: every
// heartbeat meanwhile lists it, with --ranks-per-node R telemetry summaries (ranks first_rank
// .. first_rank+R-1 of its placement) of a job whose ranks step together (see `summary`), and
// then its ranks exit 0. All of them are multiplexed on one Boost.Asio io_context in one
// thread, so that 1,023 launchers fit on a 2-core machine beside the real coordinator; each
// heartbeats on a timer of its own, their phases spread over the interval as independent
// launchers' are. They all connect at once, or with --max-connecting C at most C at a time
// until their welcome (the coordinator holds at most max(4,096, twice the plan's machines)
// unauthenticated connections and closes the oldest beyond). With --fail-instance K
// they play a job-wide restart (bench/restart_scale.sh): attempt 0 of every instance runs until
// `stop`, K's ranks exit 1 --fail-after-ms after its start (or, with --fail-mode close|silent,
// its launcher's connection closes or it sends nothing more), and every later attempt exits 0.
//
//   rendezvous_clients --plan PLAN [--token-file F] [--first I] [--last J]
//                      [--heartbeat-interval-ms N] [--heartbeat-seconds N]
//                      [--ranks-per-node R] [--max-connecting C] [--timeout-s S]
//                      [--fail-instance K] [--fail-mode exit|close|silent] [--fail-after-ms M]
//
// plays the plan's hosts I..J (1-based, in the plan's order; default 2..all, node 1 being the
// real pai-launch that runs the coordinator) and prints one line of key=value figures:
// clients, assigned, finished, the wall-clock (CLOCK_REALTIME, ns) times of the first
// connect, the last welcome and the last `assign`, to be compared with the coordinator's
// events.jsonl, the connects made again, and the heartbeats that listed a running instance and
// the telemetry entries they carried; with --fail-instance, when K failed, the `start`s of
// later attempts and when the last came (fail_ns, restarted, last_restart_ns). SIGUSR1 prints those two counts so far at once ("probe
// at_ns=... instance_heartbeats=... telemetry=..."), for rates over a window. Exit status 0
// when every client was assigned and told `finish` 0.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <boost/asio.hpp>
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
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
using Clock = std::chrono::steady_clock;

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
  int heartbeat_seconds = 0;  // 0: the instance's ranks exit as soon as they start
  int ranks_per_node = 0;     // telemetry summaries in each heartbeat's instance entry
  int max_connecting = 0;     // launchers connecting at once; 0: all
  int fail_instance = -1;     // its attempt 0 fails (exit 1) --fail-after-ms after its start
  int fail_after_ms = 2000;
  std::string fail_mode = "exit";  // exit: its ranks exit 1; close: its connection closes;
                                   // silent: it sends nothing more
  int timeout_s = 120;
};

// The job every simulated rank runs, in step with the others from its instance's `start`: a
// 200 ms step whose last 30% is four world all_reduces of 15 ms each (DDP's gradient buckets).
constexpr std::int64_t kStepUs = 200'000;
constexpr std::int64_t kComputeUs = kStepUs * 7 / 10;
constexpr std::int64_t kCollectivesPerStep = 4;
constexpr std::int64_t kCollectiveUs = (kStepUs - kComputeUs) / kCollectivesPerStep;
constexpr int kAllReduce = 1;  // enum pai_telemetry_op

// One rank of a running simulated instance.
struct SimulatedRank {
  std::int64_t rank = 0;
  std::int64_t lag_us = 0;   // how far behind its instance's start it runs: ranks are not
                             // sampled at the same point of their step
  std::int64_t rtt_us = 0;   // the typical RTT of its connections
  std::int64_t retrans = 0;  // retransmitted segments so far
};

// A factor in [1 - spread, 1 + spread].
double jitter(std::minstd_rand& random, double spread) {
  return std::uniform_real_distribution<double>(1 - spread, 1 + spread)(random);
}

// What a launcher's ring reader (launcher/supervisor/rank_telemetry.h) would summarize for
// `r` over the window (from_us, to_us], in microseconds since its instance started: steps
// and collective numbers follow the job's clock, durations and RTT carry a few percent of
// noise, a retransmit now and then.
net::RankTelemetry summary(SimulatedRank& r, std::int64_t from_us, std::int64_t to_us,
                           std::minstd_rand& random) {
  const std::int64_t begin = std::max<std::int64_t>(from_us - r.lag_us, 0);
  const std::int64_t now = std::max<std::int64_t>(to_us - r.lag_us, 0);
  const std::int64_t step = now / kStepUs;
  const std::int64_t into_step = now % kStepUs;
  // In the collectives' part of the step one of them is always open: `open` is its number
  // within the step, 1-based; 0 in the compute part.
  const std::int64_t open =
      into_step < kComputeUs ? 0 : (into_step - kComputeUs) / kCollectiveUs + 1;
  const std::int64_t open_us = open == 0 ? 0 : into_step - kComputeUs - (open - 1) * kCollectiveUs;
  const std::int64_t window_us = std::max<std::int64_t>(to_us - from_us, 1);
  net::RankTelemetry t;
  t.rank = r.rank;
  t.step = step;
  t.steps = step - begin / kStepUs;
  t.step_us =
      static_cast<std::int64_t>(static_cast<double>(t.steps * kStepUs) * jitter(random, 0.01));
  t.window_us = window_us;
  t.comm_us = std::min(window_us, static_cast<std::int64_t>(static_cast<double>(window_us) * 0.3 *
                                                            jitter(random, 0.03)));
  t.entered = step * kCollectivesPerStep + open;
  t.exited = open == 0 ? t.entered : t.entered - 1;
  t.open_ms = open == 0 ? -1 : open_us / 1000;
  t.op = open == 0 ? 0 : kAllReduce;
  // The last record: the collective's enter, or else the step's begin.
  t.quiet_ms = (open == 0 ? into_step : open_us) / 1000;
  t.lost = 0;
  t.tcp_rtt_us = static_cast<std::int64_t>(static_cast<double>(r.rtt_us) * jitter(random, 0.1));
  if (std::uniform_int_distribution<int>(0, 19)(random) == 0) ++r.retrans;
  t.tcp_retrans = r.retrans;
  return t;
}

// One simulated launcher: a connection and where it is in the protocol.
struct Launcher {
  Launcher(asio::io_context& io, pai::Host h, std::size_t i)
      : socket(io), beat(io), host(std::move(h)), index(i) {}
  tcp::socket socket;
  asio::steady_timer beat;  // its next heartbeat
  pai::Host host;
  std::size_t index;        // among this process's launchers
  unsigned connection = 0;  // its connects so far: handlers of an earlier one find it changed
  std::chrono::milliseconds pause{20};  // before it connects again, backing off as node_link.cpp
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
  // The instance it runs (with --heartbeat-seconds), -1: none; since when, how far its
  // ranks were summarized, and those that report telemetry.
  int instance = -1;
  Clock::time_point started;
  std::int64_t summarized_us = 0;
  std::vector<SimulatedRank> ranks;
};

class Swarm {
 public:
  Swarm(const pai::Plan& plan, std::string token, const Options& options)
      : plan_(plan),
        token_(std::move(token)),
        options_(options),
        deadline_(io_),
        probe_(io_, SIGUSR1) {
    const int last = options.last == 0 ? static_cast<int>(plan.hosts.size()) : options.last;
    for (int k = options.first; k <= last; ++k) {
      launchers_.push_back(std::make_unique<Launcher>(
          io_, plan.hosts.at(static_cast<std::size_t>(k - 1)), launchers_.size()));
    }
    coordinator_ = tcp::endpoint(asio::ip::make_address(plan.coordinator.address),
                                 static_cast<unsigned short>(plan.coordinator.port));
  }

  int run() {
    first_connect_ns_ = wall_ns();
    // Every connect (up to --max-connecting) is started before the loop runs: the coordinator
    // sees them all at once, as it would when a thousand nodes start their launchers together.
    start_connects();
    const int limit_s = options_.timeout_s + options_.heartbeat_seconds;
    deadline_.expires_after(std::chrono::seconds(limit_s));
    answer_probes();
    deadline_.async_wait([this, limit_s](const boost::system::error_code& ec) {
      if (ec) return;
      next_ = launchers_.size();  // none starts now
      for (auto& l : launchers_) {
        if (!l->done) fail(*l, "timed out after " + std::to_string(limit_s) + " s");
      }
    });
    io_.run();
    return report();
  }

 private:
  // Launchers connect in order, at most --max-connecting at once between their first connect
  // and their welcome (0: no limit).
  void start_connects() {
    const auto limit = static_cast<std::size_t>(options_.max_connecting);
    while (next_ < launchers_.size() && (limit == 0 || connecting_ < limit)) {
      ++connecting_;
      connect(*launchers_[next_++]);
    }
  }

  void connect(Launcher& l) {
    const unsigned connection = ++l.connection;
    // From the node's own address, as its launcher would: the coordinator checks it.
    boost::system::error_code ec;
    const asio::ip::address local = asio::ip::make_address(l.host.address, ec);
    if (ec) return fail(l, "the address \"" + l.host.address + "\" is not numeric");
    l.socket.open(tcp::v4(), ec);
    if (!ec) l.socket.bind(tcp::endpoint(local, 0), ec);
    if (ec) return fail(l, "cannot bind to " + l.host.address + ": " + ec.message());
    l.socket.async_connect(
        coordinator_, [this, &l, connection](const boost::system::error_code& e) {
          if (l.done || l.connection != connection) return;
          if (e) return lost(l, "cannot connect: " + e.message());
          boost::system::error_code ignored;
          l.socket.set_option(tcp::no_delay(true), ignored);
          l.handshake.emplace(token_, plan_.name, net::PeerClaim{"launcher", l.host.name});
          write(l, l.handshake->hello());
          read(l);
        });
  }

  void read(Launcher& l) {
    const unsigned connection = l.connection;
    l.socket.async_read_some(
        asio::buffer(l.buffer),
        [this, &l, connection](const boost::system::error_code& ec, std::size_t size) {
          if (l.done || l.connection != connection) return;
          if (ec) {
            return lost(l, ec == asio::error::eof ? "the coordinator closed the connection"
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
        --connecting_;
        start_connects();
        send(l, net::Join{l.host.name, "[]", static_cast<std::int64_t>(::getpid()), plan_.seal});
        // Its place among this process's launchers sets its phase within the interval.
        heartbeat(l, Clock::now() + std::chrono::milliseconds(options_.heartbeat_ms * l.index /
                                                              launchers_.size()));
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
                     if (start.attempt > 0) {
                       ++restarted_;
                       last_restart_ns_ = wall_ns();
                     }
                     if (options_.fail_instance >= 0) {
                       // A restart: attempt 0 runs until stopped (or fails), the next exit 0.
                       if (start.attempt == 0) return run_instance(l, start.instance);
                       return end_instance(l, start.instance, false);
                     }
                     if (options_.heartbeat_seconds == 0) {
                       end_instance(l, start.instance, false);
                     } else {
                       run_instance(l, start.instance);
                     }
                   },
                   // Its processes are stopped at once, or already ended.
                   [&](const net::Stop& stop) {
                     if (l.instance == stop.instance) return end_instance(l, stop.instance, true);
                     send(l, net::Stopped{stop.instance});
                   },
                   [&](const net::RunChecks&) { send(l, net::Checks{"[]"}); },
                   [&](const net::Finish& finish) {
                     l.exit_code = finish.exit_code;
                     if (l.exit_code != 0) {
                       say(l, "finish " + std::to_string(l.exit_code) + ": " + finish.reason);
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
    const unsigned connection = l.connection;
    asio::async_write(l.socket, asio::buffer(l.writing),
                      [this, &l, connection](const boost::system::error_code& ec, std::size_t) {
                        if (l.connection != connection) return;
                        l.write_pending = false;
                        if (l.done) return;
                        if (ec) return lost(l, "send failed: " + ec.message());
                        flush(l);
                      });
  }

  // The connection failed. Before the welcome a launcher connects again (the coordinator
  // may not listen yet, or closed it to make room for newer ones: at most 4,096 connections
  // may be unauthenticated, docs/protocol.md); after it, it failed.
  void lost(Launcher& l, const std::string& why) {
    if (l.joined) return fail(l, why);
    ++reconnects_;
    boost::system::error_code ignored;
    l.socket.close(ignored);
    l.handshake.reset();
    l.decoder = net::FrameDecoder{};
    l.outbox.clear();
    l.write_pending = false;
    l.beat.expires_after(l.pause);
    l.beat.async_wait([this, &l](const boost::system::error_code& ec) {
      if (!ec && !l.done) connect(l);
    });
    l.pause = std::min<std::chrono::milliseconds>(l.pause * 2, std::chrono::milliseconds(500));
  }

  // The instance's ranks 0..R-1 report telemetry, from its placement in the plan.
  void run_instance(Launcher& l, int instance) {
    const pai::Placement& p = plan_.placements.at(static_cast<std::size_t>(instance));
    const int ranks = pai::last_rank(plan_, p) - p.first_rank + 1;
    if (options_.ranks_per_node > ranks) {
      return fail(l, "--ranks-per-node " + std::to_string(options_.ranks_per_node) + ": instance " +
                         std::to_string(instance) + " has " + std::to_string(ranks) + " ranks");
    }
    l.instance = instance;
    l.started = Clock::now();
    l.summarized_us = 0;
    l.ranks.clear();
    const std::int64_t node_rtt_us = std::uniform_int_distribution<std::int64_t>(60, 120)(random_);
    for (int k = 0; k < options_.ranks_per_node; ++k) {
      l.ranks.push_back(SimulatedRank{p.first_rank + k,
                                      std::uniform_int_distribution<std::int64_t>(0, 2000)(random_),
                                      node_rtt_us, 0});
    }
  }

  // Every rank of the instance exited: `code`, or by SIGTERM when it was stopped.
  void end_instance(Launcher& l, int instance, bool stopping, int code = 0) {
    const pai::Placement& p = plan_.placements.at(static_cast<std::size_t>(instance));
    const int ranks = pai::last_rank(plan_, p) - p.first_rank + 1;
    const net::ProcessStatus status{code, stopping ? SIGTERM : 0};
    for (int k = 0; k < ranks; ++k) {
      send(l, net::Exited{instance, k, status, {false, "", "", ""}, stopping});
    }
    send(l, net::Stopped{instance});
    l.instance = -1;
  }

  // Sends the heartbeat due at `when`, with the running instance and its ranks' telemetry of
  // the window since the previous one, and schedules the next; ends the instance once it ran
  // --heartbeat-seconds.
  void heartbeat(Launcher& l, Clock::time_point when) {
    l.beat.expires_at(when);
    l.beat.async_wait([this, &l](const boost::system::error_code& ec) {
      if (ec || l.done) return;
      const Clock::time_point now = Clock::now();
      if (l.instance < 0) {
      } else if (options_.fail_instance < 0) {
        if (now - l.started >= std::chrono::seconds(options_.heartbeat_seconds)) {
          end_instance(l, l.instance, false);
        }
      } else if (l.instance == options_.fail_instance &&
                 now - l.started >= std::chrono::milliseconds(options_.fail_after_ms)) {
        fail_ns_ = wall_ns();
        if (options_.fail_mode == "close") return close(l);
        if (options_.fail_mode == "silent") return;  // no heartbeat, no next one scheduled
        end_instance(l, l.instance, false, 1);
      }
      net::NodeHeartbeat beat;
      if (l.instance >= 0) {
        const std::int64_t since_us =
            std::chrono::duration_cast<std::chrono::microseconds>(now - l.started).count();
        net::HeartbeatInstance entry;
        entry.instance = l.instance;
        entry.idle_ms = since_us % kStepUs / 1000;  // its ranks report progress every step
        entry.hang_interval =
            plan_.fault_tolerance.hang.enabled ? plan_.fault_tolerance.hang.interval_seconds : 0;
        entry.step = since_us / kStepUs;
        for (SimulatedRank& r : l.ranks) {
          entry.telemetry.push_back(summary(r, l.summarized_us, since_us, random_));
        }
        l.summarized_us = since_us;
        telemetry_sent_ += entry.telemetry.size();
        ++instance_heartbeats_;
        beat.instances.push_back(std::move(entry));
      }
      send(l, beat);
      // On the launcher's own grid of intervals, so that the phases stay spread as independent
      // launchers' are; beats this process was too busy to send in time are skipped, not sent
      // in a burst (the probe's counts show them missing).
      const auto interval = std::chrono::milliseconds(options_.heartbeat_ms);
      auto next = l.beat.expiry() + interval;
      while (next <= now) next += interval;
      heartbeat(l, next);
    });
  }

  void fail(Launcher& l, const std::string& why) {
    ++failed_;
    say(l, why);
    close(l);
  }

  // The first few failures and failed finishes say why; the counts at the end say how many.
  void say(const Launcher& l, const std::string& text) {
    if (++said_ <= 10) std::cerr << "rendezvous_clients: " << l.host.name << ": " << text << "\n";
  }

  void close(Launcher& l) {
    l.done = true;
    if (!l.joined && l.connection > 0) {
      --connecting_;
      // Posted: a next launcher that fails at once would otherwise recurse, one frame each.
      asio::post(io_, [this] { start_connects(); });
    }
    boost::system::error_code ec;
    l.socket.close(ec);
    l.beat.cancel();
    if (++done_ == launchers_.size()) {
      deadline_.cancel();
      probe_.cancel();
    }
  }

  // SIGUSR1: one line of the counts so far, for rates over a window of the caller's choosing.
  void answer_probes() {
    probe_.async_wait([this](const boost::system::error_code& ec, int) {
      if (ec) return;
      std::printf("probe at_ns=%lld instance_heartbeats=%zu telemetry=%zu\n",
                  static_cast<long long>(wall_ns()), instance_heartbeats_, telemetry_sent_);
      std::fflush(stdout);
      answer_probes();
    });
  }

  int report() const {
    std::size_t finished = 0;
    for (const auto& l : launchers_) finished += l->exit_code == 0 ? 1 : 0;
    std::printf(
        "clients=%zu assigned=%zu finished=%zu failed=%zu first_connect_ns=%lld "
        "last_welcome_ns=%lld last_assign_ns=%lld reconnects=%zu instance_heartbeats=%zu "
        "telemetry=%zu fail_ns=%lld restarted=%zu last_restart_ns=%lld\n",
        launchers_.size(), assigned_, finished, failed_, static_cast<long long>(first_connect_ns_),
        static_cast<long long>(last_welcome_ns_), static_cast<long long>(last_assign_ns_),
        reconnects_, instance_heartbeats_, telemetry_sent_, static_cast<long long>(fail_ns_),
        restarted_, static_cast<long long>(last_restart_ns_));
    return assigned_ == launchers_.size() && finished == launchers_.size() ? 0 : 1;
  }

  const pai::Plan& plan_;
  std::string token_;
  Options options_;
  asio::io_context io_;
  asio::steady_timer deadline_;
  asio::signal_set probe_;
  std::minstd_rand random_;  // default seed: every run draws the same lags and noise
  tcp::endpoint coordinator_;
  std::vector<std::unique_ptr<Launcher>> launchers_;
  std::size_t assigned_ = 0;
  std::size_t failed_ = 0;
  std::size_t said_ = 0;
  std::size_t done_ = 0;
  std::int64_t first_connect_ns_ = 0;
  std::int64_t last_welcome_ns_ = 0;
  std::int64_t last_assign_ns_ = 0;
  std::size_t next_ = 0;  // the next launcher to connect
  std::size_t connecting_ = 0;
  std::size_t reconnects_ = 0;
  std::size_t instance_heartbeats_ = 0;
  std::size_t telemetry_sent_ = 0;
  std::int64_t fail_ns_ = 0;          // when --fail-instance's ranks exited 1
  std::size_t restarted_ = 0;         // `start`s of attempt 1 and later
  std::int64_t last_restart_ns_ = 0;  // the last of them
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
  app.add_option("--heartbeat-seconds", options.heartbeat_seconds,
                 "how long each instance runs, heartbeating, before its ranks exit 0 "
                 "(default 0: at once)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--ranks-per-node", options.ranks_per_node,
                 "telemetry summaries in each heartbeat of a running instance, for its ranks "
                 "0..R-1 (default 0)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--max-connecting", options.max_connecting,
                 "launchers between their connect and their welcome at once (default 0: all)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--fail-instance", options.fail_instance,
                 "play a restart: every instance's attempt 0 runs until stopped, this one's "
                 "ranks exit 1 after --fail-after-ms; later attempts exit 0 at once")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--fail-mode", options.fail_mode,
                 "how --fail-instance fails: exit (its ranks exit 1), close (its launcher's "
                 "connection closes), silent (its launcher sends nothing more)")
      ->check(CLI::IsMember({"exit", "close", "silent"}));
  app.add_option("--fail-after-ms", options.fail_after_ms,
                 "when --fail-instance fails, from its start (at its next heartbeat)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--timeout-s", options.timeout_s,
                 "give up after this long, plus --heartbeat-seconds")
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
