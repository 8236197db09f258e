// Runs the fabric check's rounds (launcher/policy/fabric_rounds.h) with the TCP engine
// (launcher/checks/fabric_tcp.h) over real addresses, without a job: for
// tests/launcher/multi_node/fabric_netns_test.sh (nodes in network namespaces, links shaped
// with tc) and bench/fabric.sh (wall time per round). Every pair of a round measures at once:
// the first node's thread listens at its address (a port of 20000-29999, from the top), the
// second's connects from its own.
//
//   fabric_driver --addresses A1,A2,... [--netns NS1,NS2,...] [--streams S] [--duration-ms D]
//                 [--timeout-ms T] [--floor-gbps F] [--no-relative] [--runs R]
//
// Node k (1-based) is named node-k; with --netns its threads enter namespace NSk
// (/run/netns/NSk) before they open a socket. Per run it prints each round's wall time and
// pairs per second ("round 1: 4 pairs in 0.612 s, 6.5 pairs/s"), the per-pair table, and the
// verdict as lines a script can match: "bad-node node-3", "bad-link node-1 node-2",
// "suspect node-4", or "healthy". Exit status 0 when every run completed, 2 on bad usage (a
// namespace that cannot be entered fails its node's pairs, naming it).
#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <exception>
#include <future>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "launcher/checks/fabric_tcp.h"
#include "launcher/policy/fabric_rounds.h"

namespace {

using pai::checks::FabricTcpFigures;
using pai::checks::FabricTcpListener;
using pai::checks::FabricTcpSettings;
using pai::launcher::FabricPairResult;
using pai::launcher::FabricRequest;
using pai::launcher::FabricRounds;
using pai::launcher::FabricThresholds;
using Clock = std::chrono::steady_clock;

constexpr int kPortMin = 20000;
constexpr int kPortMax = 29999;

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

/// Moves the calling thread into network namespace `name` (nothing for "").
void enter_namespace(const std::string& name) {
  if (name.empty()) return;
  const std::string path = "/run/netns/" + name;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot open " + path);
  const int rc = ::setns(fd, CLONE_NEWNET);
  ::close(fd);
  if (rc != 0) throw std::runtime_error("cannot enter network namespace " + name);
}

struct Cluster {
  std::vector<std::string> addresses;
  std::vector<std::string> namespaces;  // empty: all in this one
  std::vector<std::string> names;
  std::string ns(int node) const {
    return namespaces.empty() ? std::string() : namespaces[static_cast<std::size_t>(node)];
  }
};

/// One pair's measurement, both ends in threads of their own.
FabricPairResult measure_pair(const Cluster& c, const FabricRequest& q, FabricTcpSettings s) {
  s.key = "run-pair-" + std::to_string(q.round) + "-" + std::to_string(q.pair);
  std::promise<int> port;
  std::future<int> port_ready = port.get_future();
  std::thread listener([&] {
    try {
      enter_namespace(c.ns(q.nodes.first));
      FabricTcpListener l(c.addresses[static_cast<std::size_t>(q.nodes.first)], kPortMin, kPortMax);
      port.set_value(l.port());
      l.serve(s);
    } catch (...) {
      try {
        port.set_exception(std::current_exception());
      } catch (const std::future_error&) {
        // The port was published; the connector reports the failure from its side.
      }
    }
  });
  FabricPairResult r;
  std::thread connector([&] {
    try {
      enter_namespace(c.ns(q.nodes.second));
      const int at = port_ready.get();
      const FabricTcpFigures f =
          pai::checks::measure_fabric_tcp(c.addresses[static_cast<std::size_t>(q.nodes.first)], at,
                                          s, c.addresses[static_cast<std::size_t>(q.nodes.second)]);
      r.gbps = f.gbps();
      r.latency_us = f.latency_us;
    } catch (const std::exception& e) {
      r.error = e.what();
    }
  });
  connector.join();
  listener.join();
  return r;
}

int run(const Cluster& c, const FabricTcpSettings& s, const FabricThresholds& t, bool all_nodes,
        int runs) {
  const int nodes = static_cast<int>(c.addresses.size());
  for (int run = 1; run <= runs; ++run) {
    std::printf("run %d\n", run);
    FabricRounds rounds(nodes, t, all_nodes);
    std::vector<FabricRequest> requests = rounds.start();
    while (!requests.empty()) {
      const Clock::time_point began = Clock::now();
      std::vector<std::future<FabricPairResult>> pending;
      for (const FabricRequest& q : requests) {
        pending.push_back(std::async(std::launch::async, measure_pair, std::cref(c), q, s));
      }
      std::vector<FabricPairResult> got;
      for (auto& p : pending) got.push_back(p.get());
      const double seconds = std::chrono::duration<double>(Clock::now() - began).count();
      std::printf("round %d: %zu pairs in %.3f s, %.1f pairs/s\n", requests.front().round,
                  requests.size(), seconds, static_cast<double>(requests.size()) / seconds);
      std::vector<FabricRequest> next;
      for (std::size_t k = 0; k < requests.size(); ++k) {
        next = rounds.result(requests[k].round, requests[k].pair, got[k]);
      }
      requests = next;
    }
    for (const std::string& line :
         pai::launcher::fabric_table(rounds.results(), rounds.verdict(), c.names)) {
      std::printf("  %s\n", line.c_str());
    }
    const auto& v = rounds.verdict();
    for (const auto& b : v.bad_nodes) std::printf("bad-node %s\n", c.names[b.node].c_str());
    for (const auto& l : v.bad_links) {
      std::printf("bad-link %s %s\n", c.names[l.first].c_str(), c.names[l.second].c_str());
    }
    for (int n : v.suspects) std::printf("suspect %s\n", c.names[n].c_str());
    if (v.healthy()) std::printf("healthy\n");
    if (const auto& congestion = rounds.congestion()) {
      std::printf("%s%s\n", congestion->congested() ? "congested: " : "not congested: ",
                  pai::launcher::congestion_line(*congestion, c.names).c_str());
    }
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Runs the fabric check's rounds over real addresses"};
  std::string addresses;
  std::string namespaces;
  int streams = 4;
  int duration_ms = 500;
  int timeout_ms = 5000;
  double floor_gbps = 0;
  bool no_relative = false;
  bool all_nodes = false;
  int runs = 1;
  app.add_option("--addresses", addresses, "node addresses, comma-separated")->required();
  app.add_option("--netns", namespaces, "each node's network namespace, comma-separated");
  app.add_option("--streams", streams, "data streams per pair")->check(CLI::Range(1, 64));
  app.add_option("--duration-ms", duration_ms, "sending time per pair")
      ->check(CLI::Range(1, 60000));
  app.add_option("--timeout-ms", timeout_ms, "bound of one pair")->check(CLI::Range(1, 600000));
  app.add_option("--floor-gbps", floor_gbps, "absolute floor, Gbit/s (0: none)");
  app.add_flag("--no-relative", no_relative, "judge by the absolute floor only");
  app.add_flag("--all-nodes", all_nodes, "end with the all-nodes round (congestion)");
  app.add_option("--runs", runs, "checks to run one after the other")->check(CLI::Range(1, 1000));
  CLI11_PARSE(app, argc, argv);

  Cluster c;
  c.addresses = split(addresses);
  c.namespaces = split(namespaces);
  if (!c.namespaces.empty() && c.namespaces.size() != c.addresses.size()) {
    std::fprintf(stderr, "fabric_driver: --netns names %zu namespaces for %zu addresses\n",
                 c.namespaces.size(), c.addresses.size());
    return 2;
  }
  for (std::size_t k = 0; k < c.addresses.size(); ++k) {
    c.names.push_back("node-" + std::to_string(k + 1));
  }
  FabricTcpSettings s;
  s.streams = streams;
  s.duration = std::chrono::milliseconds(duration_ms);
  s.timeout = std::chrono::milliseconds(timeout_ms);
  FabricThresholds t;
  t.floor_gbps = floor_gbps;
  if (no_relative) t.min_pairs_for_relative = std::numeric_limits<int>::max();
  try {
    return run(c, s, t, all_nodes, runs);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fabric_driver: %s\n", e.what());
    return 2;
  }
}
